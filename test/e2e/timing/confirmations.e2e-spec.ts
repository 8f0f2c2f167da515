import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { runCli, sharedCliEnv } from '../../support/server';
import { createInvoice, pay, shortState } from '../payments/payments-helpers';

const confirm = (api: Api, id: string, confirmations: unknown) => api.post(`/test_helpers/payments/${id}/confirmations`, { confirmations });

async function payment(api: Api, id: string): Promise<any> {
  return expectSuccess(await api.post(`/payments/${id}`, {}));
}

describe('confirmations per network', () => {
  it('holds a crypto payment below its required confirmations: the invoice stays WAITING_FOR_CONFIRMATIONS and the payment does not count; reaching it completes', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '100', 'USD');
    // Enough USDT on Ethereum (12 confirmations required) to cover the invoice, seen with 3.
    const seen = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_ethereum_usdt', price: '100', confirmations: 3 });
    expect(seen).toMatchObject({ status: 'PENDING', confirmations: 3, required_confirmations: 12, invoice: { status: 'WAITING_FOR_CONFIRMATIONS' } });
    expect(await payment(test, seen.id)).toMatchObject({ status: 'PENDING', confirmations: 3, required_confirmations: 12 });

    const eleven = expectSuccess(await confirm(test, seen.id, 11));
    expect(eleven).toMatchObject({ status: 'PENDING', confirmations: 11, invoice: { status: 'WAITING_FOR_CONFIRMATIONS' } });
    expect(await shortState(test, invoiceId)).toMatchObject({ status: 'WAITING_FOR_CONFIRMATIONS', substatus: null });
    // Not counted: the completed-payments filter finds nothing yet.
    expect(expectSuccess(await test.post('/payments', { invoice_id: invoiceId, status: ['COMPLETED'] })).total).toBe(0);

    const twelve = expectSuccess(await confirm(test, seen.id, 12));
    expect(twelve).toMatchObject({
      status: 'COMPLETED',
      confirmations: 12,
      required_confirmations: 12,
      invoice: { status: 'COMPLETED', previous_status: 'WAITING_FOR_CONFIRMATIONS' },
    });
    expect(await shortState(test, invoiceId)).toMatchObject({ status: 'COMPLETED' });
    // More confirmations after completion are recorded; nothing else moves.
    expect(expectSuccess(await confirm(test, seen.id, 30))).toMatchObject({ status: 'COMPLETED', confirmations: 30, invoice: { status: 'COMPLETED' } });
    expect(await payment(test, seen.id)).toMatchObject({ status: 'COMPLETED', confirmations: 30, required_confirmations: 12 });
  });

  it('a partial payment counts toward the total only once confirmed', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '100', 'USD');
    const part = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_bitcoin_bitcoin', price: '0.0001', confirmations: 1 });
    expect(part).toMatchObject({ status: 'PENDING', required_confirmations: 2, invoice: { status: 'WAITING_FOR_CONFIRMATIONS' } });
    expect(expectSuccess(await confirm(test, part.id, 2)).invoice).toMatchObject({ status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' });
  });

  it('holds a report of COMPLETED with fewer confirmations than required, and completes one reported with enough', async () => {
    const { test } = await createOrg();
    const held = await createInvoice(test, '100', 'USD');
    const early = await pay(test, { invoice_id: held, provider_id: 'prov_tron_usdt', price: '100', status: 'COMPLETED', confirmations: 5 });
    expect(early).toMatchObject({ status: 'PENDING', confirmations: 5, required_confirmations: 19, invoice: { status: 'WAITING_FOR_CONFIRMATIONS' } });
    const enough = await createInvoice(test, '100', 'USD');
    const deep = await pay(test, { invoice_id: enough, provider_id: 'prov_tron_usdt', price: '100', confirmations: 19 });
    expect(deep).toMatchObject({ status: 'COMPLETED', confirmations: 19, invoice: { status: 'COMPLETED' } });
    // The same payment reported again with more confirmations (same idempotency key) climbs too.
    const climbing = await createInvoice(test, '100', 'USD');
    const first = await pay(test, { invoice_id: climbing, provider_id: 'prov_solana_usdc', price: '101', confirmations: 1, idempotency_key: 'sig-1' });
    expect(first).toMatchObject({ status: 'PENDING', required_confirmations: 32 });
    const again = await pay(test, { invoice_id: climbing, provider_id: 'prov_solana_usdc', price: '101', confirmations: 32, idempotency_key: 'sig-1' });
    expect(again).toMatchObject({ id: first.id, created: false, status: 'COMPLETED', confirmations: 32, invoice: { status: 'COMPLETED' } });
  });

  it('keeps earlier behaviour without counts: COMPLETED counts as fully confirmed, fiat needs none', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '100', 'USD');
    const done = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_ethereum_usdt', price: '100', status: 'COMPLETED' });
    expect(done).toMatchObject({ status: 'COMPLETED', confirmations: 12, required_confirmations: 12 });
    const card = await pay(test, { invoice_id: await createInvoice(test, '5', 'USD'), provider_id: 'prov_card_usd', price: '5', status: 'COMPLETED' });
    expect(card).toMatchObject({ status: 'COMPLETED', confirmations: 0, required_confirmations: 0 });
  });

  it.each([
    [-1, 'from 0'],
    [1.5, 'whole number'],
    ['3', 'whole number'],
    [1_000_001, 'at most'],
  ])('refuses confirmations %p on a new payment (400, validator.confirmations)', async (value, message) => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test);
    const body = expectError(
      await test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_bitcoin_bitcoin', price: '0.001', confirmations: value }),
      400,
      { field: 'confirmations' },
    );
    expect(String(body.validator.confirmations)).toMatch(new RegExp(message === 'from 0' ? 'at least 0' : message));
  });

  it('refuses confirmations for a fiat payment', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test);
    expectError(await test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '1', confirmations: 1 }), 400, {
      field: 'confirmations',
    });
    const card = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '1' });
    expectError(await confirm(test, card.id, 1), 400, { field: 'confirmations' });
  });

  describe('POST /test_helpers/payments/{id}/confirmations', () => {
    it('answers 401 without a key, 403 for a live key', async () => {
      const { test, live } = await createOrg();
      const seen = await pay(test, { invoice_id: await createInvoice(test), provider_id: 'prov_bitcoin_bitcoin', price: '0.001' });
      const anonymous = new Api(null);
      expectError(await confirm(anonymous, seen.id, 1), 401);
      expectError(await confirm(live, seen.id, 1), 403);
    });

    it("answers 404 for another organization's payment and an unknown id", async () => {
      const mine = await createOrg();
      const other = await createOrg();
      const seen = await pay(mine.test, { invoice_id: await createInvoice(mine.test), provider_id: 'prov_bitcoin_bitcoin', price: '0.001' });
      expectError(await confirm(other.test, seen.id, 1), 404, { code: 'payment_not_found' });
      expectError(await confirm(mine.test, 'payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01', 1), 404);
    });

    it.each([
      [-1, 'at least 0'],
      [2.5, 'whole number'],
      ['4', 'whole number'],
      [null, 'whole number'],
      [1_000_001, 'at most'],
    ])('refuses %p (400, validator.confirmations)', async (value, message) => {
      const { test } = await createOrg();
      const seen = await pay(test, { invoice_id: await createInvoice(test), provider_id: 'prov_bitcoin_bitcoin', price: '0.001' });
      const body = expectError(await confirm(test, seen.id, value), 400, { field: 'confirmations' });
      expect(body.validator.confirmations).toContain(message);
    });

    it('refuses a lower count than the current one and a FAILED payment', async () => {
      const { test } = await createOrg();
      const invoiceId = await createInvoice(test);
      const seen = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_litecoin_litecoin', price: '0.01', confirmations: 4 });
      expect(seen.required_confirmations).toBe(6);
      const lower = expectError(await confirm(test, seen.id, 3), 400, { field: 'confirmations' });
      expect(lower.validator.confirmations).toContain('lower than the current 4');
      expectSuccess(await test.post(`/test_helpers/payments/${seen.id}/status`, { status: 'FAILED' }));
      expectError(await confirm(test, seen.id, 6), 400, { field: 'confirmations' });
      expect(await payment(test, seen.id)).toMatchObject({ status: 'FAILED', confirmations: 4 });
    });
  });

  describe('provider:confirmations (CLI) overrides the catalog per organization', () => {
    const cli = (...args: string[]) => runCli(args, sharedCliEnv());

    it('applies the override to new payments and to GET /providers/{invoice_id}; "default" restores the catalog value', async () => {
      const org = await createOrg();
      const set = await cli('provider:confirmations', '--org', org.id, '--provider', 'prov_bitcoin_bitcoin', '--count', '3', '--mode', 'test');
      expect(set.code).toBe(0);
      expect(JSON.parse(set.stdout)).toMatchObject({
        provider_id: 'prov_bitcoin_bitcoin',
        required_confirmations: 3,
        catalog_required_confirmations: 2,
        modes: ['test'],
      });

      const invoiceId = await createInvoice(org.test);
      const providers = expectSuccess(await org.test.get(`/providers/${invoiceId}`)).providers;
      expect(providers.find((p: any) => p.id === 'prov_bitcoin_bitcoin').metadata.required_confirmations).toBe(3);
      expect(providers.find((p: any) => p.id === 'prov_ethereum_usdt').metadata.required_confirmations).toBe(12);
      const seen = await pay(org.test, { invoice_id: invoiceId, provider_id: 'prov_bitcoin_bitcoin', price: '0.0001', confirmations: 2 });
      expect(seen).toMatchObject({ status: 'PENDING', required_confirmations: 3 });
      // Live mode was not changed; the provider is still enabled. (Live mode lists no provider without a rail, so ask the CLI.)
      const liveList = JSON.parse((await cli('provider:list', '--org', org.id, '--mode', 'live')).stdout);
      expect(liveList.find((p: any) => p.id === 'prov_bitcoin_bitcoin')).toMatchObject({ enabled: true, required_confirmations: 2 });
      // Another organization keeps the catalog value.
      const other = await createOrg();
      const otherInvoice = await createInvoice(other.test);
      expect((await pay(other.test, { invoice_id: otherInvoice, provider_id: 'prov_bitcoin_bitcoin', price: '0.0001' })).required_confirmations).toBe(2);

      const back = await cli('provider:confirmations', '--org', org.id, '--provider', 'prov_bitcoin_bitcoin', '--count', 'default');
      expect(JSON.parse(back.stdout)).toMatchObject({ required_confirmations: 2, modes: ['test', 'live'] });
      const fresh = await pay(org.test, { invoice_id: await createInvoice(org.test), provider_id: 'prov_bitcoin_bitcoin', price: '0.0001' });
      expect(fresh.required_confirmations).toBe(2);
      // A payment keeps the requirement it was first seen with.
      expect(await payment(org.test, seen.id)).toMatchObject({ required_confirmations: 3 });
      const list = JSON.parse((await cli('provider:list', '--org', org.id, '--mode', 'test')).stdout);
      expect(list.find((p: any) => p.id === 'prov_bitcoin_bitcoin')).toMatchObject({ enabled: true, required_confirmations: 2 });
    });

    it('refuses a fiat provider, an unknown one, a bad count and an unknown organization', async () => {
      const org = await createOrg();
      const fiat = await cli('provider:confirmations', '--org', org.id, '--provider', 'prov_card_usd', '--count', '3');
      expect(fiat.code).toBe(1);
      expect(JSON.parse(fiat.stderr)).toMatchObject({ code: 'validation_failed', validator: { provider: expect.stringContaining('fiat') } });
      const unknown = await cli('provider:confirmations', '--org', org.id, '--provider', 'prov_moon_cheese', '--count', '3');
      expect(JSON.parse(unknown.stderr)).toMatchObject({ validator: { provider: expect.any(String) } });
      const zero = await cli('provider:confirmations', '--org', org.id, '--provider', 'prov_bitcoin_bitcoin', '--count', '0');
      expect(JSON.parse(zero.stderr)).toMatchObject({ validator: { count: expect.any(String) } });
      const word = await cli('provider:confirmations', '--org', org.id, '--provider', 'prov_bitcoin_bitcoin', '--count', 'many');
      expect(word.code).not.toBe(0);
      expect(word.stderr).toContain('--count');
      const noOrg = await cli('provider:confirmations', '--org', 'org_nope', '--provider', 'prov_bitcoin_bitcoin', '--count', '3');
      expect(JSON.parse(noOrg.stderr)).toMatchObject({ code: 'organization_not_found' });
    });
  });
});
