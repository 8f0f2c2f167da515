import { plainToInstance, Transform } from 'class-transformer';
import { IsInt, Max, Min, validateSync } from 'class-validator';
import { ConfigError } from '../../shared/config/app-config';
import { toInt } from '../../shared/config/env-transforms';
import { settingErrorLines } from '../../shared/config/setting-errors';

/**
 * Settings of payouts, read from the environment and checked at start-up. Their names are the ones the
 * refunds module published before the payout worker moved here (a deployment's settings stay as they are).
 */
export class PayoutsConfig {
  /**
   * How often the payout worker looks at reported payouts (confirmations, COMPLETED) and expires
   * claims past their time, in seconds (0: never; a claim past its time is refused anyway).
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  REFUND_CHECK_SECONDS = 5;

  /**
   * How long a reported payout may stay out of the node's sight (seconds): a SENT refund whose
   * transaction the node no longer shows (dropped unmined), or a hash a chain without mempool queries
   * does not know yet, goes back to AWAITING_PAYOUT after it.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(7 * 24 * 3600)
  REFUND_TX_GRACE_SECONDS = 600;
}

export function loadPayoutsConfig(env: NodeJS.ProcessEnv = process.env): PayoutsConfig {
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(new PayoutsConfig())) {
    if (env[name] !== undefined && env[name] !== '') raw[name] = env[name];
  }
  const config = plainToInstance(PayoutsConfig, raw);
  const errors = validateSync(config, { whitelist: false });
  if (errors.length) {
    const lines = settingErrorLines(errors);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return config;
}
