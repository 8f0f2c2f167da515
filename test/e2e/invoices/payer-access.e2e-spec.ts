import { anonymous, Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { startIsolatedService } from '../../support/isolated';
import { convert, createInvoice, intent, r30, readInvoice } from './invoice-helpers';

const payer = anonymous;

describe('payer access without a key (decisions §3)', () => {
  it('reads the payer view: no metadata, a masked email', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test, {
      customer_email: 'jane.doe@example.com',
      metadata: { secret: 'x' },
      redirect_url: 'https://shop.example.com/ok',
    });
    const data = await readInvoice(payer(), id);
    expect(data).not.toHaveProperty('metadata');
    expect(data.customer_email).toBe('j***@example.com');
    expect(data).toMatchObject({
      id,
      organization_id: org.id,
      status: 'PENDING',
      currency: 'USD',
      price: r30(10),
      redirect_url: 'https://shop.example.com/ok',
    });
    expect(await readInvoice(payer(), id, [])).toEqual(data);
  });

  it('finds a live-mode invoice by id alone', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.live);
    expect((await readInvoice(payer(), id)).id).toBe(id);
    expect((await payer().get(`/invoices/${id}/short_state`)).body.status).toBe('PENDING');
  });

  it('allows the payer expansions', async () => {
    const org = await createOrg('Payer Shop');
    const id = await createInvoice(org.test, { items: [intent('1', 'EUR')], currency: 'USD' });
    const data = await readInvoice(payer(), id, { expand: ['items', 'items.product', 'calculations', 'organization', 'payments', 'payments.provider'] });
    expect(data.items).toHaveLength(1);
    expect(data.items[0].product).toBeNull();
    expect(data.calculations.map((c: any) => c.calculation_type)).toEqual(['PAYMENT_INTENT', 'CURRENCY_CHANGE', 'TOTAL', 'TOTAL_USD']);
    expect(data.organization).toEqual({ name: 'Payer Shop', image_url: null });
    expect(data.payments).toEqual([]);
  });

  it.each([['items.billing_schema'], ['items.payment_intent'], ['currency']])('refuses the %s expansion with 400', async (expansion) => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    const body = expectError(await payer().post(`/invoices/${id}`, { expand: ['items', expansion] }), 400, { code: 'validation_failed', field: 'expand.1' });
    expect(body.validator['expand.1']).toMatch(/without an API key/);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    expectError(await payer().post('/invoices/invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00', {}), 404, { code: 'invoice_not_found' });
    expectError(await payer().post('/invoices/whatever', {}), 404);
    expectError(await payer().get('/invoices/invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00/short_state'), 404);
    expectError(await payer().put('/invoices/invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00', { currency: 'EUR' }), 404);
  });

  it('refuses a status change with 401', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    expectError(await payer().put(`/invoices/${id}`, { status: 'VOIDED' }), 401);
    expectError(await payer().put(`/invoices/${id}`, { status: 'COMPLETED' }), 401);
    expect((await readInvoice(org.test, id)).status).toBe('PENDING');
  });

  it('changes the currency while PENDING, and not after', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test, { items: [intent('20')] });
    expect(expectSuccess(await payer().put(`/invoices/${id}`, { currency: 'EUR' }))).toEqual({ id, message: 'Invoice currency changed to EUR' });
    expect(await readInvoice(org.test, id)).toMatchObject({ currency: 'EUR', price: r30(convert(20, 'USD', 'EUR')), price_usd: r30(20) });
    expectSuccess(await org.test.put(`/invoices/${id}`, { status: 'VOIDED' }));
    expectError(await payer().put(`/invoices/${id}`, { currency: 'USD' }), 400, { code: 'invalid_state_transition', field: 'currency' });
  });

  it('reads the short state', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    const res = await payer().get(`/invoices/${id}/short_state`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('PENDING');
    expect(res.body.data.id).toBe(id);
  });

  it('is off with PUBLIC_PAYER_ACCESS=false', async () => {
    const service = await startIsolatedService({ PUBLIC_PAYER_ACCESS: 'false' });
    try {
      const org = await service.createOrg();
      const res = await org.test.post('/invoices/create', { items: [intent('1')] });
      const { id } = expectSuccess(res, 201);
      const nobody = new Api(null, service.server.baseUrl);
      expectError(await nobody.post(`/invoices/${id}`, {}), 401);
      expectError(await nobody.put(`/invoices/${id}`, { currency: 'EUR' }), 401);
      expectError(await nobody.get(`/invoices/${id}/short_state`), 401);
      expect(expectSuccess(await org.test.post(`/invoices/${id}`, {})).metadata).toEqual({});
    } finally {
      await service.stop();
    }
  });
});
