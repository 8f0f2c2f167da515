import { Transform } from 'class-transformer';
import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { toInt } from '../../shared/config/env-transforms';
import { loadModuleConfig } from '../../shared/config/module-config';

/** The invoices module's settings: the invoice clocks and how its payments settle it. */
export class InvoicesConfig {
  /** How long an invoice's quoted rates hold and a payment is expected, unless the invoice sets expires_in_minutes (5 to 43200). */
  @Transform(toInt)
  @IsInt()
  @Min(5)
  @Max(43200)
  INVOICE_EXPIRY_MINUTES = 15;

  /** After expiry, how long payments are still watched for (late payments); then an unpaid invoice is VOIDED (substatus EXPIRED). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(525600)
  INVOICE_MONITORING_MINUTES = 1440;

  /** How often the background sweeper applies expiries and window closings (0: never; reads still show the right state). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  INVOICE_SWEEP_SECONDS = 5;

  /**
   * How much short of an invoice's price_usd its completed payments may fall and still complete it:
   * a decimal fraction from 0 (exact cover, the default) to below 1, e.g. 0.005 for half a percent.
   */
  @IsString()
  @Matches(/^0(\.\d{1,30})?$/, { message: 'must be a decimal fraction from 0 to below 1, e.g. 0.005' })
  PAYMENT_TOLERANCE = '0';
}

export function loadInvoicesConfig(env: NodeJS.ProcessEnv = process.env): InvoicesConfig {
  return loadModuleConfig(InvoicesConfig, env);
}
