import { MigrationInterface, QueryRunner } from 'typeorm';

/** Rates history (market data shared by all organizations) and the snapshot shipped with the service. */
export class ExchangeRates1763700200000 implements MigrationInterface {
  name = 'ExchangeRates1763700200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE rate_snapshots (
        id          text PRIMARY KEY,
        taken_at    timestamptz NOT NULL,
        source      text NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX rate_snapshots_taken_at_idx ON rate_snapshots (taken_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE exchange_rates (
        snapshot_id text NOT NULL REFERENCES rate_snapshots(id),
        currency    text NOT NULL,
        usd_rate    numeric(78,30) NOT NULL CHECK (usd_rate > 0),
        PRIMARY KEY (snapshot_id, currency)
      )`);
    await q.query(`INSERT INTO rate_snapshots (id, taken_at, source) VALUES ('rates_bundled_20261120', '2026-11-20 00:00:00+00', 'bundled')`);
    await q.query(`
      INSERT INTO exchange_rates (snapshot_id, currency, usd_rate) VALUES
        ('rates_bundled_20261120', 'BITCOIN', 91250.42),
        ('rates_bundled_20261120', 'ETHEREUM', 3046.18),
        ('rates_bundled_20261120', 'USDT', 1.0002),
        ('rates_bundled_20261120', 'USDC', 0.9999),
        ('rates_bundled_20261120', 'USDC_NATIVE', 0.9999),
        ('rates_bundled_20261120', 'SOLANA', 138.74),
        ('rates_bundled_20261120', 'BINANCE_COIN', 889.61),
        ('rates_bundled_20261120', 'RIPPLE', 2.0473),
        ('rates_bundled_20261120', 'POLYGON', 0.3812),
        ('rates_bundled_20261120', 'TRON', 0.2796),
        ('rates_bundled_20261120', 'LITECOIN', 88.35),
        ('rates_bundled_20261120', 'BITCOIN_CASH', 521.09),
        ('rates_bundled_20261120', 'DOGECOIN', 0.16034),
        ('rates_bundled_20261120', 'USD', 1),
        ('rates_bundled_20261120', 'EUR', 1.1587),
        ('rates_bundled_20261120', 'CHF', 1.2491),
        ('rates_bundled_20261120', 'GBP', 1.3112),
        ('rates_bundled_20261120', 'AUD', 0.6498),
        ('rates_bundled_20261120', 'JPY', 0.006392),
        ('rates_bundled_20261120', 'CNY', 0.14053),
        ('rates_bundled_20261120', 'CAD', 0.7108),
        ('rates_bundled_20261120', 'HKD', 0.12853),
        ('rates_bundled_20261120', 'SGD', 0.76812),
        ('rates_bundled_20261120', 'SEK', 0.10497),
        ('rates_bundled_20261120', 'KRW', 0.000681),
        ('rates_bundled_20261120', 'NOK', 0.09812),
        ('rates_bundled_20261120', 'NZD', 0.56479),
        ('rates_bundled_20261120', 'INR', 0.011268),
        ('rates_bundled_20261120', 'MXN', 0.054492),
        ('rates_bundled_20261120', 'TWD', 0.032215),
        ('rates_bundled_20261120', 'ZAR', 0.057806),
        ('rates_bundled_20261120', 'BRL', 0.18711),
        ('rates_bundled_20261120', 'DKK', 0.15524),
        ('rates_bundled_20261120', 'PLN', 0.27391),
        ('rates_bundled_20261120', 'THB', 0.030812),
        ('rates_bundled_20261120', 'ILS', 0.30483),
        ('rates_bundled_20261120', 'IDR', 0.00005998),
        ('rates_bundled_20261120', 'CZK', 0.047792),
        ('rates_bundled_20261120', 'AED', 0.27229),
        ('rates_bundled_20261120', 'TRY', 0.023612),
        ('rates_bundled_20261120', 'HUF', 0.0030217),
        ('rates_bundled_20261120', 'CLP', 0.0010694),
        ('rates_bundled_20261120', 'SAR', 0.26658),
        ('rates_bundled_20261120', 'PHP', 0.016951),
        ('rates_bundled_20261120', 'MYR', 0.24049),
        ('rates_bundled_20261120', 'COP', 0.00026213),
        ('rates_bundled_20261120', 'RUB', 0.012398),
        ('rates_bundled_20261120', 'RON', 0.22847),
        ('rates_bundled_20261120', 'PEN', 0.29706)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE exchange_rates`);
    await q.query(`DROP TABLE rate_snapshots`);
  }
}
