import { anonymous, Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg, TestOrg } from '../../support/factories';
import { createInvoice, D, pay, r30 } from './payments-helpers';

async function ids(api: Api, body: unknown): Promise<string[]> {
  return expectSuccess(await api.post('/payments', body)).items.map((p: any) => p.id);
}

describe('POST /payments (list)', () => {
  let org: TestOrg;
  let inv1: string;
  let inv2: string;
  const p: Record<string, string> = {};
  let createdBetween: string;

  beforeAll(async () => {
    org = await createOrg();
    inv1 = await createInvoice(org.test, '1000', 'USD');
    inv2 = await createInvoice(org.test, '1000', 'USD');
    p.usdt = (await pay(org.test, { invoice_id: inv1, provider_id: 'prov_ethereum_usdt', price: '10' })).id;
    p.usdc = (await pay(org.test, { invoice_id: inv1, provider_id: 'prov_solana_usdc', price: '20', status: 'COMPLETED' })).id;
    await new Promise((r) => setTimeout(r, 1100));
    createdBetween = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 1100));
    // The interface's other spelling of provider ids names the same provider.
    p.card = (await pay(org.test, { invoice_id: inv2, provider_id: 'provider_card_eur', price: '30', status: 'COMPLETED' })).id;
    p.btc = (await pay(org.test, { invoice_id: inv2, provider_id: 'prov_bitcoin_bitcoin', price: '0.001' })).id;
    const failed = await pay(org.test, { invoice_id: inv2, provider_id: 'prov_tron_usdt', price: '40' });
    p.failed = failed.id;
    expectSuccess(await org.test.post(`/test_helpers/payments/${failed.id}/status`, { status: 'FAILED' }));
  });

  it('requires an API key', async () => {
    expectError(await anonymous().post('/payments', {}), 401);
    expectError(await new Api('sk_test_unknownunknownunknownunknown12').post('/payments', {}), 401);
  });

  it('lists newest first with the page shape, with {} or [] as the body', async () => {
    const page = expectSuccess(await org.test.post('/payments', {}));
    expect(page).toMatchObject({ total: 5, limit: 20, offset: 0, has_more: false });
    expect(page.items.map((x: any) => x.id)).toEqual([p.failed, p.btc, p.card, p.usdc, p.usdt]);
    expect(page.items[0]).not.toHaveProperty('provider');
    expect(await ids(org.test, [])).toEqual([p.failed, p.btc, p.card, p.usdc, p.usdt]);
    expect(expectSuccess(await org.test.request('POST', '/payments')).total).toBe(5);
  });

  it('pages with limit and offset', async () => {
    const page = expectSuccess(await org.test.post('/payments', { limit: 2, offset: 1 }));
    expect(page).toMatchObject({ total: 5, limit: 2, offset: 1, has_more: true });
    expect(page.items.map((x: any) => x.id)).toEqual([p.btc, p.card]);
    expect(expectSuccess(await org.test.post('/payments', { limit: 2, offset: 4 })).has_more).toBe(false);
    expect(expectSuccess(await org.test.post('/payments', { offset: 10 })).items).toEqual([]);
  });

  it.each([
    ['provider_id', () => ({ provider_id: ['prov_ethereum_usdt', 'prov_card_eur'] }), () => [p.card, p.usdt]],
    ['provider_id (provider_ spelling)', () => ({ provider_id: ['provider_solana_usdc'] }), () => [p.usdc]],
    ['invoice_id', () => ({ invoice_id: inv1 }), () => [p.usdc, p.usdt]],
    ['status', () => ({ status: ['COMPLETED', 'FAILED'] }), () => [p.failed, p.card, p.usdc]],
    ['currency', () => ({ currency: ['USDT'] }), () => [p.failed, p.usdt]],
    ['currency (two)', () => ({ currency: ['BITCOIN', 'USDC'] }), () => [p.btc, p.usdc]],
    ['price_usd_from', () => ({ price_usd_from: r30(new D(30).mul('1.1587')) }), () => [p.failed, p.btc, p.card]],
    ['price_usd_to (inclusive)', () => ({ price_usd_to: '19.998' }), () => [p.usdc, p.usdt]],
    ['price_usd_to', () => ({ price_usd_to: '19.997999' }), () => [p.usdt]],
    ['price_usd range (numbers)', () => ({ price_usd_from: 19, price_usd_to: 35 }), () => [p.card, p.usdc]],
    ['created_at_from', () => ({ created_at_from: createdBetween }), () => [p.failed, p.btc, p.card]],
    ['created_at_to', () => ({ created_at_to: createdBetween }), () => [p.usdc, p.usdt]],
    [
      'created_at whole day',
      () => ({ created_at_from: new Date().toISOString().slice(0, 10), created_at_to: new Date().toISOString().slice(0, 10) }),
      () => [p.failed, p.btc, p.card, p.usdc, p.usdt],
    ],
    ['combined (AND)', () => ({ invoice_id: inv2, status: ['PENDING'] }), () => [p.btc]],
    ['nothing matching', () => ({ invoice_id: 'invoice_nope' }), () => []],
  ])('filters by %s', async (_name, body, expected) => {
    const page = expectSuccess(await org.test.post('/payments', body()));
    expect(page.items.map((x: any) => x.id)).toEqual(expected());
    expect(page.total).toBe(expected().length);
  });

  it('expands the provider on every entry', async () => {
    const page = expectSuccess(await org.test.post('/payments', { expand: ['provider'], invoice_id: inv2 }));
    expect(page.items.map((x: any) => [x.provider_id, x.provider.id, x.provider.type, x.provider.organization_id])).toEqual([
      ['prov_tron_usdt', 'prov_tron_usdt', 'CRYPTOCURRENCY', org.id],
      ['prov_bitcoin_bitcoin', 'prov_bitcoin_bitcoin', 'CRYPTOCURRENCY', org.id],
      ['prov_card_eur', 'prov_card_eur', 'FIAT', org.id],
    ]);
    expect(Object.keys(page.items[0].provider)).toEqual(
      expect.arrayContaining(['id', 'organization_id', 'name', 'slug', 'type', 'enabled', 'created_at', 'updated_at']),
    );
  });

  it.each([
    [{ limit: 101 }, 'limit'],
    [{ limit: -1 }, 'limit'],
    [{ offset: -1 }, 'offset'],
    [{ limit: 'ten' }, 'limit'],
    [{ status: ['PAID'] }, 'status'],
    [{ status: 'PENDING' }, 'status'],
    [{ currency: ['XYZ'] }, 'currency'],
    [{ provider_id: 'prov_card_usd' }, 'provider_id'],
    [{ provider_id: [7] }, 'provider_id'],
    [{ invoice_id: 5 }, 'invoice_id'],
    [{ price_usd_from: '-1' }, 'price_usd_from'],
    [{ price_usd_to: '1e3' }, 'price_usd_to'],
    [{ created_at_from: 'yesterday' }, 'created_at_from'],
    [{ created_at_to: '2026-13-01' }, 'created_at_to'],
    [{ expand: ['invoice'] }, 'expand'],
    [{ expand: 'provider' }, 'expand'],
  ])('refuses %j (400 at %s)', async (body, field) => {
    expectError(await org.test.post('/payments', body), 400, { code: 'validation_failed', field });
  });

  it.each(['[1]', '"x"', '5', 'true'])('refuses the body %s (400)', async (raw) => {
    expectError(await org.test.request('POST', '/payments', { rawBody: raw, headers: { 'content-type': 'application/json' } }), 400, {
      code: 'validation_failed',
    });
  });

  it("never shows another organization's or the other mode's payments", async () => {
    const other = await createOrg();
    expect(expectSuccess(await other.test.post('/payments', {})).total).toBe(0);
    expect(expectSuccess(await org.live.post('/payments', {})).total).toBe(0);
    expect(expectSuccess(await other.test.post('/payments', { invoice_id: inv1 })).total).toBe(0);
  });
});

