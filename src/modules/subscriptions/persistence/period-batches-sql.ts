import { fairBatch } from '../../../shared/db/fair-batch';

/**
 * The subscriptions workers' batches of period invoices (subscription_invoices), pure so that a plan test can
 * plan them. Both are fair batches read by organization (shared/db/fair-batch.ts, `pool`): the organizations'
 * modes with rows in the batch's partial index, then each one's first share of due rows in the worker's order
 * through the same index. A merchant with a hundred thousand subscriptions has as many period invoices open
 * after each renewal; numbering all of them on every batch made each batch of every merchant cost that many.
 */

/**
 * The batch's rows `t` of subscription_invoices, joined to `batch` by key, the keys also given as arrays: a
 * generic plan cannot see the batch's size, guesses a share of the table, and otherwise hashes all of it.
 */
const byKey = (batch: string) =>
  `t.subscription_id = ANY (ARRAY(SELECT subscription_id FROM batch)) AND t.period_start = ANY (ARRAY(SELECT period_start FROM batch))
     AND t.subscription_id = ${batch}.subscription_id AND t.period_start = ${batch}.period_start`;

/**
 * Periods whose invoice is still to be issued and due for a try (SubscriptionsRepository.claimUnissued), leased
 * in the same statement: $1 now, $2 the lease's end, $3 the batch's size, $4 one organization's share, $5 the
 * pass's start (a period that failed since then waits for the next pass; one never tried is taken). The UPDATE
 * checks each row's retry time again once it holds the row, so a period another instance leased meanwhile is
 * left out. Index: `subscription_invoices_unissued_scope`.
 */
export const CLAIM_UNISSUED_SQL = `
  WITH batch AS (${fairBatch(
    {
      table: 'subscription_invoices',
      alias: 'si',
      due: 'si.invoice_id IS NULL AND si.retry_at <= $1 AND (si.retry_at <= $5 OR si.attempts = 0)',
      order: 'si.retry_at, si.created_at, si.subscription_id, si.period_start',
      columns: 'si.organization_id, si.mode, si.subscription_id, si.period_start, si.retry_at, si.created_at',
      pool: 'si.invoice_id IS NULL',
    },
    '$4',
    '$3',
  )})
  UPDATE subscription_invoices t SET retry_at = $2
    FROM batch c
   WHERE ${byKey('c')} AND t.invoice_id IS NULL AND t.retry_at <= $1
     AND (t.retry_at <= $5 OR t.attempts = 0)
  RETURNING t.organization_id, t.mode, t.subscription_id, t.period_start, t.period_end, t.period_index, t.attempts, t.final_usage`;

/**
 * Period invoices issued and not yet known paid or unpaid (SubscriptionsRepository.openPeriodInvoices), stamped
 * checked in the same statement: $1 one organization's share, $2 the batch's size. Least recently checked first,
 * then oldest: an invoice still waiting for its payment goes to the back of its organization's line. Index:
 * `subscription_invoices_open_scope`.
 */
export const OPEN_PERIOD_INVOICES_SQL = `
  WITH batch AS (${fairBatch(
    {
      table: 'subscription_invoices',
      alias: 'si',
      due: 'si.outcome IS NULL AND si.invoice_id IS NOT NULL',
      order: 'si.checked_at NULLS FIRST, si.created_at, si.subscription_id, si.period_start',
      columns: 'si.organization_id, si.mode, si.subscription_id, si.period_start, si.period_index, si.invoice_id, si.checked_at, si.created_at',
      pool: 'si.outcome IS NULL AND si.invoice_id IS NOT NULL',
    },
    '$1',
    '$2',
  )}),
       stamped AS (UPDATE subscription_invoices t SET checked_at = now() FROM batch WHERE ${byKey('batch')} RETURNING t.subscription_id)
  SELECT organization_id, mode, subscription_id, period_start, period_index, invoice_id FROM batch ORDER BY fair_turn, checked_at NULLS FIRST, created_at`;
