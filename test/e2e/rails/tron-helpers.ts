import { randomInt } from 'node:crypto';
import { mnemonicToSeedSync } from '@scure/bip39';
import { HDKey } from 'viem/accounts';
import type { Address } from 'viem';
import { hexToTron, tronToHex } from '../../../src/modules/rails/tron/tron-address';
import { TronKeys } from '../../../src/modules/rails/tron/tron-keys';
import { LocalChain } from '../../chain/local-chain';
import { NILE_CHAIN_ID, TronRpcProxy, type TronProxyOptions } from '../../chain/tron-rpc-proxy';
import { expectSuccess } from '../../support/envelope';
import type { IsolatedService } from '../../support/isolated';
import { MNEMONIC, writeChainsFile } from './rails-helpers';
import type { Merchant } from './chain-helpers';

const ROOT_KEY = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC));
const KEYS = new TronKeys();

export { hexToTron, tronToHex };

/** A Hardhat node with the test USDT, the java-tron stand-in in front of it, and a CHAINS_FILE whose test section names the proxy. */
export interface TronSetup {
  chain: LocalChain;
  proxy: TronRpcProxy;
  /** The token's contract as Hardhat knows it (20-byte hex) and as Tron writes it (T...). */
  usdt: Address;
  usdtTron: string;
  chainsFile: string;
}

export function tronChainsFile(proxy: TronRpcProxy, usdtTron: string, extra: Record<string, unknown> = {}): string {
  return writeChainsFile({
    test: {
      tron: {
        rpc_url: proxy.url,
        http_api_url: proxy.httpUrl,
        chain_id: NILE_CHAIN_ID,
        tokens: { usdt: usdtTron },
        poll_interval_ms: 100,
        confirmations: 30,
        ...extra,
      },
    },
  });
}

export async function startTron(options: Partial<TronProxyOptions> = {}, extra: Record<string, unknown> = {}): Promise<TronSetup> {
  const chain = await LocalChain.start();
  const usdt = await chain.deployToken('USDT');
  const proxy = await TronRpcProxy.start(chain.rpcUrl, options);
  const usdtTron = hexToTron(usdt);
  return { chain, proxy, usdt, usdtTron, chainsFile: tronChainsFile(proxy, usdtTron, extra) };
}

export async function stopTron(setup: TronSetup | undefined): Promise<void> {
  await setup?.proxy.stop();
  await setup?.chain.stop();
}

let nextAccount = 10 + randomInt(2 ** 30);
/** An organization with a test-mode Tron wallet of a fresh account key (m/44'/195'/n' of the test mnemonic). */
export async function tronMerchant(service: IsolatedService): Promise<Merchant & { xpub: string }> {
  const org = await service.createOrg();
  const xpub = ROOT_KEY.derive(`m/44'/195'/${nextAccount++}'`).publicExtendedKey;
  const wallet = expectSuccess(await org.test.post('/wallets', { chain_family: 'tron', xpub }), 201);
  expect(wallet).toMatchObject({ chain_family: 'tron', first_address: KEYS.deriveAddress(xpub, 0) });
  return { id: org.id, test: org.test, live: org.live, xpub, at: (i) => KEYS.deriveAddress(xpub, i) };
}
