import { readFileSync } from 'node:fs';
import { ConfigError } from '../../shared/config/app-config';
import { ChainsConfig, ChainsConfigError, parseChainsConfig } from './domain/chains-config';
import type { RailAdapter } from './domain/payment-rail';

/**
 * The chains the service watches, from the JSON file CHAINS_FILE names (README "Live payments on
 * chains"). Without CHAINS_FILE no watcher runs and payment addresses answer
 * rail_not_configured. A file that cannot be read or fails its checks stops the service at start
 * with a message naming the field.
 */
export class RailsConfig {
  constructor(
    readonly chains: ChainsConfig | null,
    readonly file: string | null,
    /** CHAIN_WATCHER=false: this instance hands out addresses but never watches (another instance does). */
    readonly watcherEnabled = true,
    /** How often an instance that does not hold a network's watcher lock tries to take it (takeover time). */
    readonly lockRetryMs = 2000,
    /** CHAIN_ID_CHECK_SECONDS: how often each network's node is asked its chain id (eth_chainId), in ms; also asked at start. */
    readonly chainIdCheckMs = 300_000,
  ) {}
}

interface WatcherSettings {
  enabled: boolean;
  lockRetryMs: number;
  chainIdCheckMs: number;
}

/** A whole number setting within bounds, or a ConfigError naming it. */
function wholeNumber(name: string, raw: string | undefined, fallback: number, min: number, max: number, unit: string): number {
  const text = (raw ?? String(fallback)).trim();
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`Invalid configuration:\n  ${name}=${JSON.stringify(raw)}: must be a whole number of ${unit} from ${min} to ${max}`);
  }
  return value;
}

function watcherSettings(env: NodeJS.ProcessEnv): WatcherSettings {
  const enabledText = (env.CHAIN_WATCHER ?? 'true').trim().toLowerCase();
  if (!['true', 'false', '1', '0', ''].includes(enabledText))
    throw new ConfigError(`Invalid configuration:\n  CHAIN_WATCHER=${JSON.stringify(env.CHAIN_WATCHER)}: must be true or false`);
  return {
    enabled: enabledText !== 'false' && enabledText !== '0',
    lockRetryMs: wholeNumber('CHAIN_LOCK_RETRY_MS', env.CHAIN_LOCK_RETRY_MS, 2000, 100, 60_000, 'milliseconds'),
    chainIdCheckMs: wholeNumber('CHAIN_ID_CHECK_SECONDS', env.CHAIN_ID_CHECK_SECONDS, 300, 1, 86_400, 'seconds') * 1000,
  };
}

/** The rails' settings; `adapters` check the CHAINS_FILE sections of their families (the registry's list). */
export function loadRailsConfig(env: NodeJS.ProcessEnv, adapters: readonly RailAdapter[]): RailsConfig {
  const watcher = watcherSettings(env);
  const file = env.CHAINS_FILE?.trim();
  if (!file) return new RailsConfig(null, null, watcher.enabled, watcher.lockRetryMs, watcher.chainIdCheckMs);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (e as Error).message;
    throw new ConfigError(`Invalid configuration:\n  CHAINS_FILE=${JSON.stringify(file)}: ${reason}`);
  }
  try {
    return new RailsConfig(parseChainsConfig(raw, adapters, env), file, watcher.enabled, watcher.lockRetryMs, watcher.chainIdCheckMs);
  } catch (e) {
    if (!(e instanceof ChainsConfigError)) throw e;
    const lines = e.message.split('\n').map((line) => `  CHAINS_FILE ${line}`);
    throw new ConfigError(`Invalid configuration (${file}):\n${lines.join('\n')}`);
  }
}
