import { loadConfig } from './app-config';
import { REFUSED, refusalFacts, startOutcome } from './start-outcome';

describe('client address and body settings', () => {
  it('trusts only loopback to set X-Forwarded-* by default', () => {
    const config = loadConfig({});
    expect(config.TRUST_PROXY).toBe('loopback');
    expect(config.trustProxy).toBe('loopback');
  });

  it.each([
    ['10.0.0.0/8, 127.0.0.1', '10.0.0.0/8, 127.0.0.1'],
    ['fc00::/7, ::ffff:10.0.0.0/104', 'fc00::/7, ::ffff:10.0.0.0/104'],
    ['1', 1],
    ['2', 2],
    ['false', false],
  ])('reads TRUST_PROXY=%p as %p', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each([
    ['true', /must not be true: that believes every client's X-Forwarded-For/],
    ['10.0.0.0/8, proxy.internal', /has "proxy.internal", which is neither an address/],
    ['10.0.0.0/33', /has "10.0.0.0\/33"/],
    ['fd00::/129', /has "fd00::\/129"/],
    ['0.0.0.0/0', /has "0.0.0.0\/0", a subnet of every address: that is the same as true/],
    ['10.0.0.0/8, ::/0', /has "::\/0", a subnet of every address/],
    // Every IPv4 client, written as IPv4-mapped IPv6 or as halves.
    ['::ffff:0.0.0.0/96', /has "::ffff:0.0.0.0\/96", a subnet wider than \/104/],
    ['0.0.0.0/1,128.0.0.0/1', /has "0.0.0.0\/1", a subnet wider than \/8/],
    ['2000::/3', /has "2000::\/3", a subnet wider than \/7/],
  ])('refuses TRUST_PROXY=%p naming the setting and why', (value, message) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(message);
  });

  it('takes addresses, IPv6 subnets and the range names', () => {
    expect(loadConfig({ TRUST_PROXY: 'loopback, uniquelocal, fd00::/8, 192.168.1.10' }).trustProxy).toBe('loopback, uniquelocal, fd00::/8, 192.168.1.10');
  });

  it('caps keyless payer bodies at 8 KB by default, below the keyed cap', () => {
    const config = loadConfig({});
    expect(config.PAYER_BODY_LIMIT_BYTES).toBe(8192);
    expect(config.BODY_LIMIT_BYTES).toBe(1024 * 1024);
  });
});

describe('database pool size', () => {
  it('is 10 on a database server and 4 on the embedded database unless DB_POOL_SIZE says otherwise', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://db/app' }).dbPoolSize).toBe(10);
    expect(loadConfig({}).dbPoolSize).toBe(4);
    expect(loadConfig({ DB_POOL_SIZE: '7' }).dbPoolSize).toBe(7);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/app', DB_POOL_SIZE: '20' }).dbPoolSize).toBe(20);
  });

  it('replaces connections after 300 s unless DB_CONNECTION_LIFETIME_SECONDS says otherwise (0: never)', () => {
    expect(loadConfig({}).DB_CONNECTION_LIFETIME_SECONDS).toBe(300);
    expect(loadConfig({ DB_CONNECTION_LIFETIME_SECONDS: '0' }).DB_CONNECTION_LIFETIME_SECONDS).toBe(0);
    expect(loadConfig({ DB_CONNECTION_LIFETIME_SECONDS: '3600' }).DB_CONNECTION_LIFETIME_SECONDS).toBe(3600);
    expect(() => loadConfig({ DB_CONNECTION_LIFETIME_SECONDS: '-1' })).toThrow(/DB_CONNECTION_LIFETIME_SECONDS/);
  });

  it('runs the retention job hourly unless PARTITION_RETENTION_SECONDS says otherwise (0: at start only)', () => {
    expect(loadConfig({}).PARTITION_RETENTION_SECONDS).toBe(3600);
    expect(loadConfig({ PARTITION_RETENTION_SECONDS: '0' }).PARTITION_RETENTION_SECONDS).toBe(0);
    expect(() => loadConfig({ PARTITION_RETENTION_SECONDS: '-1' })).toThrow(/PARTITION_RETENTION_SECONDS/);
    expect(() => loadConfig({ PARTITION_RETENTION_SECONDS: 'hourly' })).toThrow(/PARTITION_RETENTION_SECONDS/);
  });
});

describe('CLOCK_CONTROL', () => {
  const production = { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.test', SECRETS_KEY: Buffer.alloc(32, 3).toString('base64') };

  it('is on when unset outside production (development, tests, the embedded database) and off in production', () => {
    expect(loadConfig({}).CLOCK_CONTROL).toBe(true);
    expect(loadConfig({ NODE_ENV: 'development', DATABASE_URL: 'postgres://db/app' }).CLOCK_CONTROL).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).CLOCK_CONTROL).toBe(true);
    expect(loadConfig(production).CLOCK_CONTROL).toBe(false);
  });

  it('follows an explicit value, and refuses true in production', () => {
    expect(loadConfig({ CLOCK_CONTROL: 'false' }).CLOCK_CONTROL).toBe(false);
    expect(loadConfig({ CLOCK_CONTROL: 'true' }).CLOCK_CONTROL).toBe(true);
    expect(loadConfig({ ...production, CLOCK_CONTROL: 'false' }).CLOCK_CONTROL).toBe(false);
    expect(() => loadConfig({ ...production, CLOCK_CONTROL: 'true' })).toThrow(/CLOCK_CONTROL=true is for tests/);
  });

  it('reads as on or off in the start-up warning', () => {
    expect(loadConfig({}).relaxations).toContain('CLOCK_CONTROL on (test clocks can be moved: POST /test_helpers/clock)');
    expect(loadConfig({ CLOCK_CONTROL: 'false' }).relaxations).toContain('CLOCK_CONTROL off (set CLOCK_CONTROL=true to move test clocks)');
    expect(loadConfig({ CLOCK_CONTROL: 'false' }).relaxations.join('; ')).not.toMatch(/allowed/);
  });
});

