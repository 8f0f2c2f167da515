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
  constructor(readonly chains: ChainsConfig | null, readonly file: string | null) {}
}

export function loadRailsConfig(env: NodeJS.ProcessEnv = process.env): RailsConfig {
  const file = env.CHAINS_FILE?.trim();
  if (!file) return new RailsConfig(null, null);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (e as Error).message;
    throw new ConfigError(`Invalid configuration:\n  CHAINS_FILE=${JSON.stringify(file)}: ${reason}`);
  }
  try {
    return new RailsConfig(parseChainsConfig(raw), file);
  } catch (e) {
    if (!(e instanceof ChainsConfigError)) throw e;
    const lines = e.message.split('\n').map((line) => `  CHAINS_FILE ${line}`);
    throw new ConfigError(`Invalid configuration (${file}):\n${lines.join('\n')}`);
  }
}
