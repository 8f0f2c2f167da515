import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, sharedDatabase, startIsolatedService } from '../../support/isolated';
import { D, r30 } from '../../support/money';
import { withClient } from '../../support/pg';
import { ADMIN_TOKEN, runCli, RunningServer, startServer } from '../../support/server';
import { eventually } from '../../support/webhook-receiver';
import { Api } from '../../support/api';
import { FakeExchange, fakeExchange, seconds, waitFor } from './rate-source-helpers';

/**
 * Live rates (decisions.md §21) against exchanges we cannot reach from here: each one is a local HTTP
 * server answering in the shape its public API documents (Coinbase's /v2/exchange-rates, Kraken's
 * /0/public/Ticker, CoinGecko's /api/v3/simple/price) plus a URL source in the rates-file shape.
 * The service asks them every second and refuses rates older than 10 seconds in live mode.
 */

describe('live exchange rates with a fallback', () => {
  // What each fake exchange serves; tests change these and wait for the next refresh.
  // Bitcoin from all four, within 5 % of each other; each other currency from one source only.
  const coinbase = { BTC: '0.00001', EUR: '0.8' } as Record<string, string>;
  const kraken = { XXBTZUSD: '99000.5', SOLUSD: '140.25' } as Record<string, string>;
  const coingecko = { bitcoin: '98000.25', binancecoin: '900.5', ageSeconds: 5 } as Record<string, string | number>;
  const feed = { rates: { BITCOIN: '97000', JPY: '0.0065' } as Record<string, string>, ageSeconds: 0 };

  let exchanges: { coinbase: FakeExchange; kraken: FakeExchange; coingecko: FakeExchange; feed: FakeExchange };
  let service: IsolatedService;
  let org: Awaited<ReturnType<IsolatedService['createOrg']>>;

  beforeAll(async () => {
    exchanges = {
      // https://api.coinbase.com/v2/exchange-rates?currency=USD: units of each currency per US dollar, as text
      coinbase: await fakeExchange(() => ({ data: { currency: 'USD', rates: { ...coinbase, USD: '1.0' } } })),
      // https://api.kraken.com/0/public/Ticker?pair=...: per pair (Kraken's names), c = [last trade price, lot volume]
      kraken: await fakeExchange(() => ({
        error: [],
        result: Object.fromEntries(
          Object.entries(kraken).map(([pair, last]) => [pair, { a: [last, '1', '1.000'], b: [last, '1', '1.000'], c: [last, '0.01000000'], v: ['1', '2'] }]),
        ),
      })),
      // https://api.coingecko.com/api/v3/simple/price?ids=...&vs_currencies=usd&include_last_updated_at=true: JSON numbers
      coingecko: await fakeExchange(() => {
        const updated = seconds(Date.now()) - Number(coingecko.ageSeconds);
        return `{"bitcoin":{"usd":${coingecko.bitcoin},"last_updated_at":${updated}},"binancecoin":{"usd":${coingecko.binancecoin},"last_updated_at":${updated}}}`;
      }),
      // a deployment's own feed in the rates:import shape
      feed: await fakeExchange(() => ({ taken_at: new Date(Date.now() - feed.ageSeconds * 1000).toISOString(), rates: feed.rates })),
    };
    service = await startIsolatedService({
      RATE_SOURCES: `coinbase,kraken,coingecko,${exchanges.feed.url}/rates.json`,
      RATE_SOURCE_COINBASE_URL: exchanges.coinbase.url,
      RATE_SOURCE_KRAKEN_URL: `${exchanges.kraken.url}/`,
      RATE_SOURCE_COINGECKO_URL: exchanges.coingecko.url,
      RATES_REFRESH_SECONDS: '1',
      RATES_MAX_AGE_SECONDS: '10',
      RATE_SOURCE_TIMEOUT_MS: '500',
    });
    org = await service.createOrg();
  }, 90_000);

  afterAll(async () => {
    await service?.stop();
    await Promise.all(Object.values(exchanges ?? {}).map((e) => e.close()));
  });

  const btcQuote = { currency: 'USD', items: [{ type: 'PAYMENT_INTENT', currency: 'BITCOIN', price: '1' }] };

  /** Waits until a live quote of one bitcoin is `usd` (a refresh after the last change has landed). */
  const liveBitcoinAt = (usd: string) =>
    waitFor(`a live bitcoin at ${usd} USD`, async () => {
      const res = await org.live.post('/pay/quote', btcQuote);
      return res.status === 200 && res.body.data.total.price === r30(usd) ? true : null;
    });

  const createLiveInvoice = async (items: unknown[], currency = 'USD') => {
    const { id } = expectSuccess(await org.live.post('/invoices/create', { items, currency }), 201);
    return expectSuccess(await org.live.post(`/invoices/${id}`, {}));
  };

  /** Each currency's source in the snapshot an invoice was priced with, as stored. */
  const sourcesOf = (invoiceId: string) =>
    withClient(service.databaseUrl!, async (c) => {
      const { rows } = await c.query(
        `SELECT r.currency, r.source, r.taken_at FROM exchange_rates r JOIN invoices i ON i.rates_snapshot_id = r.snapshot_id WHERE i.id = $1`,
        [invoiceId],
      );
      return Object.fromEntries(rows.map((r: { currency: string; source: string }) => [r.currency, r.source]));
    });

  const liveRows = () =>
    withClient(service.databaseUrl!, async (c) => {
      const { rows } = await c.query(`SELECT count(*)::int AS n FROM invoices WHERE organization_id = $1 AND mode = 'live'`, [org.id]);
      return rows[0].n as number;
    });

  /** Bitcoin's rate and source in the newest snapshot. */
  const newestBitcoin = () =>
    withClient(service.databaseUrl!, async (c) => {
      const { rows } = await c.query(
        `SELECT r.usd_rate::text AS rate, r.source FROM exchange_rates r
           JOIN (SELECT id FROM rate_snapshots ORDER BY taken_at DESC, id DESC LIMIT 1) s ON s.id = r.snapshot_id
          WHERE r.currency = 'BITCOIN'`,
      );
      return rows[0] as { rate: string; source: string };
    });

  /** Waits until a refresh stores bitcoin at `usd` from `source`, and a live quote prices with it. */
  const bitcoinFrom = async (usd: string, source: string) => {
    await waitFor(`bitcoin at ${usd} from ${source}`, async () => {
      const newest = await newestBitcoin();
      return newest.source === source && new D(newest.rate).eq(usd) ? true : null;
    });
    await liveBitcoinAt(usd);
  };

  it('asks each exchange in its documented request shape', async () => {
    await liveBitcoinAt('98000.25');
    expect(exchanges.coinbase.seen).toContain('/v2/exchange-rates?currency=USD');
    expect(exchanges.kraken.seen[0]).toMatch(/^\/0\/public\/Ticker\?pair=XBTUSD,ETHUSD,/);
    expect(exchanges.coingecko.seen[0]).toMatch(/^\/api\/v3\/simple\/price\?ids=bitcoin,.*&vs_currencies=usd&include_last_updated_at=true$/);
    expect(exchanges.feed.seen[0]).toBe('/rates.json');
  });

  it("prices a live invoice from the median of the sources, leaves out one off by a factor of millions, and records each rate's sources", async () => {
    const feedName = `${exchanges.feed.url}/rates.json`;
    // 97000, 98000.25, 99000.5, 100000 (1 / 0.00001): the lower middle of four, all within 5 % of it
    await bitcoinFrom('98000.25', `median:coinbase,kraken,coingecko,${feedName}`);
    const first = await createLiveInvoice([{ type: 'PAYMENT_INTENT', currency: 'BITCOIN', price: '1' }]);
    expect(first.price).toBe(r30('98000.25'));
    expect(first.price_usd).toBe(r30('98000.25'));

    // Coinbase answers a price a million times too high (1 / 0.00000000001 = 10^11) while the others move
    coinbase.BTC = '0.00000000001';
    kraken.XXBTZUSD = '96000';
    coingecko.bitcoin = '95500.5';
    feed.rates.BITCOIN = '95000';
    // median 95500.5 of the four; 10^11 is dropped, the median of the other three taken
    await bitcoinFrom('95500.5', `median:kraken,coingecko,${feedName}`);
    const second = await createLiveInvoice([
      { type: 'PAYMENT_INTENT', currency: 'BITCOIN', price: '0.5' },
      { type: 'PAYMENT_INTENT', currency: 'EUR', price: '100' },
    ]);
    // 0.5 x 95500.5 + 100 x (1 / 0.8)
    expect(second.price_usd).toBe(r30(new D('47750.25').add('125')));

    const sources = await sourcesOf(second.id);
    expect(sources.BITCOIN).toBe(`median:kraken,coingecko,${feedName}`);
    // a currency only one source serves is taken from it
    expect(sources.EUR).toBe('coinbase');
    expect(sources.SOLANA).toBe('kraken');
    expect(sources.BINANCE_COIN).toBe('coingecko');
    expect(sources.JPY).toBe(feedName);
    expect(sources.USD).toBe('fixed');
    // nobody served CHF: it is carried from the shipped snapshot with its time and source
    expect(sources.CHF).toBe('bundled');

    // the drop is logged and counted for the source that gave it
    const metrics = await fetch(`${service.server.baseUrl}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/exchange_rate_answers_dropped_total\{source="coinbase",reason="outlier"\} [1-9]/);
    const dropped = service.server
      .output()
      .split('\n')
      .filter((l) => l.includes('rate answer dropped'))
      .map((l) => JSON.parse(l));
    expect(dropped).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'coinbase', currency: 'BITCOIN', reason: 'outlier', rate: '100000000000', against: '95500.5' }),
      ]),
    );
    coinbase.BTC = '0.00001';
    kraken.XXBTZUSD = '99000.5';
    coingecko.bitcoin = '98000.25';
    feed.rates.BITCOIN = '97000';
    await bitcoinFrom('98000.25', `median:coinbase,kraken,coingecko,${feedName}`);
  });

  it('leaves out a source that errs, times out or answers zero, and takes what the others agree on', async () => {
    const feedName = `${exchanges.feed.url}/rates.json`;
    await liveBitcoinAt('98000.25');

    // Coinbase errs: the median of the other three
    exchanges.coinbase.behaviour = 'error';
    await bitcoinFrom('98000.25', `median:kraken,coingecko,${feedName}`);
    const onError = await createLiveInvoice([{ type: 'PAYMENT_INTENT', currency: 'BITCOIN', price: '2' }]);
    expect(onError.price_usd).toBe(r30('196000.5'));
    expect((await sourcesOf(onError.id)).BITCOIN).toBe(`median:kraken,coingecko,${feedName}`);

    // Kraken times out
    exchanges.coinbase.behaviour = 'answer';
    exchanges.kraken.behaviour = 'hang';
    await bitcoinFrom('98000.25', `median:coinbase,coingecko,${feedName}`);
    exchanges.kraken.behaviour = 'answer';

    // Coinbase and Kraken answer zero: two answers left (CoinGecko's, read from its JSON number exactly, and
    // the feed's), 1.03 % apart: the lower one
    coinbase.BTC = '0';
    kraken.XXBTZUSD = '0.00000';
    await bitcoinFrom('97000', `median:coingecko,${feedName}`);
    const onZero = await createLiveInvoice([{ type: 'PAYMENT_INTENT', currency: 'BITCOIN', price: '1' }]);
    expect(onZero.price_usd).toBe(r30('97000'));

    // CoinGecko's price is stale too (older than 10 s): the feed's alone, close to the recent rates
    coingecko.ageSeconds = 60;
    await bitcoinFrom('97000', feedName);
    kraken.XXBTZUSD = '99000.5';
    coinbase.BTC = '0.00001';
    coingecko.ageSeconds = 5;
    await bitcoinFrom('98000.25', `median:coinbase,kraken,coingecko,${feedName}`);
  });

  it('answers 503 rates_unavailable on live invoice and quote creation when every rate is stale, storing nothing; test mode still prices', async () => {
    await liveBitcoinAt('98000.25');
    const pending = await createLiveInvoice([{ type: 'PAYMENT_INTENT', currency: 'EUR', price: '10' }], 'EUR');
    const before = await liveRows();

    // every source stops giving usable bitcoin prices: errors, a timeout, stale times
    exchanges.coinbase.behaviour = 'error';
    exchanges.kraken.behaviour = 'hang';
    coingecko.ageSeconds = 3600;
    feed.ageSeconds = 3600;
    const refused = await waitFor('live pricing to refuse', async () => {
      const res = await org.live.post('/pay/quote', btcQuote);
      return res.status === 503 ? res : null;
    });
    const error = expectError(refused, 503, { code: 'rates_unavailable' });
    expect(error.error).toMatch(/BITCOIN/);
    // retry when the sources are asked again: RATES_REFRESH_SECONDS
    expect(refused.headers.get('retry-after')).toBe('1');

    const invoiceRefused = await org.live.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'BITCOIN', price: '1' }] });
    expectError(invoiceRefused, 503, { code: 'rates_unavailable' });
    expect(invoiceRefused.headers.get('retry-after')).toBe('1');
    expectError(await org.live.post('/pay/quote', { currency: 'BITCOIN', items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }] }), 503, {
      code: 'rates_unavailable',
    });
    // a live currency change locks new prices in too: refused, the invoice unchanged
    expectError(await org.live.put(`/invoices/${pending.id}`, { currency: 'BITCOIN' }), 503, { code: 'rates_unavailable' });
    expect(expectSuccess(await org.live.post(`/invoices/${pending.id}`, {})).currency).toBe('EUR');
    expect(await liveRows()).toBe(before);
    // USD needs no rate
    expectSuccess(await org.live.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '5' }] }), 201);

    // test mode prices from the table as it stands (the last rate taken)
    const { id } = expectSuccess(
      await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'BITCOIN', price: '1' }], currency: 'USD' }),
      201,
    );
    expect(expectSuccess(await org.test.post(`/invoices/${id}`, {})).price_usd).toBe(r30('98000.25'));

    // the metric shows each rate's age and source
    const metrics = await fetch(`${service.server.baseUrl}/metrics`).then((r) => r.text());
    const age = /exchange_rate_age_seconds\{currency="BITCOIN",source="median:coinbase,kraken,coingecko,[^"]+"\} (\d+(\.\d+)?)/.exec(metrics);
    expect(age).not.toBeNull();
    expect(Number(age![1])).toBeGreaterThan(10);
    expect(metrics).toMatch(/exchange_rate_source_failures_total\{source="coinbase"\} [1-9]/);
    // and the log says which source failed and how old the oldest rate is
    const lines = service.server
      .output()
      .split('\n')
      .filter((l) => l.includes('rates refreshed'));
    expect(lines.length).toBeGreaterThan(0);
    const last = JSON.parse(lines[lines.length - 1]);
    expect(last.failed).toEqual(
      expect.arrayContaining([
        { source: 'coinbase', error: 'HTTP 503: error unavailable: try later' },
        { source: 'kraken', error: 'timed out' },
      ]),
    );
    expect(last.oldest_rate.ageSeconds).toBeGreaterThan(10);

    // a source answering again ends it (alone, within RATES_MAX_JUMP of the recent rates)
    exchanges.coinbase.behaviour = 'answer';
    await liveBitcoinAt('100000');
  });
});

describe('live rates with several instances on one database', () => {
  // RATES_REFRESH_SECONDS: long enough that two instances half a period apart never tick together on a busy machine
  const PERIOD_S = 2;
  const feed = { BITCOIN: '70000' };
  let source: FakeExchange;
  let db: Awaited<ReturnType<typeof sharedDatabase>>;
  const instances: RunningServer[] = [];

  beforeAll(async () => {
    source = await fakeExchange(() => ({ taken_at: new Date().toISOString(), rates: { ...feed } }));
    db = await sharedDatabase();
  });

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await db?.drop();
    await source?.close();
  });

  it('asks the sources about once per period between them, and each prices live invoices from the fresh rates; one takes over when the other stops', async () => {
    const env = { RATE_SOURCES: `${source.url}/rates.json`, RATES_REFRESH_SECONDS: String(PERIOD_S), RATES_MAX_AGE_SECONDS: '10' };
    for (let i = 0; i < 2; i++) instances.push(await startServer({ databaseUrl: db.url, env }));
    const [first, second] = instances;
    const created = await new Api(null, first.baseUrl).post('/admin/organizations', { name: 'Two instances' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
    const key = expectSuccess(created, 201).live_key as string;
    const live = instances.map((i) => new Api(key, i.baseUrl));

    const btcQuote = { currency: 'USD', items: [{ type: 'PAYMENT_INTENT', currency: 'BITCOIN', price: '1' }] };
    const bitcoinAt = (api: Api, usd: string) =>
      waitFor(`a live bitcoin at ${usd} USD on ${api.base}`, async () => {
        const res = await api.post('/pay/quote', btcQuote);
        return res.status === 200 && res.body.data.total.price === r30(usd) ? true : null;
      });

    // a new price reaches both instances, and each locks it into a live invoice
    feed.BITCOIN = '72000.5';
    await Promise.all(live.map((api) => bitcoinAt(api, '72000.5')));
    for (const api of live) {
      const { id } = expectSuccess(
        await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'BITCOIN', price: '2' }], currency: 'USD' }),
        201,
      );
      expect(expectSuccess(await api.post(`/invoices/${id}`, {})).price_usd).toBe(r30('144001'));
    }

    // Over several periods, about one request a period in all (each instance asking would be two).
    // Measured after a period of settling: instances that started in step part on their first collision.
    await new Promise((r) => setTimeout(r, PERIOD_S * 1000));
    const periods = 6;
    const before = source.seen.length;
    await new Promise((r) => setTimeout(r, periods * PERIOD_S * 1000));
    const asked = source.seen.length - before;
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThan(1.5 * periods);

    // whichever instance was asking, the other one asks once the first is gone
    await first.stop();
    instances.shift();
    feed.BITCOIN = '75000';
    await bitcoinAt(live[1], '75000');
    const { id } = expectSuccess(
      await live[1].post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'BITCOIN', price: '1' }], currency: 'USD' }),
      201,
    );
    expect(expectSuccess(await live[1].post(`/invoices/${id}`, {})).price_usd).toBe(r30('75000'));
    expect((await fetch(`${second.baseUrl}/health`)).status).toBe(200);
  }, 180_000);
});

describe('live rates with an instance that reaches only some sources', () => {
  const PERIOD_S = 2;
  // Bitcoin from one source, ether from the other (each a lone answer, within RATES_MAX_JUMP of the last).
  const bitcoin = { BITCOIN: '70000' };
  const ether = { ETHEREUM: '3000' };
  let first: FakeExchange;
  let second: FakeExchange;
  let unreachable: FakeExchange;
  let db: Awaited<ReturnType<typeof sharedDatabase>>;
  const instances: RunningServer[] = [];

  beforeAll(async () => {
    first = await fakeExchange(() => ({ taken_at: new Date().toISOString(), rates: { ...bitcoin } }));
    second = await fakeExchange(() => ({ taken_at: new Date().toISOString(), rates: { ...ether } }));
    // The second source as the partial instance sees it: every request fails on its way.
    unreachable = await fakeExchange(() => ({}));
    unreachable.behaviour = 'error';
    db = await sharedDatabase();
  });

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await db?.drop();
    await Promise.all([first, second, unreachable].map((f) => f?.close()));
  });

  it("does not keep the others from asking: one that reaches every source fills the partial one's gaps and then asks alone", async () => {
    const common = { RATES_REFRESH_SECONDS: String(PERIOD_S), RATES_MAX_AGE_SECONDS: '10' };
    const whole = { ...common, RATE_SOURCES: `${first.url}/rates.json,${second.url}/rates.json` };
    const partial = { ...common, RATE_SOURCES: `${first.url}/rates.json,${unreachable.url}/rates.json` };
    const quote = (api: Api, currency: string) => api.post('/pay/quote', { currency: 'USD', items: [{ type: 'PAYMENT_INTENT', currency, price: '1' }] });
    const liveAt = (api: Api, currency: string, usd: string) =>
      waitFor(`a live ${currency} at ${usd} USD on ${api.base}`, async () => {
        const res = await quote(api, currency);
        return res.status === 200 && res.body.data.total.price === r30(usd) ? true : null;
      });

    // An instance reaching both sources prices both currencies live, then stops.
    const full = await startServer({ databaseUrl: db.url, env: whole });
    instances.push(full);
    const created = await new Api(null, full.baseUrl).post('/admin/organizations', { name: 'Partial sources' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
    const key = expectSuccess(created, 201).live_key as string;
    await liveAt(new Api(key, full.baseUrl), 'ETHEREUM', '3000');
    await full.stop();
    instances.pop();

    // The partial instance alone: its snapshots refresh bitcoin and carry ether over.
    const lone = await startServer({ databaseUrl: db.url, env: partial });
    instances.push(lone);
    const onLone = new Api(key, lone.baseUrl);
    bitcoin.BITCOIN = '71000';
    await liveAt(onLone, 'BITCOIN', '71000');

    // Another instance that reaches both starts beside it: ether's new price reaches live quotes (it would
    // age past RATES_MAX_AGE_SECONDS and be refused if the fresh partial snapshots kept the newcomer quiet).
    ether.ETHEREUM = '3100';
    instances.push(await startServer({ databaseUrl: db.url, env: whole }));
    await liveAt(onLone, 'ETHEREUM', '3100');
    ether.ETHEREUM = '3150';
    await liveAt(onLone, 'ETHEREUM', '3150');

    // Settled: about one instance asks a period again (the complete snapshots silence the partial one).
    await new Promise((r) => setTimeout(r, 2 * PERIOD_S * 1000));
    const periods = 6;
    const before = first.seen.length;
    await new Promise((r) => setTimeout(r, periods * PERIOD_S * 1000));
    const asked = first.seen.length - before;
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThan(1.5 * periods);
    expect((await quote(onLone, 'ETHEREUM')).status).toBe(200);
  }, 180_000);
});

describe('live rates from a source whose own time moves less often than the refresh', () => {
  const PERIOD_S = 2;
  // The source's taken_at moves every 6 s (as an exchange's last-update time does): consecutive snapshots
  // then carry the same time for its rate, which is no gap while it is younger than half RATES_MAX_AGE_SECONDS.
  let source: FakeExchange;
  let db: Awaited<ReturnType<typeof sharedDatabase>>;
  const instances: RunningServer[] = [];

  beforeAll(async () => {
    source = await fakeExchange(() => ({ taken_at: new Date(Math.floor(Date.now() / 6000) * 6000).toISOString(), rates: { BITCOIN: '70000' } }));
    db = await sharedDatabase();
  });

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await db?.drop();
    await source?.close();
  });

  it('still has about one instance ask a period', async () => {
    const env = { RATE_SOURCES: `${source.url}/rates.json`, RATES_REFRESH_SECONDS: String(PERIOD_S), RATES_MAX_AGE_SECONDS: '20' };
    for (let i = 0; i < 2; i++) instances.push(await startServer({ databaseUrl: db.url, env }));
    await new Promise((r) => setTimeout(r, 2 * PERIOD_S * 1000));
    const periods = 6;
    const before = source.seen.length;
    await new Promise((r) => setTimeout(r, periods * PERIOD_S * 1000));
    const asked = source.seen.length - before;
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThan(1.5 * periods);
  }, 120_000);
});

describe('the start-up warning without live rate sources', () => {
  const production = { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.test', SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') };
  let service: IsolatedService;
  afterAll(async () => service?.stop());

  it('says live prices are static in production with RATE_SOURCES=none', async () => {
    service = await startIsolatedService({ ...production, RATE_SOURCES: 'none' });
    const line = await waitFor(
      'the warning line',
      async () =>
        service.server
          .output()
          .split('\n')
          .find((l) => l.includes('live prices are static')) ?? null,
      20_000,
    );
    expect(JSON.parse(line).level).toBe(40);
    // and the service prices live quotes from the table (the shipped snapshot), as before
    const https = { 'x-forwarded-proto': 'https' };
    const created = await new Api(null, service.server.baseUrl).post(
      '/admin/organizations',
      { name: 'Static' },
      { headers: { ...https, 'x-admin-token': ADMIN_TOKEN } },
    );
    const live = new Api(expectSuccess(created, 201).live_key, service.server.baseUrl);
    const quote = await live.post('/pay/quote', { currency: 'USD', items: [{ type: 'PAYMENT_INTENT', currency: 'BITCOIN', price: '1' }] }, { headers: https });
    expect(expectSuccess(quote).total.price).toBe(r30('91250.42'));
  });
});

describe('a feed whose URL carries its credential', () => {
  const SECRET = 'k3y-feed-secret';
  let source: FakeExchange;
  let service: IsolatedService;
  beforeAll(async () => {
    source = await fakeExchange(() => ({ taken_at: new Date().toISOString(), rates: { BITCOIN: '70000' } }));
    service = await startIsolatedService({ RATE_SOURCES: `${source.url}/rates.json?key=${SECRET}`, RATES_REFRESH_SECONDS: '1' });
  });
  afterAll(async () => {
    await service?.stop();
    await source?.close();
  });

  it('asks the feed with it, and shows it nowhere: not in the log, the metrics, the preflight or the stored rates', async () => {
    await eventually(async () => expect(source.seen).toContain(`/rates.json?key=${SECRET}`));
    await eventually(async () => expect(service.server.output()).toContain('rates refreshed'));
    const metrics = await (await fetch(`${service.server.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/exchange_rate_age_seconds\{currency="BITCOIN",source="[^"]*rates\.json#[0-9a-f]{8}"\}/);
    expect(metrics).not.toContain(SECRET);
    const doctor = await runCli(['doctor', '--json'], { ...service.cliEnv, RATE_SOURCES: `${source.url}/rates.json?key=${SECRET}` });
    expect(doctor.stdout).toContain('rates.json#');
    expect(doctor.stdout + doctor.stderr).not.toContain(SECRET);
    expect(service.server.output()).not.toContain(SECRET);
    const stored = await withClient(service.databaseUrl!, async (c) => (await c.query(`SELECT DISTINCT source FROM exchange_rates_recent`)).rows);
    expect(stored.length).toBeGreaterThan(0);
    expect(JSON.stringify(stored)).not.toContain(SECRET);
  });
});

describe('the first refresh at start-up', () => {
  let source: FakeExchange;
  let service: IsolatedService;
  afterAll(async () => {
    await service?.stop();
    await source?.close();
  });

  it('is one pass of the schedule: a tick while it waits for a slow source asks nothing more', async () => {
    source = await fakeExchange(() => ({ taken_at: new Date().toISOString(), rates: { BITCOIN: '70000' } }));
    source.behaviour = 'hang';
    service = await startIsolatedService({ RATE_SOURCES: `${source.url}/rates.json`, RATES_REFRESH_SECONDS: '1', RATE_SOURCE_TIMEOUT_MS: '4000' });
    await eventually(async () => expect(source.seen.length).toBeGreaterThan(0));
    // Three ticks of the schedule pass while the first pass waits for its answer: the source is asked by that
    // pass and by the start-up preflight's check of it (logged as a warning), and by nothing else.
    await new Promise((r) => setTimeout(r, 3000));
    expect(source.seen).toHaveLength(2);
  });
});
