import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { anonymous, Api, baseUrl } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { CLI } from '../../support/server';
import { createInvoice, D, pay, r30 } from '../payments/payments-helpers';
import { databaseOf } from '../timing/timing-helpers';

const exec = promisify(execFile);

describe('GET /providers/{invoice_id}', () => {
  it('lists every enabled provider in test mode with the interface shape, real token facts and the amount to send', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '25.5', 'USD');
    const data = expectSuccess(await test.get(`/providers/${invoiceId}`));
    expect(data.exchange_rate_timestamp).toBe('2026-11-20 00:00:00');
    const ids = data.providers.map((p: any) => p.id);
    expect(ids).toHaveLength(19);
    expect(ids).toEqual(expect.arrayContaining(['prov_bitcoin_bitcoin', 'prov_ethereum_usdt', 'prov_tron_usdt', 'prov_solana_usdc', 'prov_card_usd']));
    const usdt = data.providers.find((p: any) => p.id === 'prov_ethereum_usdt');
    expect(usdt).toEqual({
      id: 'prov_ethereum_usdt',
      provider: 'CRYPTO',
      network: 'ETHEREUM',
      gateway: 'USDT',
      type: 'token',
      filters: ['CRYPTO', 'TOKEN', 'STABLECOIN', 'ETHEREUM'],
      metadata: {
        decimals: 6,
        contract_address: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
        required_confirmations: 12,
        image_url: `${baseUrl()}/assets/providers/usdt.svg`,
        image_url_network: `${baseUrl()}/assets/providers/ethereum.svg`,
      },
      name: 'Tether USD (Ethereum, ERC-20)',
      currency: 'USDT',
      price: r30('25.494902'),
      // No CHAINS_FILE on the shared service: no rail, so the test-mode checkout pays it with a simulated payment.
      has_rail: false,
    });
    const tron = data.providers.find((p: any) => p.id === 'prov_tron_usdt');
    expect(tron.metadata.contract_address).toBe('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
    const sol = data.providers.find((p: any) => p.id === 'prov_solana_usdc');
    expect(sol.metadata).toMatchObject({ decimals: 6, contract_address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' });
    const btc = data.providers.find((p: any) => p.id === 'prov_bitcoin_bitcoin');
    expect(btc).toMatchObject({
      provider: 'CRYPTO',
      type: 'native',
      currency: 'BITCOIN',
      price: r30('0.00027946'),
      metadata: { decimals: 8, contract_address: '' },
    });
    const card = data.providers.find((p: any) => p.id === 'prov_card_gbp');
    expect(card).toMatchObject({ provider: 'FIAT', type: 'card', currency: 'GBP', price: r30(new D('25.5').div('1.3112').toDecimalPlaces(2, D.ROUND_UP)) });
    // The image urls are served by the service itself.
    const image = await fetch(usdt.metadata.image_url);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
  });

  it('answers a payer without a key, and 404 for unknown ids', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test);
    expect(expectSuccess(await anonymous().get(`/providers/${invoiceId}`)).providers).toHaveLength(19);
    expectError(await anonymous().get('/providers/invoice_00000000-0000-7000-8000-000000000000'), 404, { code: 'invoice_not_found' });
    expectError(await test.get('/providers/whatever'), 404, { code: 'invoice_not_found' });
  });

  it("answers 401 for a bad key and 404 for another organization's or the other mode's invoice", async () => {
    const a = await createOrg();
    const b = await createOrg();
    const invoiceId = await createInvoice(a.test);
    expectError(await new Api('sk_test_doesnotexistdoesnotexist0001').get(`/providers/${invoiceId}`), 401);
    expectError(await new Api('nonsense').get(`/providers/${invoiceId}`), 401);
    expectError(await b.test.get(`/providers/${invoiceId}`), 404, { code: 'invoice_not_found' });
    expectError(await a.live.get(`/providers/${invoiceId}`), 404, { code: 'invoice_not_found' });
  });
});

