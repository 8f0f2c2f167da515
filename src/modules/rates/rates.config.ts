import { createHash } from 'node:crypto';
import { plainToInstance, Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min, validateSync } from 'class-validator';
import { ConfigError } from '../../shared/config/app-config';
import { toInt } from '../../shared/config/env-transforms';
import { type Amount, Money } from '../../shared/money/money';
import { settingErrorLines } from '../../shared/config/setting-errors';

/** The exchanges the service knows by name; any other source is an http(s) URL answering the rates-file shape. */
export const NAMED_RATE_SOURCES = ['coinbase', 'kraken', 'coingecko'] as const;
export type NamedRateSource = (typeof NAMED_RATE_SOURCES)[number];

/** A configured source: one of the named exchanges (at its base URL) or a URL of the rates-file shape. */
export type RateSourceSetting = { kind: NamedRateSource; name: NamedRateSource; baseUrl: string } | { kind: 'url'; name: string; url: string };

const SOURCE_ITEM = '(coinbase|kraken|coingecko|https?://[^\\s,]+)';
/** A decimal from 0 to 1 (a share, as 0.05). */
const FRACTION = /^\s*(0(\.\d{1,30})?|1(\.0{1,30})?)\s*$/;
const HTTP_URL = /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/;

/**
 * Settings of live exchange rates (decisions.md §21), read from the environment and checked at
 * start-up. Without sources the service prices from the rates table (the shipped snapshot and
 * `rates:import`), as before; with sources it refreshes the table from them and live mode refuses
 * rates older than RATES_MAX_AGE_SECONDS.
 */
export class RatesConfig {
  /** development, production or test (read here for the default of RATE_SOURCES). */
  @IsOptional()
  @IsString()
  NODE_ENV?: string;

  /**
   * Ordered, comma-separated sources: coinbase, kraken, coingecko or an http(s):// URL answering
   * `{"rates": {"BITCOIN": "95000.12", ...}, "taken_at"?: ...}`; `none` turns sources off. Unset
   * (or empty, like every setting): coinbase,kraken,coingecko in production, none otherwise.
   */
  @IsOptional()
  @Matches(new RegExp(`^\\s*(none|${SOURCE_ITEM}(\\s*,\\s*${SOURCE_ITEM})*)\\s*$`), {
    message: 'must be none, or a comma-separated list of coinbase, kraken, coingecko and http(s):// URLs',
  })
  RATE_SOURCES?: string;

  /** Base URL of Coinbase's public API (the source asks GET /v2/exchange-rates?currency=USD). */
  @Matches(HTTP_URL, { message: 'must be an http(s) URL without query or fragment' })
  RATE_SOURCE_COINBASE_URL = 'https://api.coinbase.com';

  /** Base URL of Kraken's public API (the source asks GET /0/public/Ticker?pair=...). */
  @Matches(HTTP_URL, { message: 'must be an http(s) URL without query or fragment' })
  RATE_SOURCE_KRAKEN_URL = 'https://api.kraken.com';

  /** Base URL of CoinGecko's public API (the source asks GET /api/v3/simple/price?ids=...). */
  @Matches(HTTP_URL, { message: 'must be an http(s) URL without query or fragment' })
  RATE_SOURCE_COINGECKO_URL = 'https://api.coingecko.com';

  /** How often the sources are asked, in seconds; unset: 60 (only used when there are sources). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400)
  RATES_REFRESH_SECONDS?: number;

  /** With sources, live mode prices only with rates at most this old (seconds); older ones answer 503 rates_unavailable. */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(31_536_000)
  RATES_MAX_AGE_SECONDS = 600;

  /**
   * With three answers or more for a currency, an answer farther than this from their median
   * (|a - m| / m) is dropped; two answers must be this close to each other (decimal, 0 to 1).
   */
  @Matches(FRACTION, { message: 'must be a decimal from 0 to 1, such as 0.05' })
  RATES_MAX_SPREAD = '0.05';

  /**
   * A currency's lone answer is dropped when it differs by more than this (|a - r| / r) from a rate
   * of that currency taken from a source in the last hour (decimal, 0 to 1).
   */
  @Matches(FRACTION, { message: 'must be a decimal from 0 to 1, such as 0.2' })
  RATES_MAX_JUMP = '0.2';

  /** Time one source has to answer (connect, send, whole body), in milliseconds. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(120_000)
  RATE_SOURCE_TIMEOUT_MS = 5_000;

  /**
   * Days of rate history kept (0: all of it): the retention job drops each day of snapshots this many days
   * after it ended, keeping the snapshots an invoice, payment or refund holds and those in force within the last day.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(36_500)
  RATES_HISTORY_RETENTION_DAYS = 30;

  /** The sources in order (empty: off). */
  get sources(): RateSourceSetting[] {
    const text = this.RATE_SOURCES?.trim() ? this.RATE_SOURCES : this.NODE_ENV === 'production' ? NAMED_RATE_SOURCES.join(',') : 'none';
    if (text.trim() === 'none') return [];
    const out: RateSourceSetting[] = [];
    for (const item of text.split(',').map((s) => s.trim())) {
      if (out.some((s) => (s.kind === 'url' ? s.url : s.name) === item)) continue;
      if (item === 'coinbase') out.push({ kind: 'coinbase', name: 'coinbase', baseUrl: trimSlash(this.RATE_SOURCE_COINBASE_URL) });
      else if (item === 'kraken') out.push({ kind: 'kraken', name: 'kraken', baseUrl: trimSlash(this.RATE_SOURCE_KRAKEN_URL) });
      else if (item === 'coingecko') out.push({ kind: 'coingecko', name: 'coingecko', baseUrl: trimSlash(this.RATE_SOURCE_COINGECKO_URL) });
      else out.push({ kind: 'url', name: feedName(item), url: item });
    }
    return out;
  }

  get hasSources(): boolean {
    return this.sources.length > 0;
  }

  get maxSpread(): Amount {
    return new Money(this.RATES_MAX_SPREAD.trim());
  }

  get maxJump(): Amount {
    return new Money(this.RATES_MAX_JUMP.trim());
  }

  get refreshSeconds(): number {
    return this.RATES_REFRESH_SECONDS ?? 60;
  }
}

/**
 * How a feed is named in logs, metrics, preflight checks and stored rates: its URL without a user, a
 * password, a query or a fragment (where a feed's credentials go), with a short digest of the whole URL in
 * their place so two feeds that differ only there stay apart. A URL with none of them is its own name.
 */
export function feedName(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (!parsed.username && !parsed.password && !parsed.search && !parsed.hash) return url;
  const digest = createHash('sha256').update(url).digest('hex').slice(0, 8);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}#${digest}`;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

const OPTIONAL = ['NODE_ENV', 'RATE_SOURCES', 'RATES_REFRESH_SECONDS'];

export function loadRatesConfig(env: NodeJS.ProcessEnv = process.env): RatesConfig {
  const raw: Record<string, unknown> = {};
  for (const name of [...Object.keys(new RatesConfig()), ...OPTIONAL]) {
    if (env[name] !== undefined && env[name] !== '') raw[name] = env[name];
  }
  const config = plainToInstance(RatesConfig, raw);
  const errors = validateSync(config, { whitelist: false });
  if (errors.length) {
    const lines = settingErrorLines(errors);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return config;
}
