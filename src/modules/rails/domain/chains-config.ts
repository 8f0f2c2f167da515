import type { ChainFamily, RailAdapter } from './payment-rail';

export type RailMode = 'test' | 'live';

/** One network of one mode, after checks and defaults. */
export interface NetworkConfig {
  mode: RailMode;
  /** Network slug (the network part of its provider ids). */
  network: string;
  /** The chain family whose adapter serves it. */
  family: ChainFamily;
  rpcUrl: string;
  /** The chain the node must serve, in the form its adapter's follower answers (a chain id, a chain name). */
  chain: string;
  /** The section's field that names the chain (for messages). */
  chainField: string;
  /**
   * Depth the watcher still checks for reorgs and keeps counting confirmations to (blocks below it
   * are treated as final). Payments complete at their provider's required confirmations.
   */
  finalityDepth: number;
  /** Asset slug -> on-chain reference (a token contract, lower case); empty where only the coin is paid. */
  assets: Readonly<Record<string, string>>;
  /** The provider ids this section carries: the network's coin first, then each configured asset. */
  providers: readonly string[];
  /** Provider id of the network's coin (asset null), and of each asset slug. */
  providerOf: (asset: string | null) => string;
  /** Pause between looks for new blocks, in ms. */
  pollIntervalMs: number;
  /** Most blocks one scan covers. */
  maxBlockRange: number;
  /** First block to look at when the network has no cursor yet (null: the head at that moment). */
  startBlock: bigint | null;
}

export interface ChainsConfig {
  networks: NetworkConfig[];
}

export class ChainsConfigError extends Error {}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isInt = (v: unknown, min: number, max: number): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;

/** The fields every network section has, checked the same way whatever the family. */
export interface CommonFields {
  rpcUrl: string;
  finalityDepth: number;
  pollIntervalMs: number;
  maxBlockRange: number;
  startBlock: bigint | null;
}

export const COMMON_FIELDS = ['rpc_url', 'confirmations', 'poll_interval_ms', 'max_block_range', 'start_block'] as const;

/**
 * Checks the fields every section has (and refuses fields outside `COMMON_FIELDS` + `extra`), with the
 * family's defaults. Problems name their field; the answer holds what was given where it is wrong.
 */
export function commonFields(
  { value, path }: { value: Record<string, unknown>; path: string },
  defaults: { finalityDepth: number; pollIntervalMs: number; maxBlockRange: number },
  extra: readonly string[],
  problems: string[],
): CommonFields {
  const allowed = [COMMON_FIELDS[0], ...extra, ...COMMON_FIELDS.slice(1)];
  for (const field of Object.keys(value)) if (!allowed.includes(field)) problems.push(`${path}.${field}: unknown field (expected ${allowed.join(', ')})`);
  const rpcUrl = value.rpc_url;
  if (typeof rpcUrl !== 'string' || !/^(https?|wss?):\/\/[^\s]+$/.test(rpcUrl)) problems.push(`${path}.rpc_url: must be an http(s):// or ws(s):// URL`);
  const depth = value.confirmations ?? defaults.finalityDepth;
  if (!isInt(depth, 1, 10_000)) problems.push(`${path}.confirmations: must be a whole number from 1 to 10000`);
  const poll = value.poll_interval_ms ?? defaults.pollIntervalMs;
  if (!isInt(poll, 50, 600_000)) problems.push(`${path}.poll_interval_ms: must be a whole number from 50 to 600000`);
  const range = value.max_block_range ?? defaults.maxBlockRange;
  if (!isInt(range, 1, 100_000)) problems.push(`${path}.max_block_range: must be a whole number from 1 to 100000`);
  const start = value.start_block ?? null;
  if (start !== null && !isInt(start, 0, Number.MAX_SAFE_INTEGER)) problems.push(`${path}.start_block: must be a block number (0 or more)`);
  return {
    rpcUrl: rpcUrl as string,
    finalityDepth: depth as number,
    pollIntervalMs: poll as number,
    maxBlockRange: range as number,
    startBlock: typeof start === 'number' ? BigInt(start) : null,
  };
}

/** What `${NAME}` references are read from: the process environment, or a test's map. */
export type Environment = Readonly<Record<string, string | undefined>>;

