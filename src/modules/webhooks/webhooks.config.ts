import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { toBool, toInt } from '../../shared/config/env-transforms';
import { loadModuleConfig } from '../../shared/config/module-config';
import { MAX_DISPATCH_BATCH } from './persistence/delivery-statements';

const IPV4 = String.raw`\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?`;
const IPV6 = String.raw`\[[0-9a-fA-F:.]+\](?::\d{1,5})?|[0-9a-fA-F]*:[0-9a-fA-F:.]+`;
const DNS_SERVER = `(?:${IPV4}|${IPV6})`;
const DNS_SERVERS = new RegExp(String.raw`^\s*(?:${DNS_SERVER}(?:\s*,\s*${DNS_SERVER})*)?\s*$`);

/** The webhooks module's settings: the dispatcher, its retries and the address guard. */
export class WebhooksConfig {
  /** Run the webhook dispatcher in this process (several instances may run it on one database). */
  @Transform(toBool)
  @IsBoolean()
  WEBHOOK_DISPATCHER = true;

  /** How often the dispatcher looks for due webhook deliveries, in milliseconds. */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(3_600_000)
  WEBHOOK_DISPATCH_INTERVAL_MS = 1000;

  /** Most deliveries one dispatcher sends at once. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(MAX_DISPATCH_BATCH)
  WEBHOOK_DISPATCH_BATCH = 20;

  /** Time allowed for one delivery attempt (connect, send, response), in milliseconds. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(120_000)
  WEBHOOK_TIMEOUT_MS = 10_000;

  /**
   * Waits before each retry of a failed delivery (comma-separated, units ms/s/m/h/d); one attempt
   * plus one retry per entry. Each wait varies by +-10%.
   */
  @Matches(/^\s*\d+(ms|s|m|h|d)\s*(,\s*\d+(ms|s|m|h|d)\s*){0,49}$/, { message: 'must be a comma-separated list of durations like 5s,5m,2h' })
  WEBHOOK_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

  /** Disable an endpoint after this many deliveries in a row failed every attempt (0: never). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1000)
  WEBHOOK_DISABLE_AFTER_FAILURES = 5;

  /**
   * Days of webhook deliveries and their attempts kept (0: all). A month of them (by their event's id) is
   * dropped this many days after it ended, once none of its deliveries is pending.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(36_500)
  WEBHOOK_DELIVERIES_RETENTION_DAYS = 90;

  /**
   * Allow webhook URLs on plain http and on private, loopback or link-local addresses. Default:
   * false in production, true otherwise.
   */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE?: boolean;

  /**
   * Name servers asked for endpoint hosts while the address guard is on (comma-separated IP addresses, each
   * with an optional port: `10.0.0.2`, `10.0.0.2:5353`, `[2001:db8::1]:53`); empty: the system's.
   */
  @Matches(DNS_SERVERS, { message: 'must be empty or a comma-separated list of IP addresses, each with an optional port (10.0.0.2:53, [2001:db8::1]:53)' })
  WEBHOOK_DNS_SERVERS = '';

  get dnsServers(): string[] {
    return this.WEBHOOK_DNS_SERVERS.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }

  /** Whether the service runs with NODE_ENV=production (set by loadWebhooksConfig; not a setting of its own). */
  production = false;

  get webhookAllowPrivate(): boolean {
    return this.WEBHOOK_ALLOW_PRIVATE ?? !this.production;
  }
}

export function loadWebhooksConfig(env: NodeJS.ProcessEnv = process.env): WebhooksConfig {
  const config = loadModuleConfig(WebhooksConfig, env, ['WEBHOOK_ALLOW_PRIVATE']);
  config.production = env.NODE_ENV === 'production';
  return config;
}
