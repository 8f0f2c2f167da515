import { commonFields, isObject, type NetworkConfig } from '../domain/chains-config';
import type { RailAdapter, SectionInput } from '../domain/payment-rail';
import { plainPayoutUri } from '../domain/payouts';
import { base58Bytes, checkSolanaPayoutAddress, isSolanaAddress } from './solana-address';
import { SolanaFollower } from './solana-follower';
import { SolanaKeys } from './solana-keys';
import { transferRequestUri } from './solana-pay';
import { solanaPreflight } from './solana-preflight';

/** The part of a catalog entry the adapter reads (the providers module's CatalogProvider). */
export interface SolanaCatalogToken {
  network: string;
  gateway: string;
  kind: string;
  contractAddress: string;
}

/** When a payment completes: once the section's commitment covers its slot. */
export type SolanaCommitment = 'finalized' | 'confirmed';

const NETWORK = 'solana';
const NATIVE_PROVIDER = 'prov_solana_solana';
/** The genesis hash of mainnet-beta, what getGenesisHash answers there. */
export const SOLANA_MAINNET_GENESIS = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
/** Slots between confirmed and finalized on a healthy cluster (the lockout depth): the reorg depth the watcher keeps. */
const DEFAULT_DEPTH = 32;
const COMMITMENTS: readonly SolanaCommitment[] = ['finalized', 'confirmed'];
const KEYS = new SolanaKeys();

const providerOf = (asset: string | null): string => (asset === null ? NATIVE_PROVIDER : `prov_${NETWORK}_${asset}`);

/** The Solana section's own reading, kept beside the shared fields. */
export interface SolanaNetworkConfig extends NetworkConfig {
  commitment: SolanaCommitment;
}

/**
 * The CHAINS_FILE section `solana`: `rpc_url` (Solana's JSON-RPC), `genesis_hash` (what getGenesisHash must
 * answer; mainnet-beta's by default in live mode, required in test mode), `commitment` (`finalized`, the
 * default: a payment completes once its slot is finalized; `confirmed`: at once), `tokens` by slug (base58
 * mints; in live mode the catalog's mainnet mints unless overridden, in test mode only those named), and the
 * shared fields (`confirmations` is the depth in slots kept for checks; `start_block` a slot).
 */
function parseSection(mainnetMints: Readonly<Record<string, string>>, { mode, value, path }: SectionInput, problems: string[]): NetworkConfig | null {
  const before = problems.length;
  const common = commonFields(
    { value, path },
    { finalityDepth: DEFAULT_DEPTH, pollIntervalMs: 2000, maxBlockRange: 5000 },
    ['genesis_hash', 'commitment', 'tokens'],
    problems,
  );
  const genesis = value.genesis_hash ?? (mode === 'live' ? SOLANA_MAINNET_GENESIS : undefined);
  if (typeof genesis !== 'string' || base58Bytes(genesis)?.length !== 32)
    problems.push(`${path}.genesis_hash: must be the cluster's genesis hash in base58 (what getGenesisHash answers; mainnet-beta ${SOLANA_MAINNET_GENESIS})`);
  const commitment = value.commitment ?? 'finalized';
  if (typeof commitment !== 'string' || !COMMITMENTS.includes(commitment as SolanaCommitment))
    problems.push(`${path}.commitment: must be "finalized" or "confirmed"`);
  const tokens: Record<string, string> = {};
  if (mode === 'live') Object.assign(tokens, mainnetMints);
  const given = value.tokens ?? {};
  if (!isObject(given)) problems.push(`${path}.tokens: must be an object of token slug to base58 mint address`);
  else {
    for (const [token, mint] of Object.entries(given)) {
      if (!(token in mainnetMints)) problems.push(`${path}.tokens.${token}: unknown token on solana (expected ${Object.keys(mainnetMints).join(', ')})`);
      else if (typeof mint !== 'string' || !isSolanaAddress(mint)) problems.push(`${path}.tokens.${token}: must be a base58 mint address (32 bytes)`);
      else tokens[token] = mint;
    }
  }
  if (problems.length > before) return null;
  const config: SolanaNetworkConfig = {
    mode,
    network: NETWORK,
    family: 'solana',
    ...common,
    chain: genesis as string,
    chainField: 'genesis_hash',
    assets: tokens,
    providers: [providerOf(null), ...Object.keys(tokens).map(providerOf)],
    providerOf,
    commitment: commitment as SolanaCommitment,
  };
  return config;
}

/** A transaction signature: base58 of 64 bytes (87 or 88 characters), as explorers and wallets show it. */
export function checkSolanaSignature(text: string): { ok: true; id: string } | { ok: false; problem: string } {
  const signature = text.trim();
  return base58Bytes(signature)?.length === 64
    ? { ok: true, id: signature }
    : { ok: false, problem: 'must be the transaction signature: base58 of 64 bytes (87 or 88 characters, as the explorer shows it)' };
}

/**
 * SOL and SPL tokens (USDC, USDT) on Solana by Solana Pay, over Solana's JSON-RPC: the merchant's wallet
 * address receives every payment, told apart by a reference key per payment address. `catalog` is the
 * provider catalog, whose Solana mints are the mainnet defaults.
 */
export function solanaRail(catalog: readonly SolanaCatalogToken[]): RailAdapter {
  const mainnetMints: Record<string, string> = {};
  for (const p of catalog) if (p.network === 'SOLANA' && p.kind === 'token') mainnetMints[p.gateway.toLowerCase()] = p.contractAddress;
  return {
    family: 'solana',
    networks: [NETWORK],
    walletPerNetwork: false,
    walletField: 'address',
    routeOf: (providerId) => {
      const id = providerId.toLowerCase().replace(/^provider_/, 'prov_');
      if (id === NATIVE_PROVIDER) return { network: NETWORK, asset: null };
      const token = Object.keys(mainnetMints).find((t) => id === providerOf(t));
      return token ? { network: NETWORK, asset: token } : null;
    },
    parseSection: (input, problems) => parseSection(mainnetMints, input, problems),
    defaultChain: (mode) => (mode === 'live' ? SOLANA_MAINNET_GENESIS : ''),
    keys: () => KEYS,
    follower: (config) => new SolanaFollower(config.rpcUrl, (config as SolanaNetworkConfig).commitment ?? 'finalized'),
    preflight: (config, settings) => solanaPreflight(config as SolanaNetworkConfig, settings),
    checkPayoutAddress: checkSolanaPayoutAddress,
    // A Solana Pay transfer request to the destination wallet (its wallet derives the token account of an SPL payout).
    payoutUri: ({ chain, network, address, amount, asset }) =>
      chain === null ? plainPayoutUri(network, address, amount) : transferRequestUri({ recipient: address, amount, splToken: asset }),
    checkTransactionId: checkSolanaSignature,
  };
}