const REFERENCE = /\$\{([^}]*)\}/g;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Replaces each `${NAME}` in an `rpc_url` with the environment's value, so a node's credentials or a
 * hosted node's API key stay out of the file. An unset or empty variable, a malformed reference or an
 * unclosed `${` is a problem naming the field and the variable; no message ever carries the expanded URL
 * (nor the value). A `$` not followed by `{` is kept as written.
 */
export function expandReferences(text: string, env: Environment, path: string, problems: string[]): string {
  const before = problems.length;
  const expanded = text.replace(REFERENCE, (whole, name: string) => {
    if (!VARIABLE_NAME.test(name)) {
      problems.push(`${path}: \${${name}} is not a valid environment variable reference (expected \${NAME}, letters, digits and _)`);
      return whole;
    }
    const value = env[name];
    if (value === undefined || value === '') {
      problems.push(`${path}: environment variable ${name} is not set (referenced as \${${name}})`);
      return whole;
    }
    return value;
  });
  if (problems.length === before && text.replace(REFERENCE, '').includes('${')) problems.push(`${path}: a \${ reference is not closed with }`);
  return expanded;
}

/**
 * Checks the parsed CHAINS_FILE and fills the defaults. Each network's section is checked by the
 * adapter of its family (`adapters`, the registry's list), after the `${NAME}` references of its URL
 * fields (`rpc_url`, any `*_url`) are replaced from `env`. Every problem names its field (`test.ethereum.chain_id`); all problems are
 * reported at once.
 */
export function parseChainsConfig(raw: unknown, adapters: readonly RailAdapter[], env: Environment = {}): ChainsConfig {
  const problems: string[] = [];
  const networks: NetworkConfig[] = [];
  const bySlug = new Map(adapters.flatMap((a) => a.networks.map((n) => [n, a] as const)));
  const known = [...bySlug.keys()].join(', ');
  if (!isObject(raw)) throw new ChainsConfigError('the file must hold a JSON object with "live" and/or "test" sections');
  for (const key of Object.keys(raw)) {
    if (key !== 'live' && key !== 'test') problems.push(`${key}: unknown section (expected "live" or "test")`);
  }
  for (const mode of ['live', 'test'] as const) {
    const section = raw[mode];
    if (section === undefined) continue;
    if (!isObject(section)) {
      problems.push(`${mode}: must be an object of networks (${known})`);
      continue;
    }
    for (const [slug, value] of Object.entries(section)) {
      const path = `${mode}.${slug}`;
      const adapter = bySlug.get(slug);
      if (!adapter) {
        problems.push(`${path}: unknown network (expected one of ${known})`);
        continue;
      }
      if (!isObject(value)) {
        problems.push(`${path}: must be an object with rpc_url`);
        continue;
      }
      const before = problems.length;
      // Every URL field (`rpc_url`, and a family's own such as Tron's `http_api_url`) may carry references.
      const fields: Record<string, unknown> = { ...value };
      for (const [field, text] of Object.entries(value)) {
        if (field.endsWith('_url') && typeof text === 'string') fields[field] = expandReferences(text, env, `${path}.${field}`, problems);
      }
      if (problems.length > before) continue;
      const config = adapter.parseSection({ mode, network: slug, value: fields, path }, problems);
      if (config) networks.push(config);
    }
  }
  problems.push(...sharedChains(networks));
  if (problems.length) throw new ChainsConfigError(problems.join('\n'));
  return { networks };
}

/**
 * A chain named in both sections: a transfer on it would be seen by the live and the test watcher
 * alike, and could pay an invoice of each mode. Each live network whose chain (family and chain) a
 * test network also names is a problem (its field is the one reported).
 */
function sharedChains(networks: readonly NetworkConfig[]): string[] {
  const problems: string[] = [];
  for (const live of networks.filter((n) => n.mode === 'live')) {
    const test = networks.find((n) => n.mode === 'test' && n.family === live.family && n.chain === live.chain);
    if (test) {
      problems.push(
        `live.${live.network}.${live.chainField}: ${live.chain} is also the chain of test.${test.network}; live and test must be different chains (one transfer would pay in both modes)`,
      );
    }
  }
  return problems;
}

/** The configured network of a mode, or undefined when the rail is not configured there. */
export function networkOf(config: ChainsConfig | null, mode: RailMode, network: string): NetworkConfig | undefined {
  return config?.networks.find((n) => n.mode === mode && n.network === network);
}
