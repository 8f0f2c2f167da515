/**
 * Bounded counts for the lists of what the service records on its own, one row per change or per try
 * (events, webhook attempts): an organization's history of them runs to millions, and an exact count
 * would make every page as slow as the history is long. Such a list counts its matches up to
 * COUNT_CAP, or up to the end of the page asked for when that is further (the page's own walk visits
 * as many), and one more to tell "more than that". Past it, `total` is the count reached and
 * `total_exact` false; `has_more` stays exact either way. Pure: no framework, no driver.
 */

export const COUNT_CAP = 10_000;

/** The count statement's LIMIT for a page: the cap or the page's end, whichever is further, plus one. */
export function countBound(page: { limit: number; offset: number }): number {
  return Math.max(COUNT_CAP, page.offset + page.limit) + 1;
}

/**
 * The list's total from its bounded count (`counted`, at most `bound`): exact below the bound, else
 * the bound less one, which is at least the page's end.
 */
export function boundedTotal(counted: number, bound: number): { total: number; exact: boolean } {
  return counted < bound ? { total: counted, exact: true } : { total: bound - 1, exact: false };
}

/**
 * Runs a bounded count (`sql` from boundedCountSql, its bound the last parameter) for `page` through
 * `query` (a manager's), and gives the list's total.
 */
export async function runBoundedCount(
  query: (sql: string, params: unknown[]) => Promise<Array<{ total: number }>>,
  sql: string,
  params: unknown[],
  page: { limit: number; offset: number },
): Promise<{ total: number; exact: boolean }> {
  const bound = countBound(page);
  const [{ total }] = await query(sql, [...params, bound]);
  return boundedTotal(total, bound);
}

/** The API documentation of a bounded list's `total` and `total_exact`, for the rows it lists (`events`, `attempts`). */
export function boundedTotalDocs(rows: string): { total: string; total_exact: string } {
  return {
    total: `Matching ${rows}, counted up to ${COUNT_CAP.toLocaleString('en-US')} (or up to the end of the requested page when that is further). Past that, this is the count reached and \`total_exact\` is false.`,
    total_exact: `False when more ${rows} match than \`total\` says. \`has_more\` stays exact either way: page on until it is false.`,
  };
}

/** The list fields of a page read with a bounded count: past the cap there is always more after the page. */
export function boundedListFields(page: { limit: number; offset: number; shown: number }, counted: { total: number; exact: boolean }) {
  return {
    total: counted.total,
    total_exact: counted.exact,
    limit: page.limit,
    offset: page.offset,
    has_more: !counted.exact || page.offset + page.shown < counted.total,
  };
}

/** A count of `from` and `where` that stops at the bound, given as parameter `$boundParam`. */
export function boundedCountSql(from: string, where: string, boundParam: number): string {
  return `SELECT count(*)::int AS total FROM (SELECT 1 FROM ${from} WHERE ${where} LIMIT $${boundParam}) matched`;
}
