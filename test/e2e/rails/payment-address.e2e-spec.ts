import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { CLI } from '../../support/server';
import { createInvoice, D, pay, r30 } from '../payments/payments-helpers';
import { addressAt, freshAccount, HARDHAT_ACCOUNTS, writeChainsFile, XPUB_0 } from './rails-helpers';

const exec = promisify(execFile);
const TEST_USDT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

describe('POST /invoices/{id}/payment_address without CHAINS_FILE', () => {
  it('answers 400 rail_not_configured (and 404 for unknown invoices first)', async () => {
    const org = await createOrg();
    expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
    const invoiceId = await createInvoice(org.test, '10');
    expectError(await org.test.post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_ethereum_usdt' }), 400, {
      code: 'rail_not_configured',
      field: 'provider_id',
    });
    expectError(await org.test.post('/invoices/invoice_00000000-0000-7000-8000-000000000000/payment_address', { provider_id: 'prov_ethereum_usdt' }), 404, {
      code: 'invoice_not_found',
    });
  });
});

describe('POST /invoices/{id}/payment_address', () => {
  let service: IsolatedService;
  const cli = (...args: string[]) => exec(process.execPath, [CLI, ...args], { env: service.cliEnv });
  const payer = () => new Api(null, service.server.baseUrl);
  beforeAll(async () => {
    const chainsFile = writeChainsFile({
      live: { ethereum: { rpc_url: 'http://127.0.0.1:9/', chain_id: 1, confirmations: 12 } },
      test: {
        ethereum: { rpc_url: 'http://127.0.0.1:9/', chain_id: 31337, tokens: { usdt: TEST_USDT } },
        polygon: { rpc_url: 'http://127.0.0.1:9/', chain_id: 80002 },
      },
    });
    service = await startIsolatedService({ CHAINS_FILE: chainsFile });
  });
  afterAll(async () => {
    await service?.stop();
  });

  /** An organization with a test-mode wallet of its own account key (`at(i)` is its address i). */
  async function orgWithWallet() {
    const org = await service.createOrg();
    const { account, xpub } = freshAccount();
    expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub }), 201);
    return { ...org, xpub, at: (i: number) => addressAt(account, i) };
  }

  it('hands out the next index of the active wallet, the same address again for the same invoice and provider', async () => {
    // The Hardhat accounts' key: its addresses are the node's default accounts.
    const org = await service.createOrg();
    expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: XPUB_0 }), 201);
    const first = await createInvoice(org.test, '25.5');
    const second = await createInvoice(org.test, '10');
    const a = expectSuccess(await org.test.post(`/invoices/${first}/payment_address`, { provider_id: 'prov_ethereum_usdt' }));
    const providers = expectSuccess(await org.test.get(`/providers/${first}`)).providers;
    const usdt = providers.find((p: any) => p.id === 'prov_ethereum_usdt');
    const invoice = expectSuccess(await org.test.post(`/invoices/${first}`, {}));
    expect(a).toEqual({
      provider_id: 'prov_ethereum_usdt',
      network: 'ETHEREUM',
      currency: 'USDT',
      address: HARDHAT_ACCOUNTS[0],
      amount: usdt.price,
      decimals: 6,
      chain_id: 31337,
      contract_address: TEST_USDT,
      // Only Solana Pay payments carry a reference.
      reference: null,
      uri: `ethereum:${TEST_USDT}@31337/transfer?address=${HARDHAT_ACCOUNTS[0]}&uint256=${new D(usdt.price).mul(1e6).toFixed(0)}`,
      expires_at: invoice.expires_at,
    });
    expect(a.amount).toBe(r30('25.494902'));
    // Asked again (with a key or as a payer): the same address.
    expect(expectSuccess(await org.test.post(`/invoices/${first}/payment_address`, { provider_id: 'prov_ethereum_usdt' }))).toEqual(a);
    expect(expectSuccess(await payer().post(`/invoices/${first}/payment_address`, { provider_id: 'prov_ethereum_usdt' }))).toEqual(a);
    // Another provider of the same invoice, then another invoice: the next indexes.
    const ether = expectSuccess(await org.test.post(`/invoices/${first}/payment_address`, { provider_id: 'prov_ethereum_ethereum' }));
    const etherPrice = providers.find((p: any) => p.id === 'prov_ethereum_ethereum').price;
    expect(ether).toMatchObject({ address: HARDHAT_ACCOUNTS[1], currency: 'ETHEREUM', decimals: 18, contract_address: null, amount: etherPrice });
    expect(ether.uri).toBe(`ethereum:${HARDHAT_ACCOUNTS[1]}@31337?value=${new D(etherPrice).mul('1e18').toFixed(0)}`);
    const other = expectSuccess(await payer().post(`/invoices/${second}/payment_address`, { provider_id: 'prov_ethereum_usdt' }));
    expect(other.address).toBe(HARDHAT_ACCOUNTS[2]);
    const polygon = expectSuccess(await org.test.post(`/invoices/${second}/payment_address`, { provider_id: 'prov_polygon_polygon' }));
    expect(polygon).toMatchObject({ address: HARDHAT_ACCOUNTS[3], network: 'POLYGON', chain_id: 80002, currency: 'POLYGON' });
    const wallets = expectSuccess(await org.test.get('/wallets')).items;
    expect(wallets[0].addresses_issued).toBe(4);
  });

  it('asks only for what is still due once payments are seen', async () => {
    const org = await orgWithWallet();
    const invoiceId = await createInvoice(org.test, '100');
    await pay(org.test, { invoice_id: invoiceId, provider_id: 'prov_ethereum_usdt', price: '40', status: 'COMPLETED' });
    const left = expectSuccess(await org.test.post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_ethereum_usdt' }));
    // 100 USD at USDT 1.0002 is 99.980004 USDT; 40 USDT paid is worth 40.008 USD; 59.992 USD left is 59.980004 USDT (rounded up).
    expect(left.amount).toBe(r30(new D('59.992').div('1.0002').toDecimalPlaces(6, D.ROUND_UP)));
    expect(left.uri).toMatch(/uint256=59980004$/);
  });

  it('gives every invoice its own address under concurrent calls, and one address per invoice and provider', async () => {
    const org = await orgWithWallet();
    const invoiceId = await createInvoice(org.test, '5');
    const same = await Promise.all(
      Array.from({ length: 12 }, () => payer().post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_ethereum_usdt' })),
    );
    const sameAddresses = new Set(same.map((res) => expectSuccess(res).address));
    expect(sameAddresses.size).toBe(1);
    const invoices = await Promise.all(Array.from({ length: 12 }, () => createInvoice(org.test, '5')));
    const many = await Promise.all(invoices.map((id) => org.test.post(`/invoices/${id}/payment_address`, { provider_id: 'prov_ethereum_usdt' })));
    const addresses = many.map((res) => expectSuccess(res).address);
    expect(new Set([...addresses, ...sameAddresses]).size).toBe(13);
    expect(expectSuccess(await org.test.get('/wallets')).items[0].addresses_issued).toBe(13);
  });

  it('takes new addresses from a replacing wallet; registering a key again continues after its highest index', async () => {
    const org = await orgWithWallet();
    const replacement = freshAccount();
    const one = await createInvoice(org.test, '5');
    const two = await createInvoice(org.test, '5');
    const three = await createInvoice(org.test, '5');
    const first = expectSuccess(await org.test.post(`/invoices/${one}/payment_address`, { provider_id: 'prov_ethereum_usdt' }));
    expect(first.address).toBe(org.at(0));
    const replacing = expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: replacement.xpub }), 201);
    const second = expectSuccess(await org.test.post(`/invoices/${two}/payment_address`, { provider_id: 'prov_ethereum_usdt' }));
    expect(second.address).toBe(replacing.first_address);
    // The first invoice keeps its address.
    expect(expectSuccess(await org.test.post(`/invoices/${one}/payment_address`, { provider_id: 'prov_ethereum_usdt' })).address).toBe(first.address);
    // The first key again: index 0 already served an invoice, so the next one is index 1.
    const again = expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: org.xpub }), 201);
    expect(again.addresses_issued).toBe(1);
    expect(expectSuccess(await org.test.post(`/invoices/${three}/payment_address`, { provider_id: 'prov_ethereum_usdt' })).address).toBe(org.at(1));
    // The same key in the organization's other mode also goes on after it; another organization may not register it.
    expect(expectSuccess(await org.live.post('/wallets', { chain_family: 'evm', xpub: org.xpub }), 201).addresses_issued).toBe(2);
    const other = await service.createOrg();
    expectError(await other.test.post('/wallets', { chain_family: 'evm', xpub: org.xpub }), 400, { code: 'invalid_xpub', field: 'xpub' });
  });

  it('uses the mainnet contract in live mode', async () => {
    const org = await service.createOrg();
    const { account, xpub } = freshAccount();
    expectSuccess(await org.live.post('/wallets', { chain_family: 'evm', xpub }), 201);
    const invoiceId = await createInvoice(org.live, '25.5');
    const got = expectSuccess(await org.live.post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_ethereum_usdc' }));
    const usdc = expectSuccess(await org.live.get(`/providers/${invoiceId}`)).providers.find((p: any) => p.id === 'prov_ethereum_usdc');
    expect(got).toMatchObject({ chain_id: 1, contract_address: usdc.metadata.contract_address, address: addressAt(account, 0), amount: usdc.price });
    expect(got.uri).toBe(
      `ethereum:${usdc.metadata.contract_address}@1/transfer?address=${addressAt(account, 0)}&uint256=${new D(usdc.price).mul(1e6).toFixed(0)}`,
    );
    // Polygon is configured for test mode only.
    expectError(await org.live.post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_polygon_usdc_native' }), 400, {
      code: 'rail_not_configured',
      field: 'provider_id',
    });
  });

  it('answers 400 with a code for every reason it cannot hand out an address', async () => {
    const bare = await service.createOrg();
    const bareInvoice = await createInvoice(bare.test, '5');
    expectError(await bare.test.post(`/invoices/${bareInvoice}/payment_address`, { provider_id: 'prov_ethereum_usdt' }), 400, {
      code: 'no_receiving_wallet',
      field: 'provider_id',
    });

    const org = await orgWithWallet();
    const invoiceId = await createInvoice(org.test, '5');
    const post = (body: unknown) => org.test.post(`/invoices/${invoiceId}/payment_address`, body);
    expectError(await post({ provider_id: 'prov_ripple_ripple' }), 400, { code: 'unsupported_provider', field: 'provider_id' });
    // Bitcoin and Tron have rails (utxo, tron), but this service's CHAINS_FILE does not configure them.
    expectError(await post({ provider_id: 'prov_bitcoin_bitcoin' }), 400, { code: 'rail_not_configured', field: 'provider_id' });
    expectError(await post({ provider_id: 'prov_tron_tron' }), 400, { code: 'rail_not_configured', field: 'provider_id' });
    expectError(await post({ provider_id: 'prov_card_usd' }), 400, { code: 'unsupported_provider', field: 'provider_id' });
    expectError(await post({ provider_id: 'prov_nowhere_nothing' }), 400, { code: 'unknown_provider', field: 'provider_id' });
    // USDC has no contract in the test section: not configured there.
    expectError(await post({ provider_id: 'prov_ethereum_usdc' }), 400, { code: 'rail_not_configured', field: 'provider_id' });
    expectError(await post({ provider_id: 'prov_bsc_binance_coin' }), 400, { code: 'rail_not_configured', field: 'provider_id' });
    expectError(await post({}), 400, { field: 'provider_id' });
    expectError(await post({ provider_id: 7 }), 400, { field: 'provider_id' });
    expectError(await post({ provider_id: '' }), 400, { field: 'provider_id' });

    await cli('provider:disable', '--org', org.id, '--provider', 'prov_ethereum_usdt', '--mode', 'test');
    expectError(await post({ provider_id: 'prov_ethereum_usdt' }), 400, { code: 'provider_disabled', field: 'provider_id' });

    const voided = await createInvoice(org.test, '5');
    expectSuccess(await org.test.put(`/invoices/${voided}`, { status: 'VOIDED' }));
    expectError(await org.test.post(`/invoices/${voided}/payment_address`, { provider_id: 'prov_ethereum_ethereum' }), 400, {
      code: 'invoice_final',
      field: 'id',
    });
    const paid = await createInvoice(org.test, '5');
    await pay(org.test, { invoice_id: paid, provider_id: 'prov_ethereum_ethereum', price: '1', status: 'COMPLETED' });
    expectError(await org.test.post(`/invoices/${paid}/payment_address`, { provider_id: 'prov_ethereum_ethereum' }), 400, {
      code: 'invoice_final',
      field: 'id',
    });
    // None of the refusals took an index.
    expect(expectSuccess(await org.test.get('/wallets')).items[0].addresses_issued).toBe(0);
  });

  it("answers 401 for a bad key and 404 for another organization's or the other mode's invoice", async () => {
    const a = await orgWithWallet();
    const b = await orgWithWallet();
    expectSuccess(await a.live.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
    const invoiceId = await createInvoice(a.test, '5');
    const body = { provider_id: 'prov_ethereum_usdt' };
    expectError(await new Api('sk_test_doesnotexistdoesnotexist0001', service.server.baseUrl).post(`/invoices/${invoiceId}/payment_address`, body), 401);
    expectError(await b.test.post(`/invoices/${invoiceId}/payment_address`, body), 404, { code: 'invoice_not_found' });
    expectError(await a.live.post(`/invoices/${invoiceId}/payment_address`, body), 404, { code: 'invoice_not_found' });
    expectError(await payer().post('/invoices/whatever/payment_address', body), 404, { code: 'invoice_not_found' });
    expect(expectSuccess(await b.test.get('/wallets')).items[0].addresses_issued).toBe(0);
  });
});
