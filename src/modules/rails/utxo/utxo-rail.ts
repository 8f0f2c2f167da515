import { commonFields, type NetworkConfig } from '../domain/chains-config';
import type { RailAdapter, RailKeys, SectionInput } from '../domain/payment-rail';
import { UtxoFollower } from './utxo-follower';
import { UtxoKeys } from './utxo-keys';
import { checkUtxoPayoutAddress, checkUtxoTransactionId, utxoPayoutUri } from './utxo-payout';
import { utxoPreflight } from './utxo-preflight';
import { chainsOf, UTXO_CHAINS, UTXO_NETWORKS, type UtxoChain } from './utxo-networks';

/**
 * A CHAINS_FILE section of a UTXO network: `rpc_url` (a Bitcoin Core-compatible JSON-RPC node,
 * credentials in the URL), `chain` (`main` in the live section; a test chain the coin has in the test
 * section: `test`, `regtest`, and for Bitcoin `testnet4` and `signet`; a mainnet key never receives test
 * payments), and the shared fields.
 */
function parseSection({ mode, network: slug, value, path }: SectionInput, problems: string[]): NetworkConfig | null {
  const known = UTXO_NETWORKS[slug];
  const before = problems.length;
  const common = commonFields(
    { value, path },
    { finalityDepth: known.finalityDepth, pollIntervalMs: known.pollIntervalMs, maxBlockRange: 100 },
    ['chain'],
    problems,
  );
  const chain = value.chain ?? (mode === 'live' ? 'main' : undefined);
  const chains: readonly string[] = chainsOf(known);
  const allowed = mode === 'live' ? ['main'] : chains.filter((c) => c !== 'main');
  const listed = (names: readonly string[]) => (names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` : names[0]);
  if (typeof chain !== 'string' || !chains.includes(chain)) problems.push(`${path}.chain: must be one of ${chains.join(', ')} for ${known.name}`);
  else if (!allowed.includes(chain))
    problems.push(`${path}.chain: the ${mode} section takes ${listed(allowed)} (a ${chain} chain in ${mode} mode would mix real and test money)`);
  if (problems.length > before) return null;
  return {
    mode,
    network: slug,
    family: 'utxo',
    ...common,
    chain: chain as string,
    chainField: 'chain',
    assets: {},
    providers: [known.provider],
    providerOf: () => known.provider,
  };
}

const keysCache = new Map<string, RailKeys>();

/** Bitcoin, Litecoin, Dogecoin and Bitcoin Cash over Bitcoin Core-compatible JSON-RPC: one wallet per network. */
export const UTXO_RAIL: RailAdapter = {
  family: 'utxo',
  networks: Object.keys(UTXO_NETWORKS),
  walletPerNetwork: true,
  routeOf: (providerId) => {
    const id = providerId.toLowerCase().replace(/^provider_/, 'prov_');
    const network = Object.values(UTXO_NETWORKS).find((n) => n.provider === id);
    return network ? { network: network.slug, asset: null } : null;
  },
  parseSection,
  defaultChain: (mode) => (mode === 'live' ? 'main' : 'test'),
  keys: (network, chain) => {
    const known = network === null ? undefined : UTXO_NETWORKS[network];
    if (!known || !UTXO_CHAINS.includes(chain as UtxoChain) || !known.chains[chain as UtxoChain])
      throw new Error(`no UTXO network ${network} on chain ${chain}`);
    const key = `${network}:${chain}`;
    let keys = keysCache.get(key);
    if (!keys) keysCache.set(key, (keys = new UtxoKeys(known, chain as UtxoChain)));
    return keys;
  },
  follower: (config) => new UtxoFollower(config.rpcUrl),
  preflight: utxoPreflight,
  checkPayoutAddress: checkUtxoPayoutAddress,
  payoutUri: utxoPayoutUri,
  checkTransactionId: checkUtxoTransactionId,
};
