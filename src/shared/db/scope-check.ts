/**
 * The caller's scope as a check on rows found by another key, not as a way to find them.
 *
 * A table such as payments has indexes that lead with (organization_id, mode) for the lists, and an
 * index of its own for a parent (an invoice's payments). A statement that finds rows by the parent
 * and also names the scope with `=` lets the planner pick either, and on a table it has no
 * statistics for (a fresh install, a bulk load, autovacuum not yet run: CI's PostgreSQL never runs
 * it) it may believe the organization has one row and walk the organization's range, reading every
 * row the organization has to find an invoice's one or two. Measured on a payments table analyzed
 * while it was empty and then given one organization's 3,500 payments: 8 ms per read instead of 0.3,
 * on a path every payment takes, and growing with the merchant.
 *
 * `IS NOT DISTINCT FROM` cannot drive an index scan, so the scope stays a filter on the rows the
 * parent's index found: every row is still checked against the caller's organization and mode, and
 * for these NOT NULL columns it means exactly `=`.
 */
export function scopeCheck(organizationParam: string, modeParam: string, alias = ''): string {
  const a = alias ? `${alias}.` : '';
  return `(${a}organization_id, ${a}mode) IS NOT DISTINCT FROM (${organizationParam}, ${modeParam})`;
}
