import { ConfigError } from '../../shared/config/app-config';
import { REFUSED, refusalFacts, startOutcome } from '../../shared/config/start-outcome';
import { loadRatesConfig } from './rates.config';

describe('rates settings', () => {
  it('asks coinbase, kraken and coingecko at their public hosts by default in production, nothing otherwise', () => {
    expect(loadRatesConfig({ NODE_ENV: 'production' }).sources).toEqual([
      { kind: 'coinbase', name: 'coinbase', baseUrl: 'https://api.coinbase.com' },
      { kind: 'kraken', name: 'kraken', baseUrl: 'https://api.kraken.com' },
      { kind: 'coingecko', name: 'coingecko', baseUrl: 'https://api.coingecko.com' },
    ]);
    expect(loadRatesConfig({ NODE_ENV: 'development' }).sources).toEqual([]);
    expect(loadRatesConfig({}).hasSources).toBe(false);
    expect(loadRatesConfig({ NODE_ENV: 'production', RATE_SOURCES: 'none' }).hasSources).toBe(false);
  });

  it('keeps the order given, base URL overrides and URL sources', () => {
    const config = loadRatesConfig({
      RATE_SOURCES: 'http://127.0.0.1:9/rates.json, kraken,coinbase',
      RATE_SOURCE_KRAKEN_URL: 'http://127.0.0.1:8/',
    });
    expect(config.sources).toEqual([
      { kind: 'url', name: 'http://127.0.0.1:9/rates.json', url: 'http://127.0.0.1:9/rates.json' },
      { kind: 'kraken', name: 'kraken', baseUrl: 'http://127.0.0.1:8' },
      { kind: 'coinbase', name: 'coinbase', baseUrl: 'https://api.coinbase.com' },
    ]);
    expect(config.refreshSeconds).toBe(60);
    expect(config.RATES_MAX_AGE_SECONDS).toBe(600);
    expect(config.maxSpread.toFixed()).toBe('0.05');
    expect(config.maxJump.toFixed()).toBe('0.2');
    expect(config.RATES_HISTORY_RETENTION_DAYS).toBe(30);
    expect(loadRatesConfig({ RATES_HISTORY_RETENTION_DAYS: '0' }).RATES_HISTORY_RETENTION_DAYS).toBe(0);
  });

  it("names a feed without its URL's credentials (user, password, query), keeping feeds that differ only there apart", () => {
    const config = loadRatesConfig({ RATE_SOURCES: 'https://feed.example/rates?key=k3y,https://feed.example/rates?key=other,https://u:pw@feed.example/r' });
    const names = config.sources.map((s) => s.name);
    expect(config.sources.map((s) => (s.kind === 'url' ? s.url : null))).toEqual([
      'https://feed.example/rates?key=k3y',
      'https://feed.example/rates?key=other',
      'https://u:pw@feed.example/r',
    ]);
    expect(names[0]).toMatch(/^https:\/\/feed\.example\/rates#[0-9a-f]{8}$/);
    expect(names[2]).toMatch(/^https:\/\/feed\.example\/r#[0-9a-f]{8}$/);
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).not.toMatch(/k3y|other|pw/);
  });

  it('reads the spread and the jump as exact decimals', () => {
    const config = loadRatesConfig({ RATES_MAX_SPREAD: '0.01', RATES_MAX_JUMP: '1' });
    expect(config.maxSpread.toFixed()).toBe('0.01');
    expect(config.maxJump.toFixed()).toBe('1');
  });

  it.each([
    [{ RATE_SOURCES: 'binance' }, 'RATE_SOURCES'],
    [{ RATE_SOURCES: 'coinbase,,kraken' }, 'RATE_SOURCES'],
    [{ RATE_SOURCE_COINGECKO_URL: 'api.coingecko.com' }, 'RATE_SOURCE_COINGECKO_URL'],
    [{ RATES_REFRESH_SECONDS: '0' }, 'RATES_REFRESH_SECONDS'],
    [{ RATES_MAX_AGE_SECONDS: '9' }, 'RATES_MAX_AGE_SECONDS'],
    [{ RATES_MAX_SPREAD: '1.5' }, 'RATES_MAX_SPREAD'],
    [{ RATES_MAX_SPREAD: '5%' }, 'RATES_MAX_SPREAD'],
    [{ RATES_MAX_JUMP: '-0.2' }, 'RATES_MAX_JUMP'],
    [{ RATES_MAX_JUMP: '1e-1' }, 'RATES_MAX_JUMP'],
  ])('refuses %j naming %s', (env, name) => {
    expect(() => loadRatesConfig(env)).toThrow(ConfigError);
    expect(() => loadRatesConfig(env)).toThrow(name);
  });

  it('takes the short settings tests use', () => {
    const config = loadRatesConfig({ RATES_REFRESH_SECONDS: '1', RATES_MAX_AGE_SECONDS: '10' });
    expect(config.refreshSeconds).toBe(1);
    expect(config.RATES_MAX_AGE_SECONDS).toBe(10);
  });
});

/*
 * Settings refused at start-up. The service checks these before it starts anything (main.ts) and
 * ends with startupFailure's code and message; test/e2e/foundation/config.e2e-spec.ts starts the
 * built process on a few of them to see that a refusal really stops it that way.
 */

/** A start on `env` over the harness's settings, as far as loadRatesConfig decides it (startOutcome). */
const start = (env: Record<string, string>) => startOutcome(loadRatesConfig, env);

describe('rates settings refused at start-up', () => {
  it('passes the base, so each refusal below is the one setting', () => {
    expect(start({})).toEqual({ code: 0, output: '' });
  });

  it.each([
    ['RATE_SOURCES', 'binance'],
    ['RATES_REFRESH_SECONDS', '0'],
    ['RATES_MAX_AGE_SECONDS', '5'],
    ['RATES_HISTORY_RETENTION_DAYS', '-1'],
    ['RATES_HISTORY_RETENTION_DAYS', 'month'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(refusalFacts(start({ [name]: value }), name, value)).toEqual(REFUSED);
  });
});
