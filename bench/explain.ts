/**
 * EXPLAIN ANALYZE of the list statements for every filter of POST /invoices/list and POST /payments,
 * each alone, on the benchmark's data: the count (total) and the first page (in the shape keysetPage
 * sends: ids first, then their rows), with the indexes the planner chose and the execution time, and for
 * filters on values the statement keysetPage sends for them (matches read once, then counted and sorted).
 * The WHERE clauses are the ones the repositories build; the plans are custom plans (values known).
 */
import type { Client } from 'pg';

interface Plan {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: Plan[];
}

function indexes(plan: Plan): string[] {
  const own = plan['Index Name'] ? [`${plan['Node Type']} ${plan['Index Name']}`] : [];
  const seq = plan['Node Type'] === 'Seq Scan' ? ['Seq Scan'] : [];
  return [...own, ...seq, ...(plan.Plans ?? []).flatMap(indexes)];
}

export interface ExplainedFilter {
  list: string;
  filter: string;
  total: number;
  count_ms: number;
  count_plan: string[];
  page_ms: number;
  page_plan: string[];
  /** Value filters: total and page from one read of the matches, as the service runs them. */
  one_scan_ms?: number;
  one_scan_plan?: string[];
}

async function explain(c: Client, sql: string, params: unknown[]): Promise<{ ms: number; plan: string[] }> {
  const { rows } = await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
  const doc = rows[0]['QUERY PLAN'][0] as { 'Execution Time': number; Plan: Plan };
  return { ms: Math.round(doc['Execution Time'] * 100) / 100, plan: [...new Set(indexes(doc.Plan))] };
}

export async function explainLists(c: Client, org: string, mode: string): Promise<ExplainedFilter[]> {
  const sample = (await c.query(`SELECT customer_email, created_at FROM invoices WHERE organization_id = $1 AND mode = $2 ORDER BY created_at DESC OFFSET 100 LIMIT 1`, [org, mode])).rows[0];
  const invoice = (await c.query(`SELECT invoice_id FROM payments WHERE organization_id = $1 AND mode = $2 AND invoice_id IS NOT NULL LIMIT 1`, [org, mode])).rows[0]?.invoice_id ?? null;
  const since = new Date(new Date(sample.created_at).getTime() - 86_400_000);
  const filters: Array<[string, string, string, unknown[]]> = [
    ['invoices', 'none', '', []],
    ['invoices', 'status (2 values)', 'AND status = ANY($3::text[])', [['PENDING', 'COMPLETED']]],
    ['invoices', 'currency', 'AND currency = ANY($3::text[])', [['USD']]],
    ['invoices', 'price_usd range', 'AND price_usd >= $3::numeric AND price_usd <= $4::numeric', ['10', '50']],
    ['invoices', 'created_at range (1 day)', 'AND created_at >= $3 AND created_at <= $4', [since, sample.created_at]],
    ['invoices', 'customer_email', 'AND lower(customer_email) = lower($3)', [sample.customer_email]],
    ['invoices', 'provider_id', `AND EXISTS (SELECT 1 FROM payments pay WHERE pay.invoice_id = invoices.id AND pay.organization_id = invoices.organization_id
                  AND pay.mode = invoices.mode AND pay.provider_id = $3)`, ['prov_bitcoin_btc']],
    ['invoices', 'status + price_usd (the bench filter)', 'AND status = ANY($3::text[]) AND price_usd >= $4::numeric AND price_usd <= $5::numeric', [['PENDING', 'COMPLETED'], '10', '900']],
    ['invoices', 'status as of now + price_usd (what the service runs since invoices expire)',
      `AND (CASE WHEN status = 'PENDING' AND expires_at <= now() - interval '60 minutes' THEN 'VOIDED' ELSE status END) = ANY($3::text[])
       AND status = ANY($3::text[]) AND price_usd >= $4::numeric AND price_usd <= $5::numeric`, [['PENDING', 'COMPLETED'], '10', '900']],
    ['payments', 'none', '', []],
    ['payments', 'provider_id', 'AND provider_id = ANY($3::text[])', [['prov_bitcoin_btc']]],
    ['payments', 'invoice_id', 'AND invoice_id = $3', [invoice]],
    ['payments', 'status', 'AND status = ANY($3::text[])', [['FAILED']]],
    ['payments', 'currency', 'AND currency = ANY($3::text[])', [['ETHEREUM']]],
    ['payments', 'price_usd range', 'AND price_usd >= $3::numeric AND price_usd <= $4::numeric', ['10', '50']],
    ['payments', 'created_at range (1 day)', 'AND created_at >= $3 AND created_at <= $4', [since, sample.created_at]],
  ];
  const out: ExplainedFilter[] = [];
  for (const [table, name, where, extra] of filters) {
    const params = [org, mode, ...extra];
    const whereSql = `organization_id = $1 AND mode = $2 ${where}`;
    const total = Number((await c.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${whereSql}`, params)).rows[0].n);
    const count = await explain(c, `SELECT count(*) FROM ${table} WHERE ${whereSql}`, params);
    // As keysetPage: the page's ids first (index-only), then only those rows.
    const page = await explain(c, `SELECT * FROM ${table} WHERE id IN (SELECT id FROM ${table} WHERE ${whereSql} ORDER BY created_at DESC, id DESC LIMIT 21)
                                    AND organization_id = $1 AND mode = $2 ORDER BY created_at DESC, id DESC`, params);
    const valueFilter = where !== '' && !name.startsWith('created_at');
    const oneScan = valueFilter
      ? await explain(c, `WITH hits AS MATERIALIZED (SELECT id, created_at FROM ${table} WHERE ${whereSql}),
                               ids AS (SELECT id, created_at FROM hits ORDER BY created_at DESC, id DESC LIMIT 21)
                          SELECT (SELECT count(*) FROM hits) AS total, t.* FROM ${table} t
                           WHERE id IN (SELECT id FROM ids) AND organization_id = $1 AND mode = $2 ORDER BY created_at DESC, id DESC`, params)
      : undefined;
    out.push({ list: table, filter: name, total, count_ms: count.ms, count_plan: count.plan, page_ms: page.ms, page_plan: page.plan,
      ...(oneScan && { one_scan_ms: oneScan.ms, one_scan_plan: oneScan.plan }) });
  }
  return out;
}
