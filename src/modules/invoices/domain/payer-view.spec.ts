import { maskEmail, payerProductView, withImpliedParents } from './payer-view';

describe('maskEmail', () => {
  it.each([
    ['jane@example.com', 'j***@example.com'],
    ['J.Doe+tag@sub.example.org', 'J***@sub.example.org'],
    ['a@b.co', 'a***@b.co'],
    ['no-at-sign', '***'],
    ['@example.com', '***'],
  ])('%s -> %s', (email, masked) => {
    expect(maskEmail(email)).toBe(masked);
  });

  it('keeps null', () => {
    expect(maskEmail(null)).toBeNull();
  });
});

describe('withImpliedParents', () => {
  it('adds the parent of a nested expansion', () => {
    expect([...withImpliedParents(['items.product', 'payments.provider'])].sort()).toEqual(['items', 'items.product', 'payments', 'payments.provider']);
  });

  it('leaves top-level expansions alone', () => {
    expect([...withImpliedParents(['calculations'])]).toEqual(['calculations']);
  });
});

describe('payerProductView', () => {
  const schema = (id: string) => ({
    id,
    version_group_id: `vg_${id}`,
    organization_id: 'org_1',
    product_id: 'prod_1',
    is_active: 1,
    name: `Plan ${id}`,
    description: 'Monthly',
    type: 'RECURRING',
    currency: 'USD',
    base_price: '10.000000000000000000000000000000',
    interval_type: 'MONTH',
    interval_count: 1,
    payment_type: 'PREPAID',
    renew_type: 'AUTO',
    billing_type: 'FIXED',
    configurations: [{ id: 'cfg_1', price_per_unit: '0.5' }],
    created_at: '2026-11-21 10:00:00',
    updated_at: null,
  });
  const product = {
    id: 'prod_1',
    version_group_id: 'vg_p',
    is_active: 1,
    name: 'Widget',
    organization_id: 'org_1',
    description: 'A widget',
    image_id: 'file_1',
    image: { id: 'file_1', url: 'https://pay.example.com/assets/file_1' },
    metadata: { internal_cost: '3.10' },
    schemas: [schema('s1'), schema('s2')],
    created_at: '2026-11-21 10:00:00',
    updated_at: null,
  };

  it('keeps only the allow-listed fields and the schemas the invoice used, and no image (it needs the merchant key)', () => {
    expect(payerProductView(product, new Set(['s2']))).toEqual({
      id: 'prod_1',
      name: 'Widget',
      description: 'A widget',
      image: null,
      schemas: [
        {
          id: 's2',
          name: 'Plan s2',
          description: 'Monthly',
          type: 'RECURRING',
          currency: 'USD',
          base_price: '10.000000000000000000000000000000',
          interval_type: 'MONTH',
          interval_count: 1,
        },
      ],
    });
  });

  it('never carries metadata, even when every schema is used', () => {
    const view = payerProductView(product, new Set(['s1', 's2']));
    expect(JSON.stringify(view)).not.toContain('internal_cost');
    expect(view).not.toHaveProperty('metadata');
    for (const s of view.schemas)
      expect(Object.keys(s).sort()).toEqual(['base_price', 'currency', 'description', 'id', 'interval_count', 'interval_type', 'name', 'type']);
  });
});
