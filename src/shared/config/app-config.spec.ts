import { loadConfig } from './app-config';

describe('client address and body settings', () => {
  it('trusts only loopback to set X-Forwarded-* by default', () => {
    const config = loadConfig({});
    expect(config.TRUST_PROXY).toBe('loopback');
    expect(config.trustProxy).toBe('loopback');
  });

  it.each([
    ['10.0.0.0/8, 127.0.0.1', '10.0.0.0/8, 127.0.0.1'],
    ['1', 1],
    ['2', 2],
    ['false', false],
  ])('reads TRUST_PROXY=%p as %p', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
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
