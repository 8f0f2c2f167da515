import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { RatesModule } from './rates.module';
import { loadRatesConfig } from './rates.config';

/** Its id kinds; the declaration below adds them to the kernel's IdKind. */
const ID_KINDS = ['rates'] as const;

declare module '../../shared/ids/ids' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface IdKinds extends Record<(typeof ID_KINDS)[number], true> {}
}

/** The rates module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'rates',
  nestModule: RatesModule,
  uses: [],
  owner: '@catalog-team',
  docs: 'docs/catalog.md',
  loadConfig: loadRatesConfig,
  idKinds: ID_KINDS,
  settings: [
    {
      name: 'RATE_SOURCES',
      section: 'Exchange rates',
      default: '',
      description:
        'Live rate sources in order: coinbase, kraken, coingecko, http(s) URLs; none: off; unset: coinbase,kraken,coingecko in production, none otherwise.',
      readme: {
        default: '(unset)',
        meaning:
          'Live exchange-rate sources in order, comma-separated: `coinbase`, `kraken`, `coingecko` and `http(s)://` URLs answering the `rates:import` shape; `none` turns them off. Unset (or empty, like every setting): `coinbase,kraken,coingecko` with `NODE_ENV=production`, none otherwise. See "Live exchange rates".',
      },
    },
    {
      name: 'RATE_SOURCE_COINBASE_URL',
      section: 'Exchange rates',
      default: 'https://api.coinbase.com',
      description: "Base URL of Coinbase's public API (the coinbase source).",
      readme: {
        default: '`https://api.coinbase.com`',
        meaning: 'Base URL of the `coinbase` source (asks `GET /v2/exchange-rates?currency=USD`).',
      },
    },
    {
      name: 'RATE_SOURCE_KRAKEN_URL',
      section: 'Exchange rates',
      default: 'https://api.kraken.com',
      description: "Base URL of Kraken's public API (the kraken source).",
      readme: {
        default: '`https://api.kraken.com`',
        meaning: 'Base URL of the `kraken` source (asks `GET /0/public/Ticker?pair=...`).',
      },
    },
    {
      name: 'RATE_SOURCE_COINGECKO_URL',
      section: 'Exchange rates',
      default: 'https://api.coingecko.com',
      description: "Base URL of CoinGecko's public API (the coingecko source).",
      readme: {
        default: '`https://api.coingecko.com`',
        meaning: 'Base URL of the `coingecko` source (asks `GET /api/v3/simple/price?ids=...&vs_currencies=usd&include_last_updated_at=true`).',
      },
    },
    {
      name: 'RATES_REFRESH_SECONDS',
      section: 'Exchange rates',
      default: '',
      description: 'How often the sources are asked, in seconds (1 or more); unset: 60.',
      readme: {
        default: '(unset)',
        meaning: 'How often the sources are asked, in seconds (1 or more); unset: 60. Used only with sources.',
      },
    },
    {
      name: 'RATES_MAX_AGE_SECONDS',
      section: 'Exchange rates',
      default: '600',
      description: 'With sources, live mode refuses (503 rates_unavailable) rates older than this many seconds (10 or more).',
      readme: {
        default: '`600`',
        meaning:
          'With sources: wherever a live price is fixed (invoice and quote creation with the rates of every live payment method, a currency change, a payment address after the rate lock, a refund payout at `rate: current`, a period invoice) rates older than this (10 or more) answer 503 `rates_unavailable`, and a source\'s answer older than this is skipped. See "Live exchange rates".',
      },
    },
    {
      name: 'RATE_SOURCE_TIMEOUT_MS',
      section: 'Exchange rates',
      default: '5000',
      description: 'Time one source has to answer, in milliseconds.',
      readme: {
        default: '`5000`',
        meaning: 'Time one source has to answer (connect, send, whole body), in milliseconds (100 to 120000).',
      },
    },
    {
      name: 'RATES_MAX_SPREAD',
      section: 'Exchange rates',
      default: '0.05',
      description:
        'With three answers or more for a currency, an answer farther than this share from their median is dropped; two answers must be this close (0 to 1).',
      readme: {
        default: '`0.05`',
        meaning:
          'With three answers or more for a currency, an answer farther than this share from their median is dropped and the median of the rest is taken (at least two must remain); two answers must be within this share of each other (the lower one is taken). 0 to 1.',
      },
    },
    {
      name: 'RATES_MAX_JUMP',
      section: 'Exchange rates',
      default: '0.2',
      description: "A currency's lone answer is dropped when it differs by more than this share from a rate a source gave in the last hour (0 to 1).",
      readme: {
        default: '`0.2`',
        meaning:
          "A currency's lone answer is not taken when it differs by more than this share from a rate of that currency a source gave in the last hour. 0 to 1.",
      },
    },
    {
      name: 'RATES_HISTORY_RETENTION_DAYS',
      section: 'Exchange rates',
      default: '30',
      description:
        'Days of rate history kept (0: all); snapshots an invoice, payment or refund holds, and those in force within the last day, are always kept.',
      readme: {
        default: '`30`',
        meaning:
          'Days of rate history kept (0 to 36500; 0 keeps it all). The history is partitioned by day; the retention job (`PARTITION_RETENTION_SECONDS`) drops a day this many days after it ended, first copying out the snapshots an invoice, payment or refund holds and those in force at some moment of the last day, so every stored price still shows its rates. See docs/performance.md, "Tables that stay small".',
      },
    },
  ],
} satisfies ModuleManifest;
