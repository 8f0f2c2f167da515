import { expectError } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { D, r30, rate } from '../../support/money';
import { withClient } from '../../support/pg';
import { coinbaseAnswer, FakeExchange, fakeExchange, krakenAnswer, waitFor } from './rate-source-helpers';

/**
 * How a refresh chooses each currency's rate among its sources' answers (decisions.md §21), with three
 * local sources answering in their documented shapes: Coinbase and Kraken, and a URL feed. Bitcoin
 * comes from all three, Ethereum from Kraken and the feed, Litecoin from the feed alone.
 */
describe('choosing among the answers of several rate sources', () => {
  const coinbase = { BTC: '0.00001' } as Record<string, string>;
  const kraken = { XXBTZUSD: '100500', XETHZUSD: '3000' } as Record<string, string>;
  /** The feed's rates as JSON text, so that a number beyond any float's range can be served as written. */
  const feed = { BITCOIN: '99800', ETHEREUM: '3050', LITECOIN: '90' } as Record<string, string>;

  let exchanges: { coinbase: FakeExchange; kraken: FakeExchange; feed: FakeExchange };
  let service: IsolatedService;
  let org: Awaited<ReturnType<IsolatedService['createOrg']>>;
  let feedName: string;

  beforeAll(async () => {
    exchanges = {
      coinbase: await fakeExchange(() => coinbaseAnswer(coinbase)),
      kraken: await fakeExchange(() => krakenAnswer(kraken)),
      feed: await fakeExchange(
        () =>
          `{"taken_at": "${new Date().toISOString()}", "rates": {${Object.entries(feed)
            .map(([c, v]) => `"${c}": ${v}`)
            .join(', ')}}}`,
      ),
    };
    feedName = `${exchanges.feed.url}/rates.json`;
    service = await startIsolatedService({
      RATE_SOURCES: `coinbase,kraken,${feedName}`,
      RATE_SOURCE_COINBASE_URL: exchanges.coinbase.url,
      RATE_SOURCE_KRAKEN_URL: exchanges.kraken.url,
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

  /** A currency's rate and source in the newest snapshot. */
  const newest = (currency: string) =>
    withClient(service.databaseUrl!, async (c) => {
      const { rows } = await c.query(
        `SELECT r.usd_rate::text AS rate, r.source FROM exchange_rates r
           JOIN (SELECT id FROM rate_snapshots ORDER BY taken_at DESC, id DESC LIMIT 1) s ON s.id = r.snapshot_id
          WHERE r.currency = $1`,
        [currency],
      );
      return rows[0] as { rate: string; source: string };
    });

  const quoteOne = (currency: string) => org.live.post('/pay/quote', { currency: 'USD', items: [{ type: 'PAYMENT_INTENT', currency, price: '1' }] });

  /** Waits until a refresh stores `currency` at `usd` from `source`, and a live quote prices with it. */
  const storedFrom = async (currency: string, usd: string, source: string) => {
    await waitFor(`${currency} at ${usd} from ${source}`, async () => {
      const row = await newest(currency);
      return row.source === source && new D(row.rate).eq(usd) ? true : null;
    });
    await waitFor(`a live quote of ${currency} at ${usd}`, async () => {
      const res = await quoteOne(currency);
      return res.status === 200 && res.body.data.total.price === r30(usd) ? true : null;
    });
  };

  /** Waits until live pricing refuses `currency`: no rate of it was taken for RATES_MAX_AGE_SECONDS. */
  const refused = async (currency: string) => {
    const res = await waitFor(`live pricing to refuse ${currency}`, async () => {
      const r = await quoteOne(currency);
      return r.status === 503 ? r : null;
    });
    expect(expectError(res, 503, { code: 'rates_unavailable' }).error).toMatch(new RegExp(currency));
  };

  const droppedLines = () =>
    service.server
      .output()
      .split('\n')
      .filter((l) => l.includes('rate answer dropped'))
      .map((l) => JSON.parse(l));

  const countOf = async (source: string, reason: string) => {
    const metrics = await fetch(`${service.server.baseUrl}/metrics`).then((r) => r.text());
    const escaped = source.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const line = new RegExp(`exchange_rate_answers_dropped_total\\{source="${escaped}",reason="${reason}"\\} (\\d+)`).exec(metrics);
    return line ? Number(line[1]) : 0;
  };

  /**
   * Each of the three currencies' scenarios waits for a rate to age past RATES_MAX_AGE_SECONDS (10 s, the
   * least the setting takes) at least once. They touch different currencies and the choice is made per
   * currency, so they run side by side, started once the service is up; each test awaits its own.
   */
  const threeAnswers = async () => {
    // 99800, 100000 (1 / 0.00001), 100500: the middle one
    await storedFrom('BITCOIN', '100000', `median:coinbase,kraken,${feedName}`);

    // Coinbase off by a factor of a hundred million: 10^13 is dropped, the lower middle of the other two taken
    coinbase.BTC = '0.0000000000001';
    kraken.XXBTZUSD = '101000';
    await storedFrom('BITCOIN', '99800', `median:kraken,${feedName}`);
    expect(await countOf('coinbase', 'outlier')).toBeGreaterThan(0);
    expect(droppedLines()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'coinbase', currency: 'BITCOIN', reason: 'outlier', rate: '10000000000000', against: '101000' }),
      ]),
    );

    // All three apart by more than 5 %: none is taken, the last rate ages until live pricing refuses it
    coinbase.BTC = '0.00002'; // 50000
    feed.BITCOIN = '80000';
    kraken.XXBTZUSD = '100000';
    await refused('BITCOIN');
    expect((await newest('BITCOIN')).rate).toBe(r30('99800'));

    coinbase.BTC = '0.00001';
    feed.BITCOIN = '99800';
    await storedFrom('BITCOIN', '100000', `median:coinbase,kraken,${feedName}`);
  };

  const twoAnswers = async () => {
    // Kraken's 3000 and the feed's 3050 (1.7 % apart): the lower one
    await storedFrom('ETHEREUM', '3000', `median:kraken,${feedName}`);

    // 3000 and 3500 (16.7 % apart): neither is taken, both counted as dropped
    const before = await countOf(feedName, 'disagreement');
    feed.ETHEREUM = '3500';
    await refused('ETHEREUM');
    expect(await countOf(feedName, 'disagreement')).toBeGreaterThan(before);
    expect(await countOf('kraken', 'disagreement')).toBeGreaterThan(0);
    // The counters are per source and reason, shared with the other currencies' scenarios running meanwhile: the lines name Ethereum.
    expect(droppedLines()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: feedName, currency: 'ETHEREUM', reason: 'disagreement' }),
        expect.objectContaining({ source: 'kraken', currency: 'ETHEREUM', reason: 'disagreement' }),
      ]),
    );
    expect((await newest('ETHEREUM')).rate).toBe(r30('3000'));

    // close again: taken again
    feed.ETHEREUM = '3010.5';
    kraken.XETHZUSD = '3020';
    await storedFrom('ETHEREUM', '3010.5', `median:kraken,${feedName}`);
  };

  const oneAnswer = async () => {
    // Only the feed serves Litecoin: its answer alone (the shipped snapshot's rate does not count)
    await storedFrom('LITECOIN', '90', feedName);

    // 90 to 200: more than 20 %, not taken; the last rate ages
    const before = await countOf(feedName, 'jump');
    feed.LITECOIN = '200';
    await refused('LITECOIN');
    expect(await countOf(feedName, 'jump')).toBeGreaterThan(before);
    expect(droppedLines()).toEqual(
      expect.arrayContaining([expect.objectContaining({ source: feedName, currency: 'LITECOIN', reason: 'jump', rate: '200', against: '90' })]),
    );

    // 100 is within 20 % of 90
    feed.LITECOIN = '100';
    await storedFrom('LITECOIN', '100', feedName);
  };

  let scenarios: { three: Promise<void>; two: Promise<void>; one: Promise<void> };
  beforeAll(() => {
    scenarios = { three: threeAnswers(), two: twoAnswers(), one: oneAnswer() };
    // Each is awaited by its test; until then a failure must not count as unhandled.
    for (const p of Object.values(scenarios)) p.catch(() => undefined);
  });

  it('three answers: the median, or the median of those within RATES_MAX_SPREAD of it', () => scenarios.three);

  it('two answers: the lower one when they agree within RATES_MAX_SPREAD, nothing when they do not', () => scenarios.two);

  it('one answer: taken unless it jumps by more than RATES_MAX_JUMP from a rate a source gave in the last hour', () => scenarios.one);

  it('an answer beyond what the rates table stores is skipped for its currency alone; the others are still refreshed', async () => {
    // As a JSON number it overflows any float, and the decimal library's exponent range
    feed.DOGECOIN = '1e9000000000000001';
    feed.TRON = '1e48';
    feed.LITECOIN = '101';
    await storedFrom('LITECOIN', '101', feedName);
    const doge = await newest('DOGECOIN');
    expect(doge).toEqual({ rate: r30(rate('DOGECOIN')), source: 'bundled' });
    expect((await newest('TRON')).source).toBe('bundled');
    // and refreshes go on
    feed.LITECOIN = '102';
    await storedFrom('LITECOIN', '102', feedName);
    const lines = service.server
      .output()
      .split('\n')
      .filter((l) => l.includes('rates refreshed'))
      .map((l) => JSON.parse(l));
    expect(lines[lines.length - 1].skipped).toEqual(
      expect.arrayContaining([
        { source: feedName, currency: 'DOGECOIN', reason: 'not a finite number' },
        { source: feedName, currency: 'TRON', reason: 'too large' },
      ]),
    );
    expect(service.server.output()).not.toMatch(/numeric field overflow/);
  });
});
