import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Invoices, their items and their calculation steps. Every row carries organization_id and mode;
 * every read filters by both. Amounts are numeric(78,30).
 */
export class Invoices1763700300000 implements MigrationInterface {
  name = 'Invoices1763700300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE invoices (
        id                text PRIMARY KEY,
        organization_id   text NOT NULL REFERENCES organizations(id),
        mode              text NOT NULL CHECK (mode IN ('test', 'live')),
        status            text NOT NULL CHECK (status IN ('PENDING', 'COMPLETED', 'VOIDED', 'PROCESSING', 'WAITING_FOR_CONFIRMATIONS', 'PARTIALLY_PAID')),
        substatus         text CHECK (substatus IN ('PAID_OVER', 'PAID_PARTIAL', 'MARKED_PAID')),
        currency          text NOT NULL,
        price             numeric(78,30) NOT NULL CHECK (price >= 0),
        price_usd         numeric(78,30) NOT NULL CHECK (price_usd >= 0),
        customer_email    text,
        metadata          jsonb NOT NULL DEFAULT '{}'::jsonb,
        redirect_url      text,
        rates_snapshot_id text,
        rates_taken_at    timestamptz,
        created_at        timestamptz NOT NULL,
        updated_at        timestamptz NOT NULL
      )`);
    // The list: newest first inside one organization and mode, optionally narrowed by status,
    // currency, customer email (case-insensitive) or USD amount.
    await q.query(`CREATE INDEX invoices_list_idx ON invoices (organization_id, mode, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX invoices_status_idx ON invoices (organization_id, mode, status, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX invoices_currency_idx ON invoices (organization_id, mode, currency, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX invoices_email_idx ON invoices (organization_id, mode, lower(customer_email), created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX invoices_price_usd_idx ON invoices (organization_id, mode, price_usd)`);

    await q.query(`
      CREATE TABLE invoice_items (
        id                 text PRIMARY KEY,
        organization_id    text NOT NULL REFERENCES organizations(id),
        mode               text NOT NULL CHECK (mode IN ('test', 'live')),
        invoice_id         text NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
        type               text NOT NULL CHECK (type IN ('PRODUCT', 'PAYMENT_INTENT')),
        currency           text NOT NULL,
        product_id         text,
        billing_schema_id  text,
        payment_intent_id  text,
        price              numeric(78,30) CHECK (price >= 0),
        quantity           integer NOT NULL CHECK (quantity >= 1),
        position           integer NOT NULL,
        status             text NOT NULL DEFAULT 'INCLUDED',
        exclude_reason     text,
        created_at         timestamptz NOT NULL,
        updated_at         timestamptz,
        CHECK ((type = 'PRODUCT' AND product_id IS NOT NULL AND billing_schema_id IS NOT NULL)
            OR (type = 'PAYMENT_INTENT' AND price IS NOT NULL AND payment_intent_id IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX invoice_items_invoice_idx ON invoice_items (invoice_id, position)`);

    await q.query(`
      CREATE TABLE invoice_calculations (
        id                text PRIMARY KEY,
        organization_id   text NOT NULL REFERENCES organizations(id),
        mode              text NOT NULL CHECK (mode IN ('test', 'live')),
        invoice_id        text NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
        invoice_item_id   text REFERENCES invoice_items(id) ON DELETE CASCADE,
        title             text NOT NULL,
        calculation_type  text NOT NULL,
        idx               integer NOT NULL CHECK (idx >= 0),
        position          integer NOT NULL,
        currency          text NOT NULL,
        initial_price     numeric(78,30) NOT NULL,
        price_delta       numeric(78,30) NOT NULL,
        price             numeric(78,30) NOT NULL,
        details           jsonb NOT NULL,
        created_at        timestamptz NOT NULL,
        updated_at        timestamptz
      )`);
    await q.query(`CREATE INDEX invoice_calculations_invoice_idx ON invoice_calculations (invoice_id, position)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE invoice_calculations`);
    await q.query(`DROP TABLE invoice_items`);
    await q.query(`DROP TABLE invoices`);
  }
}