describe('provider:disable / provider:enable (CLI)', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService();
  });
  afterAll(async () => {
    await service?.stop();
  });
  const cli = (...args: string[]) => exec(process.execPath, [CLI, ...args], { env: service.cliEnv });

  it('turns a provider off and on for one organization (both modes by default, or one)', async () => {
    const org = await service.createOrg('Toggles');
    const other = await service.createOrg('Bystander');
    const invoiceId = await createInvoice(org.test);
    const otherInvoice = await createInvoice(other.test);

    const before = await pay(org.test, { invoice_id: invoiceId, provider_id: 'prov_ethereum_usdt', price: '1', idempotency_key: 'eth-1' });
    const off = JSON.parse((await cli('provider:disable', '--org', org.id, '--provider', 'prov_ethereum_usdt')).stdout);
    expect(off).toEqual({ organization_id: org.id, provider_id: 'prov_ethereum_usdt', enabled: false, modes: ['test', 'live'] });
    const listed = expectSuccess(await org.test.get(`/providers/${invoiceId}`)).providers.map((p: any) => p.id);
    expect(listed).toHaveLength(18);
    expect(listed).not.toContain('prov_ethereum_usdt');
    expect(expectSuccess(await other.test.get(`/providers/${otherInvoice}`)).providers).toHaveLength(19);

    // A disabled provider cannot take new payments, but a payment it already has can still complete.
    expectError(await org.test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_ethereum_usdt', price: '1' }), 400, {
      field: 'provider_id',
    });
    expect(
      await pay(org.test, { invoice_id: invoiceId, provider_id: 'prov_ethereum_usdt', price: '1', idempotency_key: 'eth-1', status: 'COMPLETED' }),
    ).toMatchObject({ id: before.id, status: 'COMPLETED', created: false });
    const paid = await pay(org.test, { invoice_id: invoiceId, provider_id: 'prov_tron_usdt', price: '1' });
    expect(expectSuccess(await org.test.post(`/payments/${paid.id}`, { expand: ['provider'] })).provider.enabled).toBe(true);

    const list = JSON.parse((await cli('provider:list', '--org', org.id, '--mode', 'live')).stdout);
    expect(list.find((p: any) => p.id === 'prov_ethereum_usdt').enabled).toBe(false);

    const on = JSON.parse((await cli('provider:enable', '--org', org.id, '--provider', 'prov_ethereum_usdt', '--mode', 'test')).stdout);
    expect(on.modes).toEqual(['test']);
    expect(expectSuccess(await org.test.get(`/providers/${invoiceId}`)).providers).toHaveLength(19);
    const live = JSON.parse((await cli('provider:list', '--org', org.id, '--mode', 'live')).stdout);
    expect(live.find((p: any) => p.id === 'prov_ethereum_usdt').enabled).toBe(false);
    expect(
      expectSuccess(await org.test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_ethereum_usdt', price: '1' }), 201).status,
    ).toBe('PENDING');
  });

  it('applies a setting changed without a notification (operator SQL) within seconds: the payment path caches settings', async () => {
    const org = await service.createOrg('Quiet change');
    const invoiceId = await createInvoice(org.test);
    const report = () => org.test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_tron_usdt', price: '0.01' });
    // Reported twice: the first stores the setting (none: enabled) in the cache, the second is answered from it.
    expectSuccess(await report(), 201);
    expectSuccess(await report(), 201);
    const databaseUrl = databaseOf(service);
    await withClient(databaseUrl, (c) =>
      c.query(
        `INSERT INTO provider_settings (organization_id, mode, provider_id, enabled, created_at, updated_at)
         VALUES ($1, 'test', 'prov_tron_usdt', false, now(), now())`,
        [org.id],
      ),
    );
    // No NOTIFY was sent: the revision the trigger moved empties the cache at the next check (every 2 s).
    const started = Date.now();
    let status = 201;
    while (status === 201 && Date.now() - started < 8_000) {
      status = (await report()).status;
      if (status === 201) await new Promise((r) => setTimeout(r, 100));
    }
    expectError(await report(), 400, { field: 'provider_id' });
    expect(Date.now() - started).toBeLessThan(8_000);
    // And back through the CLI: its notification reaches the service before the command answers.
    await cli('provider:enable', '--org', org.id, '--provider', 'prov_tron_usdt', '--mode', 'test');
    expectSuccess(await report(), 201);
  });

  it('refuses an unknown provider, an unknown organization and a bad mode', async () => {
    const org = await service.createOrg('Errors');
    const unknown = await cli('provider:disable', '--org', org.id, '--provider', 'prov_moon_cheese').catch((e) => e);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ code: 'validation_failed', validator: { provider: expect.any(String) } });
    const noOrg = await cli('provider:disable', '--org', 'org_nope', '--provider', 'prov_ethereum_usdt').catch((e) => e);
    expect(JSON.parse(noOrg.stderr)).toMatchObject({ code: 'organization_not_found' });
    const badMode = await cli('provider:enable', '--org', org.id, '--provider', 'prov_ethereum_usdt', '--mode', 'prod').catch((e) => e);
    expect(badMode.code).toBe(2);
    const missing = await cli('provider:enable', '--org', org.id).catch((e) => e);
    expect(missing.code).toBe(2);
  });
});
