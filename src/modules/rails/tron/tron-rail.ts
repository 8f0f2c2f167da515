import { commonFields, isInt, isObject, type NetworkConfig } from '../domain/chains-config';
import type { RailAdapter, SectionInput } from '../domain/payment-rail';
import { plainPayoutUri } from '../domain/payouts';
import { checkTronPayoutAddress, isTronAddress } from './tron-address';
import { TronFollower, type TronFinality } from './tron-follower';
import { TronKeys } from './tron-keys';
import { tronPreflight } from './tron-preflight';

/** The part of a catalog entry the adapter reads (the providers module's CatalogProvider). */
export interface TronCatalogToken {
  network: string;
  gateway: string;
  kind: string;
  contractAddress: string;
}

const NETWORK = 'tron';
const NATIVE_PROVIDER = 'prov_tron_tron';
/** The chain id java-tron's eth_chainId answers on mainnet (0x2b6653dc). */
export const TRON_MAINNET_CHAIN_ID = 728126428;
/**
 * Blocks the watcher keeps checking for reorgs by default: one round of Tron's 27 block producers,
 * more than the ~19 blocks after which a block is solidified.
 */
const DEFAULT_DEPTH = 27;
const FINALITIES: readonly TronFinality[] = ['solidified', 'confirmations'];
const KEYS = new TronKeys();

const providerOf = (asset: string | null): string => (asset === null ? NATIVE_PROVIDER : `prov_${NETWORK}_${asset}`);

/** The Tron section's own reading, kept beside the shared fields (the follower needs `finality`). */
export interface TronNetworkConfig extends NetworkConfig {
  finality: TronFinality;
  /** The node's HTTP API (`/wallet/...`), which tells a TRX transfer from a TRC-10 one; null: TRX is not taken. */
  httpApiUrl: string | null;
}

/**
 * The CHAINS_FILE section `tron`: `rpc_url` (a java-tron-compatible JSON-RPC endpoint), `chain_id`
 * (what eth_chainId must answer; mainnet 728126428), `finality` (`solidified`, the default: a transfer
 * is final once the node's `finalized` block covers it; `confirmations`: once `confirmations` blocks
 * bury it), `http_api_url` (the node's HTTP API: without it TRX is not taken, since java-tron's JSON-RPC
 * shows a TRC-10 transfer exactly as a TRX one), `tokens` by slug (base58 `T...` contracts; in live mode the catalog's mainnet contracts
 * unless overridden, in test mode only those named), and the shared fields.
 */
function parseSection(mainnetTokens: Readonly<Record<string, string>>, { mode, value, path }: SectionInput, problems: string[]): NetworkConfig | null {
  const before = problems.length;
  const common = commonFields(
    { value, path },
    { finalityDepth: DEFAULT_DEPTH, pollIntervalMs: 3000, maxBlockRange: 100 },
    ['chain_id', 'finality', 'http_api_url', 'tokens'],
    problems,
  );
  const chainId = value.chain_id ?? (mode === 'live' ? TRON_MAINNET_CHAIN_ID : undefined);
  if (!isInt(chainId, 1, 2 ** 48))
    problems.push(`${path}.chain_id: must be a positive whole number (the chain id eth_chainId answers; mainnet ${TRON_MAINNET_CHAIN_ID})`);
  const finality = value.finality ?? 'solidified';
  if (typeof finality !== 'string' || !FINALITIES.includes(finality as TronFinality))
    problems.push(`${path}.finality: must be "solidified" or "confirmations"`);
  const httpApiUrl = value.http_api_url ?? null;
  if (httpApiUrl !== null && (typeof httpApiUrl !== 'string' || !/^https?:\/\/[^\s]+$/.test(httpApiUrl)))
    problems.push(`${path}.http_api_url: must be an http(s):// URL (the node's HTTP API, without /wallet/...)`);
  const tokens: Record<string, string> = {};
  if (mode === 'live') Object.assign(tokens, mainnetTokens);
  const given = value.tokens ?? {};
  if (!isObject(given)) problems.push(`${path}.tokens: must be an object of token slug to base58 contract address`);
  else {
    for (const [token, contract] of Object.entries(given)) {
      if (!(token in mainnetTokens)) problems.push(`${path}.tokens.${token}: unknown token on tron (expected ${Object.keys(mainnetTokens).join(', ')})`);
      else if (typeof contract !== 'string' || !isTronAddress(contract))
        problems.push(`${path}.tokens.${token}: must be a base58 Tron contract address (T...)`);
      else tokens[token] = contract;
    }
  }
  if (problems.length > before) return null;
  const config: TronNetworkConfig = {
    mode,
    network: NETWORK,
    family: 'tron',
    ...common,
    chain: String(Number(chainId)),
    chainField: 'chain_id',
    assets: tokens,
    // TRX only where the HTTP API can tell it from a TRC-10 token (java-tron's JSON-RPC shows both alike).
    providers: [...(httpApiUrl === null ? [] : [providerOf(null)]), ...Object.keys(tokens).map(providerOf)],
    providerOf,
    finality: finality as TronFinality,
    httpApiUrl: httpApiUrl === null ? null : (httpApiUrl as string).replace(/\/+$/, ''),
  };
  return config;
}

/**
 * TRX and TRC-20 tokens on Tron, over java-tron's JSON-RPC (its eth_* subset): one key (m/44'/195'/0')
 * serves the family's one network. `catalog` is the provider catalog, whose Tron token contracts are
 * the mainnet defaults.
 */
export function tronRail(catalog: readonly TronCatalogToken[]): RailAdapter {
  const mainnetTokens: Record<string, string> = {};
  for (const p of catalog) if (p.network === 'TRON' && p.kind === 'token') mainnetTokens[p.gateway.toLowerCase()] = p.contractAddress;
  return {
    family: 'tron',
    networks: [NETWORK],
    walletPerNetwork: false,
    routeOf: (providerId) => {
      const id = providerId.toLowerCase().replace(/^provider_/, 'prov_');
      if (id === NATIVE_PROVIDER) return { network: NETWORK, asset: null };
      const token = Object.keys(mainnetTokens).find((t) => id === providerOf(t));
      return token ? { network: NETWORK, asset: token } : null;
    },
    parseSection: (input, problems) => parseSection(mainnetTokens, input, problems),
    defaultChain: (mode) => (mode === 'live' ? String(TRON_MAINNET_CHAIN_ID) : ''),
    keys: () => KEYS,
    follower: (config) => {
      const tron = config as TronNetworkConfig;
      return new TronFollower(config.rpcUrl, tron.finality ?? 'solidified', config.finalityDepth, tron.httpApiUrl ?? null);
    },
    preflight: (config, settings) => tronPreflight(config as TronNetworkConfig, settings),
    checkPayoutAddress: checkTronPayoutAddress,
    // Tron has no payment-URI standard: with a rail the claim shows the address and amount alone.
    payoutUri: ({ chain, network, address, amount }) => (chain === null ? plainPayoutUri(network, address, amount) : null),
    // A transaction id as Tronscan shows it (64 hexadecimal digits) or as the JSON-RPC writes it (with 0x): kept in the JSON-RPC's form.
    checkTransactionId: (text) =>
      /^(0x)?[0-9a-f]{64}$/i.test(text)
        ? { ok: true, id: `0x${text.replace(/^0x/i, '').toLowerCase()}` }
        : { ok: false, problem: 'must be the transaction id: 64 hexadecimal digits (0x optional)' },
  };
}
