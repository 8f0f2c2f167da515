import { plainToInstance, Transform } from 'class-transformer';
import { IsInt, Max, Min, validateSync } from 'class-validator';
import { ConfigError } from '../../shared/config/app-config';
import { toInt } from '../../shared/config/env-transforms';
import { settingErrorLines } from '../../shared/config/setting-errors';

/** Settings of subscriptions (decisions §20), read from the environment and checked at start-up. */
export class SubscriptionsConfig {
  /** How often each instance's scheduler issues due period invoices and follows their payment (seconds; 0: never). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  SUBSCRIPTIONS_TICK_SECONDS = 5;

  /** How long a period invoice waits for payment before it expires (minutes), as expires_in_minutes of an invoice. */
  @Transform(toInt)
  @IsInt()
  @Min(5)
  @Max(43_200)
  SUBSCRIPTION_INVOICE_EXPIRY_MINUTES = 10_080;

  /**
   * Days of usage events kept (0: all of them): the retention job drops each month of events this many
   * days after it ended, unless a period invoice still to be issued needs its events.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(36_500)
  USAGE_EVENTS_RETENTION_DAYS = 400;
}

export function loadSubscriptionsConfig(env: NodeJS.ProcessEnv = process.env): SubscriptionsConfig {
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(new SubscriptionsConfig())) {
    if (env[name] !== undefined && env[name] !== '') raw[name] = env[name];
  }
  const config = plainToInstance(SubscriptionsConfig, raw);
  const errors = validateSync(config, { whitelist: false });
  const lines = settingErrorLines(errors);
  if (lines.length) throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  return config;
}