describe('POST /payments/{id} (read)', () => {
  it('reads with {} / [] / no body and with the provider expanded', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test);
    const { id } = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_polygon_usdc_native', price: '1.5', happened_at: '2026-11-20 12:00:00' });
    const plain = expectSuccess(await test.post(`/payments/${id}`, {}));
    expect(plain).toMatchObject({
      id,
      currency: 'USDC_NATIVE',
      price: r30('1.5'),
      price_usd: r30(new D('1.5').mul('0.9999')),
      happened_at: '2026-11-20 12:00:00',
      idempotency_key: null,
    });
    expect(plain).not.toHaveProperty('provider');
    expect(expectSuccess(await test.post(`/payments/${id}`, []))).toEqual(plain);
    expect(expectSuccess(await test.request('POST', `/payments/${id}`))).toEqual(plain);
    const expanded = expectSuccess(await test.post(`/payments/${id}`, { expand: ['provider'] }));
    expect(expanded.provider).toMatchObject({
      id: 'prov_polygon_usdc_native',
      network: 'POLYGON',
      gateway: 'USDC_NATIVE',
      currency: 'USDC_NATIVE',
      decimals: 6,
    });
  });

  it("answers 404 for another organization's id, the other mode, and unknown or malformed ids", async () => {
    const a = await createOrg();
    const b = await createOrg();
    const invoiceId = await createInvoice(a.test);
    const { id } = await pay(a.test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '1' });
    expectError(await b.test.post(`/payments/${id}`, {}), 404, { code: 'payment_not_found' });
    expectError(await b.live.post(`/payments/${id}`, {}), 404, { code: 'payment_not_found' });
    expectError(await a.live.post(`/payments/${id}`, {}), 404, { code: 'payment_not_found' });
    expectError(await a.test.post('/payments/payment_0193aaaa-0000-7000-8000-000000000000', {}), 404);
    expectError(await a.test.post('/payments/not-an-id%27%3B--', {}), 404);
  });

  it('refuses a bad expansion (400) and a bad key (401)', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test);
    const { id } = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '1' });
    expectError(await test.post(`/payments/${id}`, { expand: ['invoice'] }), 400, { field: 'expand' });
    expectError(await anonymous().post(`/payments/${id}`, { expand: ['provider'] }, { authorization: 'sk_test_nope' }), 401);
  });
});

