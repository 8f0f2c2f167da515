import { commonFields, isInt, isObject, type NetworkConfig } from '../domain/chains-config';
export type { CatalogToken } from './evm-networks';
import type { RailAdapter, SectionInput } from '../domain/payment-rail';
import { EvmFollower } from './evm-follower';
import { EvmKeys } from './evm-keys';
import { checkEvmPayoutAddress, checkEvmTransactionId, evmPayoutUri } from './evm-payout';
import { evmPreflight } from './evm-preflight';
import { type CatalogToken, DEFAULT_FINALITY_DEPTH, evmNetworks, type EvmNetworks, evmRouteOf, providerIdOf } from './evm-networks';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const KEYS = new EvmKeys();

/**
 * A CHAINS_FILE section of an EVM network: `rpc_url`, `chain_id` (what eth_chainId must answer),
 * `tokens` by slug (in live mode the catalog's mainnet contracts unless overridden; in test mode only
 * those named), and the shared fields.
 */
function parseSection(networks: EvmNetworks, { mode, network: slug, value, path }: SectionInput, problems: string[]): NetworkConfig | null {
  const known = networks[slug];
  const before = problems.length;
  const common = commonFields(
    { value, path },
    { finalityDepth: DEFAULT_FINALITY_DEPTH[slug], pollIntervalMs: 4000, maxBlockRange: 500 },
    ['chain_id', 'tokens'],
    problems,
  );
  const chainId = value.chain_id;
  if (!isInt(chainId, 1, 2 ** 48)) problems.push(`${path}.chain_id: must be a positive whole number`);
  const tokens: Record<string, string> = {};
  if (mode === 'live') for (const [t, c] of Object.entries(known.mainnetTokens)) tokens[t] = c.toLowerCase();
  const given = value.tokens ?? {};
  if (!isObject(given)) problems.push(`${path}.tokens: must be an object of token slug to contract address`);
  else {
    for (const [token, contract] of Object.entries(given)) {
      if (!(token in known.mainnetTokens)) {
        const expected = Object.keys(known.mainnetTokens);
        problems.push(
          `${path}.tokens.${token}: unknown token on ${slug} (expected ${expected.length ? expected.join(', ') : "none: only the network's coin is paid there"})`,
        );
      } else if (typeof contract !== 'string' || !ADDRESS.test(contract)) {
        problems.push(`${path}.tokens.${token}: must be a contract address (0x and 40 hex digits)`);
      } else tokens[token] = contract.toLowerCase();
    }
  }
  if (problems.length > before) return null;
  return {
    mode,
    network: slug,
    family: 'evm',
    ...common,
    chain: String(chainId),
    chainField: 'chain_id',
    assets: tokens,
    providers: [providerIdOf(networks, slug, null), ...Object.keys(tokens).map((t) => providerIdOf(networks, slug, t))],
    providerOf: (asset) => providerIdOf(networks, slug, asset),
  };
}

/**
 * The EVM chains (Ethereum, Polygon, BNB Smart Chain) on viem: one key serves every network of the
 * family. `catalog` is the provider catalog, whose token contracts are the mainnet defaults.
 */
export function evmRail(catalog: readonly CatalogToken[]): RailAdapter {
  const networks = evmNetworks(catalog);
  return {
    family: 'evm',
    networks: Object.keys(networks),
    walletPerNetwork: false,
    routeOf: (providerId) => {
      const route = evmRouteOf(networks, providerId);
      return route && { network: route.network, asset: route.token };
    },
    parseSection: (input, problems) => parseSection(networks, input, problems),
    defaultChain: (mode, network) => (mode === 'live' ? String(networks[network]?.mainnetChainId ?? '') : ''),
    keys: () => KEYS,
    follower: (config) => new EvmFollower(config.rpcUrl),
    preflight: evmPreflight,
    checkPayoutAddress: checkEvmPayoutAddress,
    payoutUri: evmPayoutUri,
    checkTransactionId: checkEvmTransactionId,
  };
}
