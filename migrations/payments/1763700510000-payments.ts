import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payments reported by providers (or simulated in test mode). Every row carries organization_id and
 * mode and every read filters by both. A provider's idempotency key is unique per organization and
 * mode, so a payment reported twice is stored once. Amounts are numeric(78,30); price_usd is the
 * payment's value at the rates in force when it happened (rates_snapshot_id).
 */
export class Payments1763700510000 implements MigrationInterface {
  name = 'Payments1763700510000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE payments (
        id                text PRIMARY KEY,
        organization_id   text NOT NULL REFERENCES organizations(id),
        mode              text NOT NULL CHECK (mode IN ('test', 'live')),
        provider_id       text NOT NULL,
        invoice_id        text REFERENCES invoices(id),
        currency          text NOT NULL,
        price             numeric(78,30) NOT NULL CHECK (price >= 0),
        price_usd         numeric(78,30) NOT NULL CHECK (price_usd >= 0),
        rates_snapshot_id text NOT NULL REFERENCES rate_snapshots(id),
        status            text NOT NULL CHECK (status IN ('PENDING', 'COMPLETED', 'FAILED', 'CANCELLED')),
        idempotency_key   text CHECK (length(idempotency_key) BETWEEN 1 AND 200),
        happened_at       timestamptz NOT NULL,
        created_at        timestamptz NOT NULL,
        updated_at        timestamptz NOT NULL,
        CONSTRAINT payments_idempotency_key_uq UNIQUE (organization_id, mode, idempotency_key)
      )`);
    // The list, newest first, and its filters (each narrowing one organization and mode).
    await q.query(`CREATE INDEX payments_list_idx ON payments (organization_id, mode, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX payments_provider_idx ON payments (organization_id, mode, provider_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX payments_status_idx ON payments (organization_id, mode, status, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX payments_currency_idx ON payments (organization_id, mode, currency, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX payments_price_usd_idx ON payments (organization_id, mode, price_usd)`);
    // The payments of one invoice: the invoice filter, the invoice expansion, the state recomputation
    // and the invoice list's provider filter (EXISTS by invoice and provider).
    await q.query(`CREATE INDEX payments_invoice_idx ON payments (invoice_id, provider_id, status) WHERE invoice_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE payments`);
  }
}
