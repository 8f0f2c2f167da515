/**
 * EXPLAIN ANALYZE of the list statements for every filter of POST /invoices/list and POST /payments,
 * each alone, on the benchmark's data: the count alone (what the exact total costs) and the whole
 * statement the service sends for a first page (built by keysetPage's own code: total and page in one),
 * with the indexes the planner chose and the execution time. The WHERE clauses are the ones the
 * repositories build; the plans are custom plans (values known, statements unnamed).
 */
import type { Client } from 'pg';
import { keysetPageStatement } from '../src/shared/db/keyset-page';

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
  /** The whole first-page statement as the service sends it (value filters read their matches once). */
  statement_ms: number;
  statement_plan: string[];
}

async function explain(c: Client, sql: string, params: unknown[]): Promise<{ ms: number; plan: string[] }> {
  const { rows } = await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
  const doc = rows[0]['QUERY PLAN'][0] as { 'Execution Time': number; Plan: Plan };
  return { ms: Math.round(doc['Execution Time'] * 100) / 100, plan: [...new Set(indexes(doc.Plan))] };
}

export async function explainLists(c: Client, org: string, mode: string): Promise<ExplainedFilter[]> {
  // The 101st newest invoice (or the oldest, on a small data set).
  const sample = (await c.query(`SELECT customer_email, created_at FROM invoices WHERE organization_id = $1 AND mode = $2 ORDER BY created_at DESC LIMIT 101`, [org, mode])).rows.pop();
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
    const statement = keysetPageStatement({
      table, columns: '*', where: whereSql, params, limit: 20, offset: 0, filtered: where !== '' && !name.startsWith('created_at'),
    });
    const sent = await explain(c, statement.text, statement.params);
    out.push({ list: table, filter: name, total, count_ms: count.ms, count_plan: count.plan, statement_ms: sent.ms, statement_plan: sent.plan });
  }
  return out;
}
