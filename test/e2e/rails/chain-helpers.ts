import type { Address } from 'viem';
import { LocalChain } from '../../chain/local-chain';
import { RpcRecorder } from '../../chain/rpc-recorder';
import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { eventually } from '../../support/webhook-receiver';
import { addressAt, freshAccount, writeChainsFile } from './rails-helpers';

/** One database several service processes share (see test/support/isolated.ts). */
export { sharedDatabase } from '../../support/isolated';

export interface ChainSetup {
  chain: LocalChain;
  usdt: Address;
  chainsFile: string;
}

/** A local node with the test USDT deployed, and a CHAINS_FILE whose test section points at them. */
export async function startChain(extra: Record<string, unknown> = {}, rpcUrl?: (chain: LocalChain) => string): Promise<ChainSetup> {
  const chain = await LocalChain.start();
  const usdt = await chain.deployToken('USDT');
  const chainsFile = writeChainsFile({
    test: {
      ethereum: { rpc_url: rpcUrl ? rpcUrl(chain) : chain.rpcUrl, chain_id: 31337, tokens: { usdt }, poll_interval_ms: 100, confirmations: 30, ...extra },
    },
  });
  return { chain, usdt, chainsFile };
}

export async function startWatchingService(setup: ChainSetup, env: Record<string, string> = {}): Promise<IsolatedService> {
  return startIsolatedService({ CHAINS_FILE: setup.chainsFile, CHAIN_LOCK_RETRY_MS: '300', WEBHOOK_DISPATCH_INTERVAL_MS: '100', ...env });
}

export interface Merchant {
  id: string;
  test: Api;
  live: Api;
  /** Address i of the merchant's wallet. */
  at(i: number): string;
}

/** An organization of the service with a test-mode receiving wallet of its own key. */
export async function merchant(service: IsolatedService): Promise<Merchant> {
  const org = await service.createOrg();
  const { account, xpub } = freshAccount();
  expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub }), 201);
  return { id: org.id, test: org.test, live: org.live, at: (i) => addressAt(account, i) };
}

export async function paymentAddress(api: Api, invoiceId: string, providerId = 'prov_ethereum_usdt') {
  return expectSuccess(await api.post(`/invoices/${invoiceId}/payment_address`, { provider_id: providerId }));
}

/** The invoice's payments (oldest first), as the API shows them. */
export async function paymentsOf(api: Api, invoiceId: string): Promise<any[]> {
  return expectSuccess(await api.post(`/invoices/${invoiceId}`, { expand: ['payments'] })).payments;
}

/** Waits until the invoice's payments satisfy `check` (the watcher records asynchronously). */
export async function waitForPayments(api: Api, invoiceId: string, check: (payments: any[]) => boolean, timeoutMs = 20_000): Promise<any[]> {
  return eventually(async () => {
    const payments = await paymentsOf(api, invoiceId);
    if (!check(payments))
      throw new Error(`payments not there yet: ${JSON.stringify(payments.map((p) => ({ status: p.status, price: p.price, confirmations: p.confirmations })))}`);
    return payments;
  }, timeoutMs);
}

/** Units of a decimal amount with `decimals` digits (the amount has at most that many). */
export function units(amount: string, decimals: number): bigint {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole + fraction.padEnd(decimals, '0').slice(0, decimals));
}

/** A local node with the test USDT, the JSON-RPC recorder in front of it, and a watching service that reaches the node through the recorder. */
export interface RecordedChain extends ChainSetup {
  recorder: RpcRecorder;
  service: IsolatedService;
  stop(): Promise<void>;
}

/** startChain with the recorder between the service and the node (`section`: more of the chains file's test section). */
export async function startRecordedChain(section: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<RecordedChain> {
  const chain = await LocalChain.start();
  const usdt = await chain.deployToken('USDT');
  const recorder = await RpcRecorder.start(chain.rpcUrl);
  const chainsFile = writeChainsFile({
    test: { ethereum: { rpc_url: recorder.url(chain.rpcUrl), chain_id: 31337, tokens: { usdt }, poll_interval_ms: 100, confirmations: 30, ...section } },
  });
  const service = await startWatchingService({ chain, usdt, chainsFile }, env);
  return {
    chain,
    usdt,
    chainsFile,
    recorder,
    service,
    stop: async () => {
      await service.stop();
      await recorder.stop();
      await chain.stop();
    },
  };
}
