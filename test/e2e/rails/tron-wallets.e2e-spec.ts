import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { createInvoice } from '../payments/payments-helpers';
import { freshAccount, writeChainsFile } from './rails-helpers';

const TRON_USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
/** A fresh Tron account key (m/44'/195'/0' of a random seed), as a merchant's wallet exports it. */
const freshTron = () => HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/195'/0'");

interface Listed {
  id: string;
  has_rail: boolean;
}

describe('Tron wallets and the providers they make payable (decisions §15, §17, §23)', () => {
  let service: IsolatedService;
  const payer = () => new Api(null, service.server.baseUrl);
  const listed = async (invoiceId: string): Promise<string[]> =>
    expectSuccess<{ providers: Listed[] }>(await payer().get(`/providers/${invoiceId}`))
      .providers.map((p) => p.id)
      .sort();

  beforeAll(async () => {
    // The RPC address answers nothing: wallets and listing need no node, only the configuration.
    const chainsFile = writeChainsFile({ live: { tron: { rpc_url: 'http://127.0.0.1:9/jsonrpc', http_api_url: 'http://127.0.0.1:9' } } });
    service = await startIsolatedService({ CHAINS_FILE: chainsFile });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
  });

  it('registers a Tron account key: first_address is its T address at m/.../0/0; GET and the list show it without the key', async () => {
    const org = await service.createOrg();
    const key = freshTron();
    const wallet = expectSuccess(await org.test.post('/wallets', { chain_family: 'tron', xpub: key.publicExtendedKey }), 201);
    expect(wallet).toMatchObject({ chain_family: 'tron', network: null });
    expect(wallet.first_address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(JSON.stringify(wallet)).not.toContain(key.publicExtendedKey);
    expect(expectSuccess(await org.test.get(`/wallets/${wallet.id}`))).toMatchObject({ id: wallet.id, first_address: wallet.first_address });
    // One key, two families: the EVM wallet of the same xpub is another wallet with its own (0x) addresses.
    const evm = expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: key.publicExtendedKey }), 201);
    expect(evm.first_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it.each([
    ['a private key (xprv)', () => ({ chain_family: 'tron', xpub: freshTron().privateExtendedKey })],
    ['a hex private key', () => ({ chain_family: 'tron', xpub: randomBytes(32).toString('hex') })],
    ['a recovery phrase', () => ({ chain_family: 'tron', xpub: 'abandon '.repeat(11) + 'about' })],
    ['an address-level key', () => ({ chain_family: 'tron', xpub: freshTron().derive('m/0/0').publicExtendedKey })],
    ['a network (one Tron key serves the family)', () => ({ chain_family: 'tron', network: 'litecoin', xpub: freshTron().publicExtendedKey })],
  ])('refuses %s with 400 naming the field, storing nothing', async (_, body) => {
    const org = await service.createOrg();
    const sent = body();
    const res = await org.test.post('/wallets', sent);
    expectError(res, 400, { field: 'network' in sent ? 'network' : 'xpub' });
    expect(res.text).not.toContain(sent.xpub);
    expect(expectSuccess(await org.test.get('/wallets')).items).toEqual([]);
  });

  it('refuses a key another organization registered, without saying whose', async () => {
    const key = freshTron().publicExtendedKey;
    const a = await service.createOrg('Tron shop A');
    const b = await service.createOrg('Tron shop B');
    expectSuccess(await a.test.post('/wallets', { chain_family: 'tron', xpub: key }), 201);
    const res = await b.test.post('/wallets', { chain_family: 'tron', xpub: key });
    expectError(res, 400, { field: 'xpub' });
    expect(res.text).not.toContain(a.id);
    expect(res.text).not.toContain('Tron shop A');
  });

  it('lists TRX and USDT on Tron live only once the organization has a live Tron wallet; each gives a T address with no URI', async () => {
    const org = await service.createOrg();
    const invoiceId = await createInvoice(org.live, '25.5');
    expect(await listed(invoiceId)).toEqual([]);
    // An EVM wallet does not make Tron payable (no EVM network is configured live here either).
    expectSuccess(await org.live.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
    expect(await listed(invoiceId)).toEqual([]);
    const wallet = expectSuccess(await org.live.post('/wallets', { chain_family: 'tron', xpub: freshTron().publicExtendedKey }), 201);
    expect(await listed(invoiceId)).toEqual(['prov_tron_tron', 'prov_tron_usdt']);
    const usdt = expectSuccess(await payer().post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_tron_usdt' }));
    expect(usdt).toMatchObject({
      provider_id: 'prov_tron_usdt',
      address: wallet.first_address,
      uri: null,
      decimals: 6,
      contract_address: TRON_USDT,
      chain_id: 728126428,
    });
    const trx = expectSuccess(await payer().post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_tron_tron' }));
    expect(trx).toMatchObject({ provider_id: 'prov_tron_tron', currency: 'TRON', uri: null, contract_address: null });
    expect(trx.address).not.toBe(usdt.address);
    expectSuccess(await org.live.delete(`/wallets/${wallet.id}`));
    expect(await listed(invoiceId)).toEqual([]);
  });
});

describe('Tron without a tron section in CHAINS_FILE', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({ CHAINS_FILE: writeChainsFile({ live: { ethereum: { rpc_url: 'http://127.0.0.1:9/', chain_id: 1 } } }) });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
  });

  it('never lists Tron live, even with a live Tron wallet', async () => {
    const org = await service.createOrg();
    expectSuccess(await org.live.post('/wallets', { chain_family: 'tron', xpub: freshTron().publicExtendedKey }), 201);
    const invoiceId = await createInvoice(org.live, '10');
    const providers = expectSuccess<{ providers: Listed[] }>(await new Api(null, service.server.baseUrl).get(`/providers/${invoiceId}`)).providers;
    expect(providers.map((p) => p.id)).toEqual([]);
    expectError(await org.live.post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_tron_usdt' }), 400, { field: 'provider_id' });
  });
});

describe('Tron without http_api_url: USDT only, on both sides (decisions §17, §19, §23)', () => {
  let service: IsolatedService;
  const payer = () => new Api(null, service.server.baseUrl);
  beforeAll(async () => {
    // No node answers; the test side also configures Ethereum without its USDT token.
    const chainsFile = writeChainsFile({
      live: { tron: { rpc_url: 'http://127.0.0.1:9/jsonrpc' } },
      test: {
        tron: { rpc_url: 'http://127.0.0.1:9/jsonrpc', chain_id: 3448148188, tokens: { usdt: TRON_USDT } },
        ethereum: { rpc_url: 'http://127.0.0.1:9/', chain_id: 31337 },
      },
    });
    service = await startIsolatedService({ CHAINS_FILE: chainsFile });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
  });

  it('lists and gives an address for USDT but refuses TRX, whose transfers the watcher could not see', async () => {
    const org = await service.createOrg();
    const wallet = expectSuccess(await org.live.post('/wallets', { chain_family: 'tron', xpub: freshTron().publicExtendedKey }), 201);
    const invoiceId = await createInvoice(org.live, '10');
    const listed = expectSuccess<{ providers: Listed[] }>(await payer().get(`/providers/${invoiceId}`)).providers.map((p) => p.id);
    expect(listed).toEqual(['prov_tron_usdt']);
    expect(expectSuccess(await payer().post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_tron_usdt' })).address).toBe(wallet.first_address);
    const trx = expectError(await payer().post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_tron_tron' }), 400, {
      field: 'provider_id',
      code: 'rail_not_configured',
    });
    expect(trx.validator.provider_id).toContain('tron');
  });

  it("offers a refund's payer no asset a test rail's network leaves out (TRX here, Ethereum's USDT), and the railless others as before", async () => {
    const org = await service.createOrg();
    const invoiceId = await createInvoice(org.test, '100');
    expectSuccess(
      await org.test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '100', status: 'COMPLETED' }),
      201,
    );
    const refund = expectSuccess(await org.test.post(`/invoices/${invoiceId}/refunds`, { amount: '10' }), 201);
    const token = new URL(refund.claim_url, 'http://x').pathname.split('/').pop();
    const methods = (expectSuccess(await payer().get(`/refund_claims/${token}/state`)).methods as Array<{ provider_id: string }>).map((m) => m.provider_id);
    expect(methods).toEqual(expect.arrayContaining(['prov_tron_usdt', 'prov_ethereum_ethereum', 'prov_bitcoin_bitcoin']));
    expect(methods).not.toContain('prov_tron_tron');
    expect(methods).not.toContain('prov_ethereum_usdt');
    expectError(
      await payer().post(`/refund_claims/${token}`, { provider_id: 'prov_ethereum_usdt', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }),
      400,
      {
        field: 'provider_id',
      },
    );
  });
});
