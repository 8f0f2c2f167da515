import { EVM_NETWORKS } from '../evm/evm-networks';

export type RailMode = 'test' | 'live';

/** One network of one mode, after checks and defaults. */
export interface NetworkConfig {
  mode: RailMode;
  /** Network slug (ethereum, polygon, bsc). */
  network: string;
  rpcUrl: string;
  chainId: number;
  /**
   * Depth the watcher still checks for reorgs and keeps counting confirmations to (blocks below it
   * are treated as final). Payments complete at their provider's required confirmations.
   */
  finalityDepth: number;
  /** Token slug -> contract (lower case). In live mode the catalog's mainnet contracts unless overridden. */
  tokens: Readonly<Record<string, string>>;
  /** Pause between looks for new blocks, in ms. */
  pollIntervalMs: number;
  /** Most blocks one eth_getLogs call covers. */
  maxBlockRange: number;
  /** First block to look at when the network has no cursor yet (null: the head at that moment). */
  startBlock: bigint | null;
}

export interface ChainsConfig {
  networks: NetworkConfig[];
}

export const DEFAULT_FINALITY_DEPTH: Readonly<Record<string, number>> = { ethereum: 64, polygon: 256, bsc: 64 };
const DEFAULT_POLL_MS = 4000;
const DEFAULT_BLOCK_RANGE = 500;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export class ChainsConfigError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown, min: number, max: number): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;

/**
 * Checks the parsed CHAINS_FILE and fills the defaults. Every problem names its field
 * (`test.ethereum.chain_id`); all problems are reported at once.
 */
export function parseChainsConfig(raw: unknown): ChainsConfig {
  const problems: string[] = [];
  const networks: NetworkConfig[] = [];
  if (!isObject(raw)) throw new ChainsConfigError('the file must hold a JSON object with "live" and/or "test" sections');
  for (const key of Object.keys(raw)) {
    if (key !== 'live' && key !== 'test') problems.push(`${key}: unknown section (expected "live" or "test")`);
  }
  for (const mode of ['live', 'test'] as const) {
    const section = raw[mode];
    if (section === undefined) continue;
    if (!isObject(section)) {
      problems.push(`${mode}: must be an object of networks (${Object.keys(EVM_NETWORKS).join(', ')})`);
      continue;
    }
    for (const [slug, value] of Object.entries(section)) {
      const path = `${mode}.${slug}`;
      const known = EVM_NETWORKS[slug];
      if (!known) {
        problems.push(`${path}: unknown network (expected one of ${Object.keys(EVM_NETWORKS).join(', ')})`);
        continue;
      }
      if (!isObject(value)) {
        problems.push(`${path}: must be an object with rpc_url and chain_id`);
        continue;
      }
      const allowed = ['rpc_url', 'chain_id', 'confirmations', 'tokens', 'poll_interval_ms', 'max_block_range', 'start_block'];
      for (const field of Object.keys(value)) if (!allowed.includes(field)) problems.push(`${path}.${field}: unknown field (expected ${allowed.join(', ')})`);
      const rpcUrl = value.rpc_url;
      if (typeof rpcUrl !== 'string' || !/^(https?|wss?):\/\/[^\s]+$/.test(rpcUrl)) problems.push(`${path}.rpc_url: must be an http(s):// or ws(s):// URL`);
      const chainId = value.chain_id;
      if (!isInt(chainId, 1, 2 ** 48)) problems.push(`${path}.chain_id: must be a positive whole number`);
      const depth = value.confirmations ?? DEFAULT_FINALITY_DEPTH[slug];
      if (!isInt(depth, 1, 10_000)) problems.push(`${path}.confirmations: must be a whole number from 1 to 10000`);
      const poll = value.poll_interval_ms ?? DEFAULT_POLL_MS;
      if (!isInt(poll, 50, 600_000)) problems.push(`${path}.poll_interval_ms: must be a whole number from 50 to 600000`);
      const range = value.max_block_range ?? DEFAULT_BLOCK_RANGE;
      if (!isInt(range, 1, 100_000)) problems.push(`${path}.max_block_range: must be a whole number from 1 to 100000`);
      const start = value.start_block ?? null;
      if (start !== null && !isInt(start, 0, Number.MAX_SAFE_INTEGER)) problems.push(`${path}.start_block: must be a block number (0 or more)`);

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
      networks.push({
        mode,
        network: slug,
        rpcUrl: rpcUrl as string,
        chainId: chainId as number,
        finalityDepth: depth as number,
        tokens,
        pollIntervalMs: poll as number,
        maxBlockRange: range as number,
        startBlock: start === null ? null : BigInt(start as number),
      });
    }
  }
  problems.push(...sharedChains(networks));
  if (problems.length) throw new ChainsConfigError(problems.join('\n'));
  return { networks };
}

/**
 * A chain named in both sections: a transfer on it would be seen by the live and the test watcher
 * alike, and could pay an invoice of each mode. Each live network whose chain id a test network also
 * names is a problem (its field is the one reported).
 */
function sharedChains(networks: readonly NetworkConfig[]): string[] {
  const problems: string[] = [];
  const valid = (n: NetworkConfig) => isInt(n.chainId, 1, 2 ** 48);
  for (const live of networks.filter((n) => n.mode === 'live' && valid(n))) {
    const test = networks.find((n) => n.mode === 'test' && valid(n) && n.chainId === live.chainId);
    if (test) {
      problems.push(
        `live.${live.network}.chain_id: ${live.chainId} is also the chain of test.${test.network}; live and test must be different chains (one transfer would pay in both modes)`,
      );
    }
  }
  return problems;
}

/** The configured network of a mode, or undefined when the rail is not configured there. */
export function networkOf(config: ChainsConfig | null, mode: RailMode, network: string): NetworkConfig | undefined {
  return config?.networks.find((n) => n.mode === mode && n.network === network);
}
