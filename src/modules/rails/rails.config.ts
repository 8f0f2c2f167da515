import { readFileSync } from 'node:fs';
import { ConfigError } from '../../shared/config/app-config';
import { ChainsConfig, ChainsConfigError, parseChainsConfig } from './domain/chains-config';

/**
 * The chains the service watches, from the JSON file CHAINS_FILE names (README "Live payments on
 * EVM chains"). Without CHAINS_FILE no watcher runs and payment addresses answer
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
  ) {}
}

function watcherSettings(env: NodeJS.ProcessEnv): { enabled: boolean; lockRetryMs: number } {
  const enabledText = (env.CHAIN_WATCHER ?? 'true').trim().toLowerCase();
  if (!['true', 'false', '1', '0', ''].includes(enabledText)) throw new ConfigError(`Invalid configuration:\n  CHAIN_WATCHER=${JSON.stringify(env.CHAIN_WATCHER)}: must be true or false`);
  const retryText = (env.CHAIN_LOCK_RETRY_MS ?? '2000').trim();
  const retry = /^\d+$/.test(retryText) ? Number(retryText) : NaN;
  if (!Number.isSafeInteger(retry) || retry < 100 || retry > 60_000) {
    throw new ConfigError(`Invalid configuration:\n  CHAIN_LOCK_RETRY_MS=${JSON.stringify(env.CHAIN_LOCK_RETRY_MS)}: must be a whole number of milliseconds from 100 to 60000`);
  }
  return { enabled: enabledText !== 'false' && enabledText !== '0', lockRetryMs: retry };
}

export function loadRailsConfig(env: NodeJS.ProcessEnv = process.env): RailsConfig {
  const watcher = watcherSettings(env);
  const file = env.CHAINS_FILE?.trim();
  if (!file) return new RailsConfig(null, null, watcher.enabled, watcher.lockRetryMs);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (e as Error).message;
    throw new ConfigError(`Invalid configuration:\n  CHAINS_FILE=${JSON.stringify(file)}: ${reason}`);
  }
  try {
    return new RailsConfig(parseChainsConfig(raw), file, watcher.enabled, watcher.lockRetryMs);
  } catch (e) {
    if (!(e instanceof ChainsConfigError)) throw e;
    const lines = e.message.split('\n').map((line) => `  CHAINS_FILE ${line}`);
    throw new ConfigError(`Invalid configuration (${file}):\n${lines.join('\n')}`);
  }
}
