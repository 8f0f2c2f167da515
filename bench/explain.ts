/**
 * EXPLAIN ANALYZE of the list statements for every filter of POST /invoices/list and POST /payments,
 * each alone, on the benchmark's data: the count alone (what the exact total costs) and the whole
 * statement the service sends for a first page (total and page in one), with the indexes the plans
 * use and the execution time. The statements come from the service's own builders
 * (invoiceListRequest, paymentListRequest, keysetPageStatement) and are planned the way the service's
 * sessions plan them: prepared once, generic (plan_cache_mode=force_generic_plan).
 */
import type { Client } from 'pg';
import type { Scope } from '../src/shared/auth/request-context';
import { keysetPageStatement, KeysetPageRequest } from '../src/shared/db/keyset-page';
import { parseAmount } from '../src/shared/money/money';
import { invoiceListRequest, InvoiceListFilter } from '../src/modules/invoices/persistence/invoice-list';
import { paymentListRequest, PaymentListFilter } from '../src/modules/payments/persistence/payment-list';

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
  /** The whole first-page statement as the service sends it (total and page in one). */
  statement_ms: number;
  statement_plan: string[];
}

/** EXECUTE takes its arguments as SQL values, not as bound parameters. */
function literal(c: Client, v: unknown): string {
  if (v === null) return 'NULL';
  if (typeof v === 'number') return String(v);
  if (v instanceof Date) return c.escapeLiteral(v.toISOString());
  if (Array.isArray(v)) return `ARRAY[${v.map((e) => c.escapeLiteral(String(e))).join(', ')}]`;
  return c.escapeLiteral(String(v));
}

/** The generic plan of `sql` (prepared, as the service's sessions plan it), run once for its timing. */
async function explain(c: Client, sql: string, params: unknown[]): Promise<{ ms: number; plan: string[] }> {
  await c.query('DEALLOCATE ALL');
  await c.query(`PREPARE explained AS ${sql}`);
  const execute = `EXECUTE explained(${params.map((p) => literal(c, p)).join(', ')})`;
  await c.query(execute);
  const { rows } = await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${execute}`);
  const doc = rows[0]['QUERY PLAN'][0] as { 'Execution Time': number; Plan: Plan };
  return { ms: Math.round(doc['Execution Time'] * 100) / 100, plan: [...new Set(indexes(doc.Plan))] };
}

export async function explainLists(c: Client, org: string, mode: 'test' | 'live'): Promise<ExplainedFilter[]> {
  await c.query('SET plan_cache_mode = force_generic_plan');
  // The 101st newest invoice (or the oldest, on a small data set).
  const sample = (
    await c.query(`SELECT customer_email, created_at FROM invoices WHERE organization_id = $1 AND mode = $2 ORDER BY created_at DESC LIMIT 101`, [org, mode])
  ).rows.pop();
  const invoice =
    (await c.query(`SELECT invoice_id FROM payments WHERE organization_id = $1 AND mode = $2 AND invoice_id IS NOT NULL LIMIT 1`, [org, mode])).rows[0]
      ?.invoice_id ?? null;
  const createdFrom = new Date(new Date(sample.created_at).getTime() - 86_400_000);
  const createdTo = new Date(sample.created_at);
  const scope: Scope = { organizationId: org, mode } as Scope;
  const page = { limit: 20, offset: 0 };
  const clock = { now: new Date(), monitoringMinutes: 60 };
  const [p10, p50, p900] = ['10', '50', '900'].map(parseAmount);
  const invoices: Array<[string, InvoiceListFilter]> = [
    ['none', { ...page }],
    ['status (2 values)', { ...page, status: ['PENDING', 'COMPLETED'] }],
    ['currency', { ...page, currency: ['USD'] }],
    ['price_usd range', { ...page, priceUsdFrom: p10, priceUsdTo: p50 }],
    ['created_at range (1 day)', { ...page, createdFrom, createdTo }],
    ['customer_email', { ...page, customerEmail: sample.customer_email }],
    ['provider_id', { ...page, providerId: 'prov_bitcoin_btc' }],
    ['status + price_usd (the bench filter)', { ...page, status: ['PENDING', 'COMPLETED'], priceUsdFrom: p10, priceUsdTo: p900 }],
  ];
  const payments: Array<[string, PaymentListFilter]> = [
    ['none', { ...page }],
    ['provider_id', { ...page, providerId: ['prov_bitcoin_btc'] }],
    ['invoice_id', { ...page, invoiceId: invoice }],
    ['status', { ...page, status: ['FAILED'] }],
    ['currency', { ...page, currency: ['ETHEREUM'] }],
    ['price_usd range', { ...page, priceUsdFrom: p10, priceUsdTo: p50 }],
    ['status + price_usd range', { ...page, status: ['COMPLETED'], priceUsdFrom: p10, priceUsdTo: p900 }],
    ['created_at range (1 day)', { ...page, createdFrom, createdTo }],
  ];
  const requests: Array<[string, string, KeysetPageRequest]> = [
    ...invoices.map(([name, f]): [string, string, KeysetPageRequest] => ['invoices', name, invoiceListRequest(scope, f, clock)]),
    ...payments.map(([name, f]): [string, string, KeysetPageRequest] => ['payments', name, paymentListRequest(scope, f)]),
  ];
  const out: ExplainedFilter[] = [];
  for (const [list, name, request] of requests) {
    const countSql = `SELECT count(*) FROM ${request.table} WHERE ${request.where}`;
    const total = Number((await c.query(countSql, request.params)).rows[0].count);
    const count = await explain(c, countSql, request.params);
    const statement = keysetPageStatement(request);
    const sent = await explain(c, statement.text, statement.params);
    out.push({ list, filter: name, total, count_ms: count.ms, count_plan: count.plan, statement_ms: sent.ms, statement_plan: sent.plan });
  }
  await c.query('DEALLOCATE ALL');
  return out;
}
