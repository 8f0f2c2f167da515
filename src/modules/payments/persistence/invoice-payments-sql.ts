import { prepared } from '../../../shared/db/prepared';
import { scopeCheck } from '../../../shared/db/scope-check';
import { withEventRow } from '../../../shared/events/event-row';
import { PAYMENT_COLUMNS } from './payment-list';

/**
 * The statements that read one invoice's payments: the settlement's (under the invoice's lock), the
 * insert that returns them with the new payment, and the invoice's payment list. Each finds the rows
 * through the invoice's own index and checks the caller's scope on them (scopeCheck), so a payment
 * write reads its invoice's payments, never the organization's, whatever the planner's statistics;
 * the plans are tested in test/e2e/foundation/write-plans-unanalyzed.
 */

/** What a settlement reads of each payment of the invoice. */
export const SETTLING_COLUMNS =
  'id, status, price::text AS price, price_usd::text AS price_usd, provider_id, happened_at, created_at, off_chain_at IS NOT NULL AS off_chain';
/** An invoice's payments are found through the invoice's own index, whatever the statistics (scopeCheck). */
export const SETTLING_SQL = prepared('payment_settling', `SELECT ${SETTLING_COLUMNS} FROM payments WHERE invoice_id = $3 AND ${scopeCheck('$1', '$2')}`);

/** The payments of one invoice, oldest first (found through the invoice's index: scopeCheck). */
export const FOR_INVOICE_SQL = `SELECT ${PAYMENT_COLUMNS} FROM payments WHERE invoice_id = $3 AND ${scopeCheck('$1', '$2')} ORDER BY created_at ASC, id ASC`;

/**
 * A payment without an idempotency key (nothing to conflict with), its payment.created event's row
 * ($17 to $22) and the settlement's read of the invoice's payments, in one statement: the read's
 * snapshot is taken as the statement starts, so it sees every payment committed before (the caller
 * holds the invoice's lock, which every payment writer takes first) but not the row this statement
 * inserts, which is added from the insert's RETURNING.
 */
export const INSERT_PAYMENT_SETTLING_SQL = prepared(
  'payment_insert_event_settling',
  withEventRow(
    `WITH inserted AS (
       INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id,
                             status, idempotency_key, happened_at, created_at, updated_at, confirmations, required_confirmations)
       VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $8::numeric, $9, $10, $11, $12, $13, $14, $15, $16)
       RETURNING ${SETTLING_COLUMNS})
     SELECT * FROM inserted
     UNION ALL
     SELECT ${SETTLING_COLUMNS} FROM payments WHERE invoice_id = $5 AND ${scopeCheck('$2', '$3')}`,
    16,
  ),
);
