import { PNG, upload } from '../files/files-helpers';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { oneTimeSchema, productBody, recurringSchema, TIMESTAMP } from './product-bodies';

async function createProduct(api: Api, body: unknown = productBody()): Promise<string> {
  return expectSuccess(await api.post('/products', body)).id;
}

describe('Products: versioning', () => {
  it('writes a new version on replace and keeps the old one readable and inactive', async () => {
    const org = await createOrg();
    const v1 = await createProduct(org.test);
    const before = expectSuccess(await org.test.get(`/products/${v1}`));

    const res = await org.test.put(
      `/products/${v1}`,
      productBody({
        name: 'Pro plan 2',
        schemas: [recurringSchema({ base_price: 120 }), oneTimeSchema(), oneTimeSchema({ name: 'Extra' })],
      }),
    );
    const data = expectSuccess(res, 200);
    expect(Object.keys(data)).toEqual(['id']);
    const v2 = data.id;
    expect(v2).not.toBe(v1);

    const old = expectSuccess(await org.test.get(`/products/${v1}`));
    expect(old).toMatchObject({ id: v1, is_active: 0, name: 'Pro plan' });
    expect(old.updated_at).toMatch(TIMESTAMP);
    expect(old.schemas.map((s: any) => s.is_active)).toEqual([0, 0]);
    expect(old.schemas[0].updated_at).toMatch(TIMESTAMP);
    expect(old.schemas[0].configurations.map((c: any) => c.is_active)).toEqual([0, 0]);
    expect(old.schemas[0].base_price).toBe('100.000000000000000000000000000000');

    const current = expectSuccess(await org.test.get(`/products/${v2}`));
    expect(current).toMatchObject({ id: v2, is_active: 1, name: 'Pro plan 2', version_group_id: before.version_group_id, updated_at: null });
    expect(current.schemas).toHaveLength(3);
    // New ids everywhere; schemas and tiers keep their groups by position, a new schema starts its own.
    current.schemas.forEach((s: any) => expect(before.schemas.map((o: any) => o.id)).not.toContain(s.id));
    expect(current.schemas[0].version_group_id).toBe(before.schemas[0].version_group_id);
    expect(current.schemas[1].version_group_id).toBe(before.schemas[1].version_group_id);
    expect(before.schemas.map((s: any) => s.version_group_id)).not.toContain(current.schemas[2].version_group_id);
    expect(current.schemas[0].base_price).toBe('120.000000000000000000000000000000');
    expect(current.schemas[0].configurations.map((c: any) => c.version_group_id)).toEqual(before.schemas[0].configurations.map((c: any) => c.version_group_id));
    expect(current.schemas[0].configurations.map((c: any) => c.id)).not.toEqual(before.schemas[0].configurations.map((c: any) => c.id));
    expect(current.schemas.every((s: any) => s.is_active === 1 && s.product_id === v2)).toBe(true);
  });

  it('lists active versions only, unless include_inactive=true', async () => {
    const org = await createOrg();
    const v1 = await createProduct(org.test);
    const v2 = expectSuccess(await org.test.put(`/products/${v1}`, productBody({ name: 'v2' }))).id;
    const v3 = expectSuccess(await org.test.put(`/products/${v2}`, productBody({ name: 'v3' }))).id;
    expect(expectSuccess(await org.test.get('/products')).map((p: any) => p.id)).toEqual([v3]);
    expect(expectSuccess(await org.test.get('/products?include_inactive=false')).map((p: any) => p.id)).toEqual([v3]);
    const all = expectSuccess(await org.test.get('/products?include_inactive=true'));
    expect(all.map((p: any) => [p.id, p.is_active])).toEqual([
      [v3, true],
      [v2, false],
      [v1, false],
    ]);
    expect(new Set(all.map((p: any) => p.version_group_id)).size).toBe(1);
  });

  it('refuses to replace an inactive version with 400', async () => {
    const org = await createOrg();
    const v1 = await createProduct(org.test);
    const v2 = expectSuccess(await org.test.put(`/products/${v1}`, productBody({ name: 'v2' }))).id;
    expectError(await org.test.put(`/products/${v1}`, productBody({ name: 'again' })), 400, { code: 'product_version_inactive', field: 'id' });
    expect(expectSuccess(await org.test.get(`/products/${v2}`))).toMatchObject({ is_active: 1, name: 'v2' });
    expect(expectSuccess(await org.test.get('/products')).map((p: any) => p.id)).toEqual([v2]);
  });

  it('clears omitted optional fields on replace', async () => {
    const org = await createOrg();
    const imageId = expectSuccess(await upload(org.test, PNG)).id;
    const v1 = await createProduct(org.test, productBody({ image_id: imageId }));
    expect(expectSuccess(await org.test.get(`/products/${v1}`)).image_id).toBe(imageId);
    const v2 = expectSuccess(
      await org.test.put(`/products/${v1}`, {
        name: 'Bare',
        schemas: [{ name: 'Once', currency: 'USD', type: 'ONE_TIME', base_price: 5 }],
      }),
    ).id;
    const product = expectSuccess(await org.test.get(`/products/${v2}`));
    expect(product).toMatchObject({ name: 'Bare', description: '', metadata: {}, image_id: null });
    expect(product.schemas).toHaveLength(1);
    expect(product.schemas[0]).toMatchObject({ description: '', configurations: [] });
  });

  it('leaves the version untouched when the replacement is invalid', async () => {
    const org = await createOrg();
    const v1 = await createProduct(org.test);
    const bad = productBody({
      schemas: [
        recurringSchema({
          configurations: [
            { starts_at: 0, ends_at: 10, price_per_unit: 1, metric: { metric_key: 'fresh_metric', aggregation_type: 'SUM' } },
            { starts_at: 5, ends_at: null, price_per_unit: 1, metric: { metric_key: 'fresh_metric', aggregation_type: 'SUM' } },
          ],
        }),
      ],
    });
    expectError(await org.test.put(`/products/${v1}`, bad), 400, { field: 'schemas.0.configurations.1.starts_at' });
    expect(expectSuccess(await org.test.get(`/products/${v1}`)).is_active).toBe(1);
    expect(expectSuccess(await org.test.get('/products?include_inactive=true')).map((p: any) => p.id)).toEqual([v1]);
  });

  it('lets only one of several concurrent replaces of a version succeed; the others get 400', async () => {
    const org = await createOrg();
    for (let round = 0; round < 3; round++) {
      const v1 = await createProduct(org.test, productBody({ name: `Round ${round}` }));
      const results = await Promise.all([1, 2, 3, 4].map((n) => org.test.put(`/products/${v1}`, productBody({ name: `Round ${round} writer ${n}` }))));
      const winners = results.filter((r) => r.status === 200);
      const losers = results.filter((r) => r.status !== 200);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(3);
      for (const loser of losers) expectError(loser, 400, { code: 'product_version_inactive', field: 'id' });

      const winner = winners[0].body.data.id;
      const versions = expectSuccess(await org.test.get('/products?include_inactive=true&limit=100')).filter((p: any) => p.name.startsWith(`Round ${round}`));
      expect(versions.map((p: any) => [p.id, p.is_active])).toEqual([
        [winner, true],
        [v1, false],
      ]);
    }
  });
});
