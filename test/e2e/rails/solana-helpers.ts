import { type Address, generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { SolanaRpcServer, type SolanaBedOptions } from '../../chain/solana-rpc-server';
import { createMint, fundedWallet, giveTokens } from '../../chain/solana-wallet';
import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { type IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { ADMIN_TOKEN, type RunningServer } from '../../support/server';
import { units } from './chain-helpers';
import { writeChainsFile } from './rails-helpers';

/** Settings of a service whose Solana watcher the tests follow closely: quick chain-lock retries and webhook dispatch. */
export const SOLANA_WATCHER_ENV = { CHAIN_LOCK_RETRY_MS: '300', WEBHOOK_DISPATCH_INTERVAL_MS: '100' };

/** The litesvm-backed node, its USDC and USDT mints, and a CHAINS_FILE whose test section names it. */
export interface SolanaSetup {
  bed: SolanaRpcServer;
  usdc: Address;
  usdt: Address;
  chainsFile: string;
}

export function solanaChainsFile(setup: Omit<SolanaSetup, 'chainsFile'>, extra: Record<string, unknown> = {}): string {
  return writeChainsFile({
    test: {
      solana: {
        rpc_url: setup.bed.url,
        genesis_hash: setup.bed.genesisHash,
        tokens: { usdc: setup.usdc, usdt: setup.usdt },
        poll_interval_ms: 100,
        ...extra,
      },
    },
  });
}

export async function startSolana(options: Partial<SolanaBedOptions> = {}, extra: Record<string, unknown> = {}): Promise<SolanaSetup> {
  const bed = new SolanaRpcServer(options);
  await bed.start();
  const usdc = await createMint(bed, 6);
  const usdt = await createMint(bed, 6);
  return { bed, usdc, usdt, chainsFile: solanaChainsFile({ bed, usdc, usdt }, extra) };
}

/** An organization with a test-mode Solana wallet of a fresh key pair (`signer`: the merchant's wallet app, to send refunds). */
export async function solanaMerchant(service: IsolatedService): Promise<{ id: string; test: Api; live: Api; wallet: Address; signer: KeyPairSigner }> {
  const org = await service.createOrg();
  const signer = await generateKeyPairSigner();
  const wallet = signer.address;
  const view = expectSuccess(await org.test.post('/wallets', { chain_family: 'solana', address: wallet }), 201);
  expect(view).toMatchObject({ chain_family: 'solana', network: null, first_address: wallet, active: true });
  return { id: org.id, test: org.test, live: org.live, wallet, signer };
}

/** The litesvm-backed node and a service on its own database whose CHAINS_FILE names it; `stop` stops both. */
export interface SolanaService {
  setup: SolanaSetup;
  service: IsolatedService;
  stop: () => Promise<void>;
}

/** Starts the node (bed options) and a service with `env` beside its CHAINS_FILE; the node is stopped again if the service does not start. */
export async function startSolanaService(options: Partial<SolanaBedOptions> = {}, env: Record<string, string> = {}): Promise<SolanaService> {
  const setup = await startSolana(options);
  try {
    const service = await startIsolatedService({ CHAINS_FILE: setup.chainsFile, ...env });
    const stop = async () => {
      await service.stop();
      await setup.bed.stop();
    };
    return { setup, service, stop };
  } catch (e) {
    await setup.bed.stop();
    throw e;
  }
}

/** A payer's wallet holding 100 SOL and, with `tokens`, that many whole units of the mint (6 decimals). */
export async function solanaPayer(bed: SolanaRpcServer, tokens?: { mint: Address; amount: string }): Promise<KeyPairSigner> {
  const payer = await fundedWallet(bed);
  if (tokens) await giveTokens(bed, payer.address, tokens.mint, units(tokens.amount, 6));
  return payer;
}

/** A server started by the test itself (across a restart) in the shape solanaMerchant takes: organizations made through the admin API. */
export function asService(server: RunningServer): IsolatedService {
  const createOrg = async () => {
    const res = await new Api(null, server.baseUrl).post('/admin/organizations', { name: 'Solana shop' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
    const { organization_id, test_key, live_key } = res.body.data;
    return { id: organization_id as string, test: new Api(test_key, server.baseUrl), live: new Api(live_key, server.baseUrl) };
  };
  return { server, createOrg } as unknown as IsolatedService;
}

/** The test-mode Solana watcher's stored slot cursor in the database at `databaseUrl` (undefined before its first pass). */
export async function solanaCursor(databaseUrl: string): Promise<string | undefined> {
  const found = await withClient(databaseUrl, (c) => c.query(`SELECT block_number::text AS n FROM chain_cursors WHERE mode = 'test' AND network = 'solana'`));
  return found.rows[0]?.n as string | undefined;
}
