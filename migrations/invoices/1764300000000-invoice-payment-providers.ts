import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The invoices module's read model for the list's `provider_id` filter: `invoices.payment_provider_ids`,
 * the providers (canonical `prov_` ids) an invoice's payments went through, any status. The invoice
 * settlement (PayableInvoices.settle) keeps it, from the totals the payments module reports, in the
 * payment's own transaction; the list no longer reads the `payments` table. Existing invoices are filled
 * from their payments here.
 */
export class InvoicePaymentProviders1764300000000 implements MigrationInterface {
  name = 'InvoicePaymentProviders1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE invoices ADD COLUMN payment_provider_ids text[] NOT NULL DEFAULT '{}'`);
    await q.query(`
      UPDATE invoices i SET payment_provider_ids = p.ids
        FROM (SELECT invoice_id, organization_id, mode,
                     array_agg(DISTINCT regexp_replace(provider_id, '^provider_', 'prov_') ORDER BY regexp_replace(provider_id, '^provider_', 'prov_')) AS ids
                FROM payments WHERE invoice_id IS NOT NULL GROUP BY invoice_id, organization_id, mode) p
       WHERE i.id = p.invoice_id AND i.organization_id = p.organization_id AND i.mode = p.mode`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE invoices DROP COLUMN payment_provider_ids`);
  }
}
