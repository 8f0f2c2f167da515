import { fairBatch, FairSource } from '../../../shared/db/fair-batch';

/**
 * The refund workers' fair batches (shared/db/fair-batch.ts), pure so that a plan test can plan them: at most
 * $1 refunds of one organization's mode, $2 in all, each stamped checked in the same statement so that one the
 * worker cannot finish this pass goes to the back of its organization's line. Each answers the refunds' keys
 * (id, organization_id, mode) in the batch's order.
 *
 * - `sent`: payouts reported sent, whose transaction the confirmation worker looks up (never checked, then
 *   least recently; oldest sent first). Read by organization through `refunds_sent_fair_idx`: a merchant whose
 *   reported transactions never confirm holds many SENT refunds, and numbering all of them on every batch made
 *   every merchant's checks cost that many.
 * - `released`: payouts taken back after the grace and released since $3, watched in case they confirm after
 *   all. Numbered over the week's released payouts: older ones keep their hash (the index's condition) and
 *   would be read again by every batch if it read by organization.
 * - `expiredClaims`: claims without a destination past $3 (the expiry worker moves each at its organization's
 *   own now). Few are due at a time (the worker moves them as they expire), so these are numbered through
 *   `refunds_expiring_idx`: an index by organization would have the batch read each organization's claims
 *   that have not expired yet.
 */
function stampedBatch(source: Omit<FairSource, 'table' | 'alias' | 'columns'>, stamp: 'checked_at' | 'released_checked_at'): string {
  const columns = `r.id, r.organization_id, r.mode, r.${stamp}, r.sent_at, r.expires_at, r.released_at`;
  return `WITH batch AS (${fairBatch({ table: 'refunds', alias: 'r', columns, ...source }, '$1', '$2')}),
            stamped AS (
              -- The keys also as an array: a generic plan cannot see the batch's size and would otherwise hash the table.
              UPDATE refunds t SET ${stamp} = now() FROM batch WHERE t.id = ANY (ARRAY(SELECT id FROM batch)) AND t.id = batch.id RETURNING t.id)
       SELECT batch.id, batch.organization_id, batch.mode FROM batch JOIN stamped ON stamped.id = batch.id
        ORDER BY batch.fair_turn, ${source.order.replace(/\br\./g, 'batch.')}`;
}

export const FAIR_REFUNDS_SQL = {
  sent: stampedBatch({ due: `r.status = 'SENT'`, order: 'r.checked_at NULLS FIRST, r.sent_at, r.id', pool: `r.status = 'SENT'` }, 'checked_at'),
  released: stampedBatch(
    {
      due: 'r.released_tx_hash IS NOT NULL AND r.released_at >= $3',
      order: 'r.released_checked_at NULLS FIRST, r.released_at, r.id',
    },
    'released_checked_at',
  ),
  expiredClaims: stampedBatch(
    { due: `r.status = 'AWAITING_DESTINATION' AND r.expires_at <= $3`, order: 'r.checked_at NULLS FIRST, r.expires_at, r.id' },
    'checked_at',
  ),
} as const;
