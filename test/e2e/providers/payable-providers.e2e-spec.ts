import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { HDKey } from '@scure/bip32';
import { anonymous, Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { CLI } from '../../support/server';
import { createInvoice } from '../payments/payments-helpers';
import { freshAccount, writeChainsFile } from '../rails/rails-helpers';

const exec = promisify(execFile);
const TEST_USDT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
/** A new Litecoin mainnet account key (Ltub), as a merchant's wallet exports it. */
const freshLtub = () => HDKey.fromMasterSeed(randomBytes(32), { public: 0x019da462, private: 0x019d9cfe }).derive("m/44'/2'/0'").publicExtendedKey;

interface Listed {
  id: string;
  has_rail: boolean;
}

const listed = async (api: Api, invoiceId: string): Promise<Listed[]> =>
  expectSuccess<{ providers: Listed[] }>(await api.get(`/providers/${invoiceId}`)).providers;
const ids = (providers: Listed[]) => providers.map((p) => p.id).sort();

/** Decisions §17: live mode offers only what can take money now; test mode offers every enabled provider. */
describe('GET /providers/{invoice_id}: only payable methods in live mode', () => {
  it('lists nothing in live mode without CHAINS_FILE, even with a receiving wallet; test mode still lists every enabled provider, none with a rail', async () => {
    const org = await createOrg();
    expectSuccess(await org.live.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
    const live = await createInvoice(org.live, '10');
    expect(await listed(org.live, live)).toEqual([]);
    expect(await listed(anonymous(), live)).toEqual([]);

    const test = await createInvoice(org.test, '10');
    const all = await listed(anonymous(), test);
    expect(all).toHaveLength(19);
    expect(all.every((p) => p.has_rail === false)).toBe(true);
  });

  describe('with a CHAINS_FILE', () => {
    let service: IsolatedService;
    const cli = (...args: string[]) => exec(process.execPath, [CLI, ...args], { env: service.cliEnv });
    const payer = () => new Api(null, service.server.baseUrl);

    beforeAll(async () => {
      // The RPC address answers nothing: listing needs no chain, only the configuration and the wallets.
      const chainsFile = writeChainsFile({
        live: { ethereum: { rpc_url: 'http://127.0.0.1:9/', chain_id: 1 }, litecoin: { rpc_url: 'http://127.0.0.1:9/', chain: 'main' } },
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

    it('lists nothing in live mode until the organization has a receiving wallet, then exactly the configured networks and tokens', async () => {
      const org = await service.createOrg();
      const invoiceId = await createInvoice(org.live, '25.5');
      expect(await listed(org.live, invoiceId)).toEqual([]);
      expect(await listed(payer(), invoiceId)).toEqual([]);

      // A test-mode wallet does not make live mode payable.
      expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
      expect(await listed(org.live, invoiceId)).toEqual([]);

      const wallet = expectSuccess<{ id: string }>(await org.live.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
      // Ethereum's coin and its two tokens (live mode uses the mainnet contracts); Polygon is configured for test mode only;
      // Bitcoin, Tron, Solana, the other chains and the cards have no rail.
      const providers = await listed(payer(), invoiceId);
      expect(ids(providers)).toEqual(['prov_ethereum_ethereum', 'prov_ethereum_usdc', 'prov_ethereum_usdt']);
      expect(providers.every((p) => p.has_rail)).toBe(true);
      expect(await listed(org.live, invoiceId)).toEqual(providers);
      // Each one listed gives an address.
      for (const p of providers) {
        expect(expectSuccess<{ provider_id: string }>(await payer().post(`/invoices/${invoiceId}/payment_address`, { provider_id: p.id })).provider_id).toBe(
          p.id,
        );
      }

      // A provider the organization turned off is not listed, rail or not.
      await cli('provider:disable', '--org', org.id, '--provider', 'prov_ethereum_usdc', '--mode', 'live');
      expect(ids(await listed(payer(), invoiceId))).toEqual(['prov_ethereum_ethereum', 'prov_ethereum_usdt']);

      // Without a wallet again, nothing can take money.
      expectSuccess(await org.live.delete(`/wallets/${wallet.id}`));
      expect(await listed(payer(), invoiceId)).toEqual([]);

      // A UTXO chain takes money once the organization has a live wallet for that very network.
      expectSuccess(await org.live.post('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: freshLtub() }), 201);
      const utxo = await listed(payer(), invoiceId);
      expect(ids(utxo)).toEqual(['prov_litecoin_litecoin']);
      const address = expectSuccess<{ address: string; uri: string }>(
        await payer().post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_litecoin_litecoin' }),
      );
      // An Ltub key is a legacy (P2PKH) account: its addresses start with L.
      expect(address.address).toMatch(/^L[1-9A-HJ-NP-Za-km-z]{25,34}$/);
      expect(address.uri).toMatch(new RegExp(`^litecoin:${address.address}\\?amount=`));
      // Bitcoin, Dogecoin and Bitcoin Cash have no live section: not listed, even so.
      expectError(await payer().post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_bitcoin_bitcoin' }), 400, { field: 'provider_id' });

      // Another organization of the same service has no wallet: nothing.
      const other = await service.createOrg();
      expect(await listed(other.live, await createInvoice(other.live, '5'))).toEqual([]);
    });

    it('lists every enabled provider in test mode, with a rail where the test section configures one (a token only with its contract)', async () => {
      const org = await service.createOrg();
      const invoiceId = await createInvoice(org.test, '10');
      const before = await listed(payer(), invoiceId);
      expect(before).toHaveLength(19);
      // Configured, but no wallet yet: no address to give.
      expect(before.filter((p) => p.has_rail)).toEqual([]);

      expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
      const after = await listed(payer(), invoiceId);
      expect(after).toHaveLength(19);
      // USDC has no contract in the test section: listed (test mode), without a rail.
      expect(ids(after.filter((p) => p.has_rail))).toEqual(['prov_ethereum_ethereum', 'prov_ethereum_usdt', 'prov_polygon_polygon']);
      expect(after.find((p) => p.id === 'prov_ethereum_usdc')?.has_rail).toBe(false);
      expect(after.find((p) => p.id === 'prov_card_usd')?.has_rail).toBe(false);
      expect(after.find((p) => p.id === 'prov_bitcoin_bitcoin')?.has_rail).toBe(false);
    });
  });
});
