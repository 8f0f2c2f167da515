import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The three clocks of a crypto invoice.
 * - invoices.expires_at: until when the quoted rates hold and a payment is expected. Invoices
 *   written before this migration have none (NULL) and never expire.
 * - substatus gains EXPIRED (unpaid at expiry; VOIDED when the monitoring window closed) and
 *   PAID_LATE (completed by a payment made after expiry).
 * - payments.confirmations / required_confirmations: how deep the payment is on its chain and how
 *   deep it must be to count (fixed when the payment is first reported). Existing payments: 0 / 0.
 * - provider_settings.required_confirmations: an organization's override of the catalog value
 *   (NULL = the catalog's).
 * The partial index serves the sweeper: unpaid invoices by expiry, across organizations.
 */
export class InvoiceTiming1763700800000 implements MigrationInterface {
  name = 'InvoiceTiming1763700800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE invoices ADD COLUMN expires_at timestamptz`);
    await q.query(`ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_substatus_check`);
    await q.query(`ALTER TABLE invoices ADD CONSTRAINT invoices_substatus_check
      CHECK (substatus IN ('PAID_OVER', 'PAID_PARTIAL', 'MARKED_PAID', 'EXPIRED', 'PAID_LATE'))`);
    await q.query(`CREATE INDEX invoices_due_idx ON invoices (expires_at) WHERE status = 'PENDING' AND expires_at IS NOT NULL`);
    await q.query(`ALTER TABLE payments
      ADD COLUMN confirmations integer NOT NULL DEFAULT 0 CHECK (confirmations >= 0),
      ADD COLUMN required_confirmations integer NOT NULL DEFAULT 0 CHECK (required_confirmations >= 0)`);
    await q.query(`ALTER TABLE provider_settings
      ADD COLUMN required_confirmations integer CHECK (required_confirmations BETWEEN 0 AND 10000)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE provider_settings DROP COLUMN required_confirmations`);
    await q.query(`ALTER TABLE payments DROP COLUMN confirmations, DROP COLUMN required_confirmations`);
    await q.query(`DROP INDEX invoices_due_idx`);
    await q.query(`ALTER TABLE invoices DROP CONSTRAINT invoices_substatus_check`);
    await q.query(`UPDATE invoices SET substatus = NULL WHERE substatus IN ('EXPIRED', 'PAID_LATE')`);
    await q.query(`ALTER TABLE invoices ADD CONSTRAINT invoices_substatus_check CHECK (substatus IN ('PAID_OVER', 'PAID_PARTIAL', 'MARKED_PAID'))`);
    await q.query(`ALTER TABLE invoices DROP COLUMN expires_at`);
  }
}
