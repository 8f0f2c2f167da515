import { plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, validateSync } from 'class-validator';

const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : value === true || value === 'true' || value === '1' ? true
    : value === false || value === 'false' || value === '0' ? false : value;
const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : /^-?\d+$/.test(String(value)) ? Number(value) : value;

/**
 * Every setting of the service, read from the environment and checked once at start-up.
 * Each property documents one variable; the README's configuration table follows this class.
 */
export class AppConfig {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @Transform(toInt) @IsInt() @Min(0) @Max(65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  /** PostgreSQL connection string; when unset the service runs on an embedded PostgreSQL under DATA_DIR. */
  @IsOptional() @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  @IsString()
  DATA_DIR = './data';

  @Transform(toInt) @IsInt() @Min(1) @Max(200)
  DB_POOL_SIZE = 10;

  /**
   * Hot statements go as named (prepared) statements, planned once per connection. Turn off behind
   * a pooler that cannot keep them (PgBouncer in transaction mode without max_prepared_statements).
   * Always off on the embedded database.
   */
  @Transform(toBool) @IsBoolean()
  DB_PREPARED_STATEMENTS = true;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @Transform(toBool) @IsBoolean()
  PUBLIC_PAYER_ACCESS = true;

  /** Enables the operator API under /admin when set (header X-Admin-Token). */
  @IsOptional() @IsString() @Matches(/^.{16,}$/, { message: 'must be at least 16 characters' })
  ADMIN_API_TOKEN?: string;

  /** Express "trust proxy": which hops may set X-Forwarded-* (HTTPS detection, client address). */
  @IsString()
  TRUST_PROXY = 'loopback, linklocal, uniquelocal';

  @IsOptional() @IsString()
  TLS_CERT_FILE?: string;

  @IsOptional() @IsString()
  TLS_KEY_FILE?: string;

  /** Largest JSON body accepted, in bytes. */
  @Transform(toInt) @IsInt() @Min(1024)
  BODY_LIMIT_BYTES = 1024 * 1024;

  /** On the first start of an empty embedded database, create a demo organization and print its test key. */
  @Transform(toBool) @IsBoolean()
  DEMO_ORGANIZATION = true;

  /** With a live RateSource plugged in, import its rates this often (0: never). */
  @Transform(toInt) @IsInt() @Min(0)
  RATES_REFRESH_SECONDS = 0;

  /**
   * How much short of an invoice's price_usd its completed payments may fall and still complete it:
   * a decimal fraction from 0 (exact cover, the default) to below 1, e.g. 0.005 for half a percent.
   */
  @IsString() @Matches(/^0(\.\d{1,30})?$/, { message: 'must be a decimal fraction from 0 to below 1, e.g. 0.005' })
  PAYMENT_TOLERANCE = '0';

  /** Redis for budgets shared by every instance (rate limits); without it each process counts alone. */
  @IsOptional() @Matches(/^rediss?:\/\//, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  @Transform(toBool) @IsBoolean()
  RATE_LIMIT_ENABLED = true;

  /** Length of a rate-limit window; the limits below are per window (per second by default). */
  @Transform(toInt) @IsInt() @Min(100)
  RATE_LIMIT_WINDOW_MS = 1000;

  /** Requests per second per live-mode key. */
  @Transform(toInt) @IsInt() @Min(1)
  RATE_LIMIT_LIVE = 100;

  /** Requests per second per test-mode key. */
  @Transform(toInt) @IsInt() @Min(1)
  RATE_LIMIT_TEST = 25;

  /** Requests per second per client address without a key (payer pages). */
  @Transform(toInt) @IsInt() @Min(1)
  RATE_LIMIT_ANONYMOUS = 25;

  /** Failed authentications per minute per client address before its keyed requests get 429. */
  @Transform(toInt) @IsInt() @Min(1)
  RATE_LIMIT_AUTH_FAILURES = 30;

  /** How long a stored Idempotency-Key result is replayed. */
  @Transform(toInt) @IsInt() @Min(1)
  IDEMPOTENCY_TTL_HOURS = 24;

  /**
   * Origins whose browser scripts may call the API (CORS): unset sends no CORS headers, `*` allows
   * any origin, otherwise a comma-separated list such as `https://shop.example.com,https://admin.example.com`.
   */
  @IsOptional() @IsString() @Matches(/^(\*|https?:\/\/[^\s,]+(\s*,\s*https?:\/\/[^\s,]+)*)$/, { message: 'must be *, or a comma-separated list of http(s):// origins' })
  CORS_ORIGINS?: string;

  /**
   * Who may show the hosted checkout page (/checkout/...) in a frame: the CSP frame-ancestors sources,
   * space-separated. `'none'` (the default) forbids framing; e.g. `'self' https://shop.example.com` lets
   * that shop embed it.
   */
  @IsString() @Matches(/^\s*('none'|(('self'|https?:\/\/(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?)(\s+('self'|https?:\/\/(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?))*))\s*$/, {
    message: "must be 'none', or space-separated sources such as 'self' https://shop.example.com",
  })
  CHECKOUT_FRAME_ANCESTORS = "'none'";

  /** Worker processes on this machine (node cluster); each serves HTTP with its own database pool. */
  @Transform(toInt) @IsInt() @Min(1) @Max(64)
  WEB_CONCURRENCY = 1;

  /** On SIGTERM, how long in-flight requests may take to finish before their connections are cut. */
  @Transform(toInt) @IsInt() @Min(0) @Max(600_000)
  SHUTDOWN_TIMEOUT_MS = 10_000;

  /** How long an invoice's quoted rates hold and a payment is expected, unless the invoice sets expires_in_minutes (5 to 43200). */
  @Transform(toInt) @IsInt() @Min(5) @Max(43200)
  INVOICE_EXPIRY_MINUTES = 15;

  /** After expiry, how long payments are still watched for (late payments); then an unpaid invoice is VOIDED (substatus EXPIRED). */
  @Transform(toInt) @IsInt() @Min(0) @Max(525600)
  INVOICE_MONITORING_MINUTES = 1440;

  /** How often the background sweeper applies expiries and window closings (0: never; reads still show the right state). */
  @Transform(toInt) @IsInt() @Min(0) @Max(3600)
  INVOICE_SWEEP_SECONDS = 5;

  /** Tests only: a clock that POST /test_helpers/clock moves forward. Refused when NODE_ENV=production. */
  @Transform(toBool) @IsBoolean()
  CLOCK_CONTROL = false;

  /** Run the webhook dispatcher in this process (several instances may run it on one database). */
  @Transform(toBool) @IsBoolean()
  WEBHOOK_DISPATCHER = true;

  /** How often the dispatcher looks for due webhook deliveries, in milliseconds. */
  @Transform(toInt) @IsInt() @Min(10) @Max(3_600_000)
  WEBHOOK_DISPATCH_INTERVAL_MS = 1000;

  /** Most deliveries one dispatcher sends at once. */
  @Transform(toInt) @IsInt() @Min(1) @Max(500)
  WEBHOOK_DISPATCH_BATCH = 20;

  /** Time allowed for one delivery attempt (connect, send, response), in milliseconds. */
  @Transform(toInt) @IsInt() @Min(100) @Max(120_000)
  WEBHOOK_TIMEOUT_MS = 10_000;

  /**
   * Waits before each retry of a failed delivery (comma-separated, units ms/s/m/h/d); one attempt
   * plus one retry per entry. Each wait varies by +-10%.
   */
  @Matches(/^\s*\d+(ms|s|m|h|d)\s*(,\s*\d+(ms|s|m|h|d)\s*){0,49}$/, { message: 'must be a comma-separated list of durations like 5s,5m,2h' })
  WEBHOOK_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

  /** Disable an endpoint after this many deliveries in a row failed every attempt (0: never). */
  @Transform(toInt) @IsInt() @Min(0) @Max(1000)
  WEBHOOK_DISABLE_AFTER_FAILURES = 5;

  /**
   * Allow webhook URLs on plain http and on private, loopback or link-local addresses. Default:
   * false in production, true otherwise.
   */
  @IsOptional() @Transform(toBool) @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE?: boolean;

  get webhookAllowPrivate(): boolean {
    return this.WEBHOOK_ALLOW_PRIVATE ?? !this.isProduction;
  }

  /** `env` of the envelope for requests without a key. */
  get defaultEnv(): 'development' | 'production' {
    return this.NODE_ENV === 'production' ? 'production' : 'development';
  }

  get isProduction(): boolean {
    return this.NODE_ENV === 'production';
  }

  get usesEmbeddedDatabase(): boolean {
    return !this.DATABASE_URL;
  }
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const known = Object.keys(new AppConfig());
  const raw: Record<string, unknown> = {};
  for (const name of [...known, 'DATABASE_URL', 'ADMIN_API_TOKEN', 'TLS_CERT_FILE', 'TLS_KEY_FILE', 'REDIS_URL', 'WEBHOOK_ALLOW_PRIVATE', 'CORS_ORIGINS']) {
    if (env[name] !== undefined && env[name] !== '') raw[name] = env[name];
  }
  const config = plainToInstance(AppConfig, raw);
  const errors = validateSync(config, { whitelist: false });
  if (errors.length) {
    const lines = errors.map((e) => `  ${e.property}=${JSON.stringify(e.value)}: ${Object.values(e.constraints ?? {}).join('; ')}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  if (!!config.TLS_CERT_FILE !== !!config.TLS_KEY_FILE) {
    throw new ConfigError('Invalid configuration:\n  TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  if (config.CLOCK_CONTROL && config.isProduction) {
    throw new ConfigError('Invalid configuration:\n  CLOCK_CONTROL=true is for tests and cannot be used with NODE_ENV=production');
  }
  return config;
}
