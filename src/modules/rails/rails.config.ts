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
    /** ALLOW_NO_LIVE_RAILS=true: start in production even though no live network is configured (live mode then takes no payment). */
    readonly allowNoLiveRails = false,
    /** CHAIN_COUNT_BUDGET_MS: how long one watcher step counts pending payments' confirmations before it reads new blocks again. */
    readonly countBudgetMs = 1000,
  ) {}

  /** The live networks CHAINS_FILE names (none without the file). */
  get liveNetworks(): string[] {
    return (this.chains?.networks ?? []).filter((n) => n.mode === 'live').map((n) => n.network);
  }
}

/** What the start-up check says when live mode could take no payment. */
export interface LiveRailsFinding {
  /** True: the service must not start (no opt-out). */
  refuse: boolean;
  message: string;
}

/**
 * In production, a service whose CHAINS_FILE names no live network offers live invoices no crypto
 * method, so nothing could be paid: that is refused at start unless ALLOW_NO_LIVE_RAILS=true says it
 * is meant (then it is still said, as a warning). Outside production, and with a live network, null.
 */
export function liveRailsFinding(config: RailsConfig, production: boolean): LiveRailsFinding | null {
  if (!production || config.liveNetworks.length) return null;
  const where = config.file ? `CHAINS_FILE (${config.file}) names no network in its "live" section` : 'CHAINS_FILE is not set';
  const fix = 'add your nodes to the "live" section of CHAINS_FILE and register a receiving wallet per network (docs/going-live.md)';
  return config.allowNoLiveRails
    ? { refuse: false, message: `live mode can take no payment: ${where}; starting anyway because ALLOW_NO_LIVE_RAILS=true. To take payments, ${fix}.` }
    : {
        refuse: true,
        message: `live mode can take no payment: ${where}, so no payment method can be offered to live invoices. Not starting: ${fix}, or set ALLOW_NO_LIVE_RAILS=true to start without live payments.`,
      };
}

interface WatcherSettings {
  enabled: boolean;
  lockRetryMs: number;
  chainIdCheckMs: number;
  countBudgetMs: number;
  allowNoLiveRails: boolean;
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
  const allowText = (env.ALLOW_NO_LIVE_RAILS ?? 'false').trim().toLowerCase();
  if (!['true', 'false', '1', '0', ''].includes(allowText))
    throw new ConfigError(`Invalid configuration:\n  ALLOW_NO_LIVE_RAILS=${JSON.stringify(env.ALLOW_NO_LIVE_RAILS)}: must be true or false`);
  return {
    allowNoLiveRails: allowText === 'true' || allowText === '1',
    enabled: enabledText !== 'false' && enabledText !== '0',
    lockRetryMs: wholeNumber('CHAIN_LOCK_RETRY_MS', env.CHAIN_LOCK_RETRY_MS, 2000, 100, 60_000, 'milliseconds'),
    chainIdCheckMs: wholeNumber('CHAIN_ID_CHECK_SECONDS', env.CHAIN_ID_CHECK_SECONDS, 300, 1, 86_400, 'seconds') * 1000,
    countBudgetMs: wholeNumber('CHAIN_COUNT_BUDGET_MS', env.CHAIN_COUNT_BUDGET_MS, 1000, 0, 60_000, 'milliseconds'),
  };
}

/** The rails' settings; `adapters` check the CHAINS_FILE sections of their families (the registry's list). */
export function loadRailsConfig(env: NodeJS.ProcessEnv, adapters: readonly RailAdapter[]): RailsConfig {
  const watcher = watcherSettings(env);
  const file = env.CHAINS_FILE?.trim();
  if (!file) return new RailsConfig(null, null, watcher.enabled, watcher.lockRetryMs, watcher.chainIdCheckMs, watcher.allowNoLiveRails, watcher.countBudgetMs);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (e as Error).message;
    throw new ConfigError(`Invalid configuration:\n  CHAINS_FILE=${JSON.stringify(file)}: ${reason}`);
  }
  try {
    return new RailsConfig(
      parseChainsConfig(raw, adapters, env),
      file,
      watcher.enabled,
      watcher.lockRetryMs,
      watcher.chainIdCheckMs,
      watcher.allowNoLiveRails,
      watcher.countBudgetMs,
    );
  } catch (e) {
    if (!(e instanceof ChainsConfigError)) throw e;
    const lines = e.message.split('\n').map((line) => `  CHAINS_FILE ${line}`);
    throw new ConfigError(`Invalid configuration (${file}):\n${lines.join('\n')}`);
  }
}
