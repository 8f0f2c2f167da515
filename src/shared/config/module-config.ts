import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ConfigError } from './app-config';
import { settingErrorLines } from './setting-errors';

/**
 * A module's settings class (`<module>.config.ts`, an exported `...Config` class of UPPER_CASE
 * properties with their defaults and class-validator checks) filled from `env` and checked: a bad
 * value stops the service at start with a message naming the variable, as AppConfig does. `optional`
 * names the properties without a default (undefined unless set).
 */
export function loadModuleConfig<T extends object>(cls: new () => T, env: NodeJS.ProcessEnv = process.env, optional: readonly string[] = []): T {
  const raw: Record<string, unknown> = {};
  for (const name of [...Object.keys(new cls()), ...optional]) {
    if (env[name] !== undefined && env[name] !== '') raw[name] = env[name];
  }
  const config = plainToInstance(cls, raw);
  const errors = validateSync(config, { whitelist: false });
  if (errors.length) {
    const lines = settingErrorLines(errors);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return config;
}
