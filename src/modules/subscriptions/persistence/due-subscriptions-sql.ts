/**
 * The scheduler's batch of subscriptions whose period invoice is due (SubscriptionsRepository.lockDue), pure
 * so a plan test can plan it: $1 the organization's now, $2 one organization's share, $3 the batch's size,
 * $4 ids left out this pass; with `scoped`, only the organization $5's mode $6 (a moved test clock).
 *
 * A fair batch (shared/db/fair-batch.ts) read by organization: the organizations' modes that have
 * subscriptions (a skip scan of `subscriptions_list`, one index descent each), and for each its first
 * `$2` due subscriptions in its line's order: the never-failed ones by due time (`subscriptions_untried_due`),
 * then the failed ones by their last failure (`subscriptions_tried_due`), two ordered reads that stop at
 * the share. So a merchant's month-start burst of renewals costs a batch what a few rows do, where numbering
 * every due subscription made each batch cost the whole burst, and draining it grow with its square.
 */
export function dueSubscriptionsSql(scoped: boolean): string {
  const served = scoped ? 'sc.organization_id = $5 AND sc.mode = $6 AND ' : '';
  const line = `s.organization_id = sc.organization_id AND s.mode = sc.mode AND s.next_invoice_at IS NOT NULL AND s.next_invoice_at <= $1
               AND NOT (s.id = ANY ($4::text[]))`;
  const columns = 's.id, s.organization_id, s.mode, s.attempted_at, s.next_invoice_at';
  return `SELECT b.id, b.organization_id, b.mode, b.attempted_at, b.next_invoice_at FROM (
      WITH RECURSIVE fair_scopes (organization_id, mode) AS (
        (SELECT s.organization_id, s.mode FROM subscriptions s ORDER BY s.organization_id, s.mode LIMIT 1)
        UNION ALL
        SELECT n.organization_id, n.mode FROM fair_scopes p CROSS JOIN LATERAL (
          SELECT s.organization_id, s.mode FROM subscriptions s
           WHERE (s.organization_id, s.mode) > (p.organization_id, p.mode) ORDER BY s.organization_id, s.mode LIMIT 1
        ) n
      )
      SELECT u.*, row_number() OVER (PARTITION BY u.organization_id, u.mode ORDER BY u.attempted_at NULLS FIRST, u.next_invoice_at, u.id) AS fair_turn
        FROM fair_scopes sc CROSS JOIN LATERAL (
          SELECT * FROM (
            (SELECT ${columns} FROM subscriptions s WHERE ${served}${line} AND s.attempted_at IS NULL
              ORDER BY s.next_invoice_at, s.id LIMIT $2)
            UNION ALL
            (SELECT ${columns} FROM subscriptions s WHERE ${served}${line} AND s.attempted_at IS NOT NULL
              ORDER BY s.attempted_at, s.next_invoice_at, s.id LIMIT $2)
          ) l ORDER BY l.attempted_at NULLS FIRST, l.next_invoice_at, l.id LIMIT $2
        ) u
    ) b
    ORDER BY b.fair_turn, b.attempted_at NULLS FIRST, b.next_invoice_at, b.id
    LIMIT $3`;
}