describe('test helpers access', () => {
  it('answers 401 without a key, 403 to a live key and to a read-only key', async () => {
    const org = await createOrg();
    const invoiceId = await createInvoice(org.test);
    const body = { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '1' };
    expectError(await anonymous().post('/test_helpers/payments', body), 401);
    expectError(await org.live.post('/test_helpers/payments', body), 403, { code: 'live_mode_forbidden' });
    const readOnly = new Api(await createKey(org.id, 'test', true));
    expectError(await readOnly.post('/test_helpers/payments', body), 403, { code: 'read_only_key' });
    const { id } = await pay(org.test, body);
    expectError(await anonymous().post(`/test_helpers/payments/${id}/status`, { status: 'COMPLETED' }), 401);
    expectError(await org.live.post(`/test_helpers/payments/${id}/status`, { status: 'COMPLETED' }), 403, { code: 'live_mode_forbidden' });
    expectError(await readOnly.post(`/test_helpers/payments/${id}/status`, { status: 'COMPLETED' }), 403);
    expect(expectSuccess(await org.test.post(`/payments/${id}`, {})).status).toBe('PENDING');
  });

  it("answers 404 for another organization's invoice or payment", async () => {
    const a = await createOrg();
    const b = await createOrg();
    const invoiceId = await createInvoice(a.test);
    expectError(await b.test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '1' }), 404, {
      code: 'invoice_not_found',
    });
    expectError(await a.test.post('/test_helpers/payments', { invoice_id: 'invoice_unknown', provider_id: 'prov_card_usd', price: '1' }), 404);
    const { id } = await pay(a.test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '1' });
    expectError(await b.test.post(`/test_helpers/payments/${id}/status`, { status: 'COMPLETED' }), 404, { code: 'payment_not_found' });
    expect(expectSuccess(await a.test.post(`/payments/${id}`, {})).status).toBe('PENDING');
  });

  it.each([
    [{ provider_id: 'prov_card_usd', price: '1' }, 'invoice_id'],
    [{ invoice_id: 'X', price: '1' }, 'provider_id'],
    [{ invoice_id: 'X', provider_id: 'prov_card_usd' }, 'price'],
    [{ invoice_id: 'X', provider_id: 'prov_card_usd', price: '-1' }, 'price'],
    [{ invoice_id: 'X', provider_id: 'prov_card_usd', price: '1e2' }, 'price'],
    [{ invoice_id: 'X', provider_id: 'prov_card_usd', price: '1', status: 'PAID' }, 'status'],
    [{ invoice_id: 'X', provider_id: 'prov_card_usd', price: '1', idempotency_key: '' }, 'idempotency_key'],
    [{ invoice_id: 'X', provider_id: 'prov_card_usd', price: '1', happened_at: 'now' }, 'happened_at'],
  ])('refuses %j (400 at %s)', async (body, field) => {
    const { test } = await createOrg();
    expectError(await test.post('/test_helpers/payments', body), 400, { code: 'validation_failed', field });
  });

  it.each([
    ['an unknown provider', { provider_id: 'prov_nowhere_coin' }, 'provider_id'],
    ['a zero price', { price: '0' }, 'price'],
    ['more decimals than the provider has', { price: '1.001' }, 'price'],
    ['a time in the future', { happened_at: '2999-01-01 00:00:00' }, 'happened_at'],
  ])('refuses %s (400)', async (_name, change, field) => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test);
    expectError(await test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '1', ...change }), 400, { field });
  });

  it('refuses an unknown status on the status call', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test);
    const { id } = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '1' });
    expectError(await test.post(`/test_helpers/payments/${id}/status`, { status: 'DONE' }), 400, { field: 'status' });
    expectError(await test.post(`/test_helpers/payments/${id}/status`, {}), 400, { field: 'status' });
  });
});
