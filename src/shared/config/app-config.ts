import { plainToInstance, Transform } from 'class-transformer';
import { parseSecretKey } from '../crypto/secret-box';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength, ValidateBy, validateSync } from 'class-validator';
import { isIP } from 'node:net';
import { toBool, toInt } from './env-transforms';
import { settingErrorLines } from './setting-errors';

/**
 * Every setting of the service, read from the environment and checked once at start-up.
 * Each property documents one variable; the README's configuration table follows this class.
 */
export class AppConfig {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  /**
   * Address to listen on. Default: every interface (0.0.0.0) in production, loopback (127.0.0.1)
   * otherwise, so a service started without NODE_ENV is not reachable from the network.
   */
  @IsOptional()
  @IsString()
  @MinLength(1)
  HOST?: string;

  /**
   * Public address of the service (e.g. https://api.example.com): the base of every URL in a
   * response (provider images, file URLs, file events). Required in production; elsewhere, when
   * unset, URLs use the request's Host only if it names a loopback address (localhost, 127.0.0.1,
   * [::1]), else http://localhost:PORT: an arbitrary Host header never ends up in a response.
   */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, { message: 'must be an http(s) URL without query or fragment' })
  PUBLIC_BASE_URL?: string;

  /** PostgreSQL connection string; when unset the service runs on an embedded PostgreSQL under DATA_DIR. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  @IsString()
  DATA_DIR = './data';

  /** Connections in each process's pool; unset: 10 on DATABASE_URL, 4 on the embedded database (see dbPoolSize). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  DB_POOL_SIZE?: number;

  /**
   * Streaming replicas of DATABASE_URL (comma-separated postgres:// URLs) that serve reads: lists,
   * single reads, the dashboard's figures and the payer pages' polling. Writes, and reads inside a
   * write's transaction, stay on the primary. Unset: every statement goes to the primary, as before.
   * See docs/production.md (read replicas) for the consistency rule.
   */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/[^,\s]+(\s*,\s*postgres(ql)?:\/\/[^,\s]+)*$/, { message: 'must be comma-separated postgres:// or postgresql:// URLs' })
  DATABASE_REPLICA_URLS?: string;

  /** A replica whose replay is further behind the primary than this is skipped until it catches up. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  DATABASE_REPLICA_MAX_LAG_SECONDS = 5;

  /** How often each process asks every replica (one short statement) how far it has replayed. */
  @Transform(toInt)
  @IsInt()
  @Min(50)
  @Max(60_000)
  DATABASE_REPLICA_CHECK_INTERVAL_MS = 1000;

  /** DATABASE_REPLICA_URLS as a list (empty when unset). */
  get replicaUrls(): string[] {
    return (this.DATABASE_REPLICA_URLS ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean);
  }

  /**
   * Hot statements go as named (prepared) statements, planned once per connection. Turn off behind
   * a pooler that cannot keep them (a pooler in transaction mode is not supported: docs/production.md).
   */
  @Transform(toBool)
  @IsBoolean()
  DB_PREPARED_STATEMENTS = true;

  /**
   * Seconds a pooled connection lives before the pool replaces it (0: for ever). A session keeps each
   * prepared statement's plan for its whole life, and PostgreSQL plans again only when a table is
   * analyzed or altered: a plan made while a table was empty would otherwise outlive the table's
   * growth wherever autovacuum does not analyze it (see data-source.ts).
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(86_400)
  DB_CONNECTION_LIFETIME_SECONDS = 300;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @Transform(toBool)
  @IsBoolean()
  PUBLIC_PAYER_ACCESS = true;

  /** Enables the operator API under /admin when set (header X-Admin-Token). */
  @IsOptional()
  @IsString()
  @Matches(/^\S{16,}$/, { message: 'must be at least 16 characters, without spaces (a header value cannot keep them)' })
  ADMIN_API_TOKEN?: string;

  /** Failed X-Admin-Token attempts per minute per client address before /admin answers it 429 for the rest of the minute. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  ADMIN_AUTH_FAILURES = 5;

  /**
   * Bearer token for GET /metrics (Authorization: Bearer <token>). When set, /metrics answers 401
   * without it in every mode; when unset, /metrics answers 404 in production and is open otherwise.
   */
  @IsOptional()
  @IsString()
  @Matches(/^\S{16,}$/, { message: 'must be at least 16 characters, without spaces (a header value cannot keep them)' })
  METRICS_TOKEN?: string;

  /** Serve the API reference (/docs and /openapi.json); false answers 404 there. */
  @Transform(toBool)
  @IsBoolean()
  DOCS_ENABLED = true;

  /**
   * Which hops may set X-Forwarded-* (HTTPS detection, the client address that keyless rate limits
   * and the failed-key lockout count): a comma-separated list of addresses, subnets (CIDR) and the
   * names loopback, linklocal, uniquelocal; or a number of hops to trust. Loopback only by default:
   * trusting a whole private range lets any client in it (a pod, a container) choose its own address.
   */
  @ValidateBy({
    name: 'trustProxy',
    validator: {
      validate: (value) => typeof value === 'string' && trustProxyProblem(value) === null,
      defaultMessage: (args) => `TRUST_PROXY ${typeof args?.value === 'string' ? trustProxyProblem(args.value) : 'must be text'}`,
    },
  })
  @IsString()
  TRUST_PROXY = 'loopback';

  @IsOptional()
  @IsString()
  TLS_CERT_FILE?: string;

  @IsOptional()
  @IsString()
  TLS_KEY_FILE?: string;

  /** Largest JSON body accepted, in bytes. */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES = 1024 * 1024;

  /**
   * Largest JSON body of a payer call made without a key (reading an invoice, changing its
   * currency, listing its providers), in bytes. Those bodies hold a currency and a few expansions;
   * the small cap keeps anonymous traffic from making the service read and parse large bodies.
   */
  @Transform(toInt)
  @IsInt()
  @Min(256)
  PAYER_BODY_LIMIT_BYTES = 8 * 1024;

  /**
   * On the first start of an empty embedded database, create a demo organization and print its test key and
   * its owner's sign-in link (`demoOrganization`: unset, on outside production only).
   */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  DEMO_ORGANIZATION?: boolean;

  /** Redis for budgets shared by every instance (rate limits); without it each process counts alone. */
  @IsOptional()
  @Matches(/^rediss?:\/\//, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  /**
   * How long a rate-limit command may wait for Redis before the request is counted in this process
   * instead (and Redis is treated as unreachable until it answers again).
   */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(10_000)
  REDIS_COMMAND_TIMEOUT_MS = 500;

  /**
   * Rows of one organization's mode that one batch of a background worker takes (chain confirmations,
   * refund payouts, subscription periods, webhook deliveries, invoice expiry): batches interleave the
   * organizations with due work, so one organization's volume waits behind its own (see fair-batch.ts).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  WORKER_ORG_BATCH = 50;

  /**
   * How often the retention job runs (seconds; 0: only at start): it creates the time-partitioned tables'
   * partitions ahead and drops those past each module's retention (src/shared/db/partition-retention.ts).
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(604_800)
  PARTITION_RETENTION_SECONDS = 3600;

  @Transform(toBool)
  @IsBoolean()
  RATE_LIMIT_ENABLED = true;

  /** Length of a rate-limit window; the limits below are per window (per second by default). */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  RATE_LIMIT_WINDOW_MS = 1000;

  /** Requests per second per live-mode key. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_LIVE = 100;

  /** Requests per second per test-mode key. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_TEST = 25;

  /**
   * How many keys' budgets (RATE_LIMIT_LIVE / RATE_LIMIT_TEST) an organization's keys of one mode share in all:
   * more keys do not buy more throughput than this.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_ORGANIZATION_KEYS = 4;

  /** Requests per second per client address without a key (payer pages). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_ANONYMOUS = 25;

  /**
   * Failed authentications per minute per client address, unknown or malformed API keys and failed console sign-ins
   * counted together: past it, its unknown keys get 429 (a valid key is never refused for them) and so do all its
   * console sign-ins, a right password included, until the minute ends.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_AUTH_FAILURES = 30;

  /** How long a stored Idempotency-Key result is replayed. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(8760)
  IDEMPOTENCY_TTL_HOURS = 24;

  /**
   * Origins whose browser scripts may call the API (CORS): unset sends no CORS headers, `*` allows
   * any origin, otherwise a comma-separated list such as `https://shop.example.com,https://admin.example.com`.
   */
  @IsOptional()
  @IsString()
  @Matches(/^(\*|https?:\/\/[^\s,]+(\s*,\s*https?:\/\/[^\s,]+)*)$/, { message: 'must be *, or a comma-separated list of http(s):// origins' })
  CORS_ORIGINS?: string;

  /**
   * Who may show the hosted checkout page (/checkout/...) in a frame: the CSP frame-ancestors sources,
   * space-separated. `'none'` (the default) forbids framing; e.g. `'self' https://shop.example.com` lets
   * that shop embed it.
   */
  @IsString()
  @Matches(/^\s*('none'|(('self'|https?:\/\/(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?)(\s+('self'|https?:\/\/(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?))*))\s*$/, {
    message: "must be 'none', or space-separated sources such as 'self' https://shop.example.com",
  })
  CHECKOUT_FRAME_ANCESTORS = "'none'";

  /** Worker processes on this machine (node cluster); each serves HTTP with its own database pool. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  WEB_CONCURRENCY = 1;

  /** On SIGTERM, how long in-flight requests may take to finish before their connections are cut. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_TIMEOUT_MS = 10_000;

  /**
   * How long an idle keep-alive connection stays open. It must outlast the idle timeout of whatever
   * reuses connections to us (a load balancer: 60 s on common ones; clients' pools): when we close a
   * connection at the moment the other side reuses it, that request fails ("socket hang up", a 502).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 65_000;

  /**
   * Per-organization test-mode clocks that POST /test_helpers/clock moves forward. Unset: on outside
   * production (development, tests, the embedded database) and off with NODE_ENV=production, where
   * `true` is refused. Off, the clock calls answer 403 clock_control_disabled.
   */
  @Transform(toBool)
  @IsBoolean()
  CLOCK_CONTROL = false;

  /**
   * Tests only (refused with NODE_ENV=production): registers POST /test_helpers/workers/{name}/run, which
   * runs one pass of a named background worker now and answers when it has finished, so tests need not
   * wait for a tick. Off (the default), the route does not exist.
   */
  @Transform(toBool)
  @IsBoolean()
  WORKER_PASSES_ON_DEMAND = false;

  /**
   * How often each durable event handler looks for events other instances committed (its own
   * instance's commits start a pass at once).
   */
  @Transform(toInt)
  @IsInt()
  @Min(50)
  @Max(60_000)
  DURABLE_HANDLERS_POLL_MS = 1_000;

  /**
   * Tests only (refused with NODE_ENV=production): `<handler>` or `<handler>:<n>` makes the process
   * exit(1) right before that durable handler's n-th event in this process (the first by default),
   * after the event committed and before the handler's cursor moves: a crash between commit and handling.
   */
  @IsOptional()
  @IsString()
  @Matches(/^[a-z][a-z0-9_.-]{0,99}(:[1-9][0-9]{0,5})?$/)
  DURABLE_HANDLERS_CRASH_BEFORE?: string;

  /**
   * The key that seals secrets at rest (webhook signing secrets, stored idempotent answers):
   * 32 random bytes as base64 or hex (`openssl rand -base64 32`). Required in production; elsewhere
   * a fixed, public development key is used when unset (and start-up says so).
   */
  @IsOptional()
  @IsString()
  SECRETS_KEY?: string;

  /**
   * Earlier SECRETS_KEY values, comma-separated: they still open what they sealed, and each start
   * re-seals such values with SECRETS_KEY (docs/production.md, key rotation).
   */
  @IsOptional()
  @IsString()
  SECRETS_KEYS_OLD?: string;

  /** True when secrets are sealed with the public development key (SECRETS_KEY unset outside production). */
  get usesDevelopmentSecretsKey(): boolean {
    return !this.SECRETS_KEY;
  }

  /** `env` of the envelope for requests without a key. */
  get defaultEnv(): 'development' | 'production' {
    return this.NODE_ENV === 'production' ? 'production' : 'development';
  }

  /**
   * The pool size: DB_POOL_SIZE, else 10 on a database server and 4 on the embedded one, which runs on
   * the same machine for one user trying the service, and where every connection is a server process
   * of its own (a burst of 8 clients held 470 MB in all with 10 connections, 324 MB with 4).
   */
  get dbPoolSize(): number {
    return this.DB_POOL_SIZE ?? (this.DATABASE_URL ? 10 : 4);
  }

  /** The address the HTTP server binds to: HOST, else every interface in production and loopback otherwise. */
  get listenHost(): string {
    return this.HOST ?? (this.isProduction ? '0.0.0.0' : '127.0.0.1');
  }

  /** PUBLIC_BASE_URL without its trailing slashes, when set. */
  get publicBaseUrl(): string | undefined {
    return this.PUBLIC_BASE_URL?.replace(/\/+$/, '') || undefined;
  }

  /**
   * Outside production, what this configuration relaxes compared with production (for the start-up
   * warning); empty in production.
   */
  get relaxations(): string[] {
    if (this.isProduction) return [];
    const out = ['plain HTTP accepted (no https_required)'];
    out.push(
      this.CLOCK_CONTROL
        ? 'CLOCK_CONTROL on (test clocks can be moved: POST /test_helpers/clock)'
        : 'CLOCK_CONTROL off (set CLOCK_CONTROL=true to move test clocks)',
    );
    if (this.WORKER_PASSES_ON_DEMAND) out.push('WORKER_PASSES_ON_DEMAND on (POST /test_helpers/workers/{name}/run runs a worker pass)');
    if (!this.PUBLIC_BASE_URL) out.push('PUBLIC_BASE_URL optional (URLs from loopback Host headers)');
    if (!this.METRICS_TOKEN) out.push('/metrics open without METRICS_TOKEN');
    if (this.usesDevelopmentSecretsKey) out.push('secrets at rest sealed with the public development key (SECRETS_KEY unset)');
    return out;
  }

  get isProduction(): boolean {
    return this.NODE_ENV === 'production';
  }

  /**
   * Whether a first start on an empty embedded database creates the demo organization: DEMO_ORGANIZATION, or
   * when unset, not in production (its owner's sign-in link would go to the production logs).
   */
  get demoOrganization(): boolean {
    return this.DEMO_ORGANIZATION ?? this.NODE_ENV !== 'production';
  }

  /** TRUST_PROXY as Express takes it: a number of hops, nothing (empty or "false"), or a list of addresses and subnets. */
  get trustProxy(): number | boolean | string {
    const text = this.TRUST_PROXY.trim();
    if (/^\d+$/.test(text)) return Number(text);
    if (text === '' || text === 'false') return false;
    return text;
  }
}

export class ConfigError extends Error {}

const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * Why TRUST_PROXY is not a setting Express can take as meant, or null: a whole number of hops, "false"
 * or nothing, or a comma-separated list of addresses, CIDR subnets and the range names. "true" (trust
 * every hop) is refused: any client could then choose its own address, and with it its rate budgets.
 */
export function trustProxyProblem(text: string): string | null {
  const value = text.trim();
  if (value === '' || value === 'false' || /^\d+$/.test(value)) return null;
  if (value === 'true') {
    return "must not be true: that believes every client's X-Forwarded-For, so any client could choose its own address (and its rate budgets); name the proxies' addresses or subnets, or a number of hops";
  }
  for (const part of value.split(',').map((p) => p.trim())) {
    if (PROXY_RANGE_NAMES.includes(part)) continue;
    const [address, bits, extra] = part.split('/');
    const family = isIP(address ?? '');
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!family || !bitsOk || extra !== undefined) {
      return `has "${part}", which is neither an address, a subnet (CIDR), ${PROXY_RANGE_NAMES.join(', ')} nor a number of hops`;
    }
    if (Number(bits) === 0) {
      return `has "${part}", a subnet of every address: that is the same as true (any client could choose its own address); name the proxies' subnets`;
    }
    // Subnets wider than any proxies' (an eighth of IPv4 or more, every IPv4 client as an IPv4-mapped IPv6
    // subnet, an IPv6 subnet wider than the unique local one): most clients could choose their own address.
    const mapped = family === 6 && /^::ffff:/i.test(address);
    const widest = family === 4 ? 8 : mapped ? 104 : 7;
    if (bits !== undefined && Number(bits) < widest) {
      return `has "${part}", a subnet wider than /${widest}: that trusts the X-Forwarded-For of clients across the Internet, as true would; name the proxies' subnets`;
    }
  }
  return null;
}

/**
 * The configuration from `env`, checked. `for: 'service'` (the HTTP service) also requires what
 * serving production traffic needs (PUBLIC_BASE_URL); the CLI builds no URLs and does not.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, purpose: 'service' | 'cli' = 'service'): AppConfig {
  const known = Object.keys(new AppConfig());
  const raw: Record<string, unknown> = {};
  for (const name of [
    ...known,
    'HOST',
    'DB_POOL_SIZE',
    'PUBLIC_BASE_URL',
    'METRICS_TOKEN',
    'DATABASE_URL',
    'DATABASE_REPLICA_URLS',
    'ADMIN_API_TOKEN',
    'TLS_CERT_FILE',
    'TLS_KEY_FILE',
    'REDIS_URL',
    'CORS_ORIGINS',
    'SECRETS_KEY',
    'SECRETS_KEYS_OLD',
    'DURABLE_HANDLERS_CRASH_BEFORE',
  ]) {
    if (env[name] !== undefined && env[name] !== '') raw[name] = env[name];
  }
  const config = plainToInstance(AppConfig, raw);
  // CLOCK_CONTROL unset: on outside production, off in production.
  if (raw.CLOCK_CONTROL === undefined) config.CLOCK_CONTROL = config.NODE_ENV !== 'production';
  const errors = validateSync(config, { whitelist: false });
  if (errors.length) {
    const lines = settingErrorLines(errors);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  if (!!config.TLS_CERT_FILE !== !!config.TLS_KEY_FILE) {
    throw new ConfigError('Invalid configuration:\n  TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  if (config.DURABLE_HANDLERS_CRASH_BEFORE && config.isProduction) {
    throw new ConfigError('Invalid configuration:\n  DURABLE_HANDLERS_CRASH_BEFORE is for tests and cannot be used with NODE_ENV=production');
  }
  if (config.WORKER_PASSES_ON_DEMAND && config.isProduction) {
    throw new ConfigError('Invalid configuration:\n  WORKER_PASSES_ON_DEMAND=true is for tests and cannot be used with NODE_ENV=production');
  }
  if (config.CLOCK_CONTROL && config.isProduction) {
    throw new ConfigError('Invalid configuration:\n  CLOCK_CONTROL=true is for tests and cannot be used with NODE_ENV=production');
  }
  if (purpose === 'service' && config.isProduction && !config.PUBLIC_BASE_URL) {
    throw new ConfigError(
      'Invalid configuration:\n  PUBLIC_BASE_URL is required with NODE_ENV=production: set it to the address clients use, e.g. https://api.example.com (URLs in responses are built from it, never from the Host header)',
    );
  }
  if (config.isProduction && !config.SECRETS_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  SECRETS_KEY is required with NODE_ENV=production: 32 random bytes as base64, e.g. `openssl rand -base64 32` (it seals webhook secrets at rest; see docs/production.md)',
    );
  }
  for (const [name, text] of [
    ['SECRETS_KEY', config.SECRETS_KEY],
    ...(config.SECRETS_KEYS_OLD ?? '')
      .split(',')
      .filter((t) => t.trim())
      .map((t) => ['SECRETS_KEYS_OLD', t]),
  ]) {
    if (text === undefined) continue;
    try {
      parseSecretKey(text);
    } catch (e) {
      throw new ConfigError(`Invalid configuration:\n  ${name}: ${(e as Error).message}`);
    }
  }
  return config;
}
