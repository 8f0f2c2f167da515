import { MigrationInterface, QueryRunner } from 'typeorm';

/** The rollups' sums of USD: each bucket, series point and window adds up many amounts. */
const SUMS: ReadonlyArray<[table: string, column: string]> = [
  ['analytics_payment_buckets', 'volume_usd'],
  ['analytics_invoice_buckets', 'price_usd_sum'],
  ['analytics_customer_buckets', 'paid_volume_usd'],
  ['analytics_payment_series', 'volume_usd'],
  ['analytics_payment_windows', 'volume_usd'],
  ['analytics_invoice_windows', 'price_usd_sum'],
  ['analytics_customer_windows', 'paid_volume_usd'],
];

/**
 * The rollups' sums hold any total. Each amount fits numeric(78,30) (48 integer digits, checked where it is
 * written), but a sum of several need not: two invoices of 9 x 10^47 USD in one day overflowed the day's
 * bucket, the fold that adds them failed with its changes left appended, and every later fold of that
 * organization, so its dashboard, failed the same way. The sums become numeric(1000,30), PostgreSQL's
 * largest precision: 970 integer digits, the same 30 fractional ones (so they read as before), and the type
 * changes without rewriting the tables (raising a numeric's precision at the same scale is binary-coercible),
 * under a short lock.
 * The deltas keep numeric(78,30): each row is one invoice's or payment's amount.
 *
 * Down puts the precision back, which fails while a sum is past 48 integer digits.
 */
export class AnalyticsRollupSumsUnbounded1796008700000 implements MigrationInterface {
  name = 'AnalyticsRollupSumsUnbounded1796008700000';

  async up(q: QueryRunner): Promise<void> {
    for (const [table, column] of SUMS) await q.query(`ALTER TABLE ${table} ALTER COLUMN ${column} TYPE numeric(1000,30)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table, column] of SUMS) await q.query(`ALTER TABLE ${table} ALTER COLUMN ${column} TYPE numeric(78,30)`);
  }
}