describe('WORKER_PASSES_ON_DEMAND', () => {
  const production = { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.test', SECRETS_KEY: Buffer.alloc(32, 3).toString('base64') };

  it('is off unless set, in production too', () => {
    expect(loadConfig({}).WORKER_PASSES_ON_DEMAND).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test' }).WORKER_PASSES_ON_DEMAND).toBe(false);
    expect(loadConfig(production).WORKER_PASSES_ON_DEMAND).toBe(false);
    expect(loadConfig({ ...production, WORKER_PASSES_ON_DEMAND: 'false' }).WORKER_PASSES_ON_DEMAND).toBe(false);
  });

  it('follows true outside production, says so at start-up, and is refused with NODE_ENV=production', () => {
    const on = loadConfig({ NODE_ENV: 'test', WORKER_PASSES_ON_DEMAND: 'true' });
    expect(on.WORKER_PASSES_ON_DEMAND).toBe(true);
    expect(on.relaxations.join('; ')).toContain('WORKER_PASSES_ON_DEMAND on');
    expect(loadConfig({}).relaxations.join('; ')).not.toContain('WORKER_PASSES_ON_DEMAND');
    expect(() => loadConfig({ ...production, WORKER_PASSES_ON_DEMAND: 'true' })).toThrow(
      'WORKER_PASSES_ON_DEMAND=true is for tests and cannot be used with NODE_ENV=production',
    );
  });
});

/*
 * Settings refused at start-up. The service checks these before it starts anything (main.ts) and
 * ends with startupFailure's code and message; test/e2e/foundation/config.e2e-spec.ts starts the
 * built process on a few of them to see that a refusal really stops it that way.
 */

/** A start on `env` over the harness's settings, as far as loadConfig decides it (startOutcome). */
const start = (env: Record<string, string>) => startOutcome(loadConfig, env);

describe('kernel settings refused at start-up', () => {
  it('passes the base, so each refusal below is the one setting', () => {
    expect(start({})).toEqual({ code: 0, output: '' });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['DB_POOL_SIZE', '0'],
    ['LOG_LEVEL', 'loud'],
    ['NODE_ENV', 'staging'],
    ['DEMO_ORGANIZATION', 'maybe'],
    ['DB_PREPARED_STATEMENTS', 'sometimes'],
    ['DB_CONNECTION_LIFETIME_SECONDS', '-5'],
    ['BODY_LIMIT_BYTES', '1.5'],
    ['DOCS_ENABLED', 'maybe'],
    ['PUBLIC_BASE_URL', 'api.example.com'],
    ['ADMIN_AUTH_FAILURES', '0'],
    ['IDEMPOTENCY_TTL_HOURS', '10000000000'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(refusalFacts(start({ [name]: value }), name, value)).toEqual(REFUSED);
  });

  it.each(['ADMIN_API_TOKEN', 'METRICS_TOKEN'])('refuses %s too short, naming it without showing the value', (name) => {
    const { code, output } = start({ [name]: 'short-secret' });
    expect(code).toBe(1);
    expect(output).toMatch(new RegExp(`^\\s+${name}=<12 characters, not shown>: `, 'm'));
    expect(output).not.toContain('short-secret');
  });

  it.each(['ADMIN_API_TOKEN', 'METRICS_TOKEN'])('refuses %s with a space (no header could carry it), without showing the value', (name) => {
    const { code, output } = start({ [name]: 'correct horse battery staple' });
    expect(code).toBe(1);
    expect(output).toMatch(new RegExp(`^\\s+${name}=<28 characters, not shown>: must be at least 16 characters, without spaces`, 'm'));
    expect(output).not.toContain('horse');
  });

  it('refuses to start in production without PUBLIC_BASE_URL, naming it', () => {
    const { code, output } = start({ NODE_ENV: 'production' });
    expect(code).toBe(1);
    expect(output).toMatch(/^\s+PUBLIC_BASE_URL is required with NODE_ENV=production/m);
    expect(output).not.toContain('listening');
  });

  it('refuses WORKER_PASSES_ON_DEMAND=true in production, with exit code 1, before it listens', () => {
    const production = { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.test', SECRETS_KEY: Buffer.alloc(32, 3).toString('base64') };
    expect(start(production)).toEqual({ code: 0, output: '' });
    const { code, output } = start({ ...production, WORKER_PASSES_ON_DEMAND: 'true' });
    expect(code).toBe(1);
    expect(output).toMatch(/^\s+WORKER_PASSES_ON_DEMAND=true is for tests and cannot be used with NODE_ENV=production/m);
    expect(output).not.toContain('listening');
  });

  it('refuses a TLS certificate without its key', () => {
    const { code, output } = start({ TLS_CERT_FILE: '/tmp/cert.pem' });
    expect(code).toBe(1);
    expect(output).toMatch(/TLS_CERT_FILE and TLS_KEY_FILE must be set together/);
  });
});
