/**
 * The minimal floor: what creating an invoice and recording a payment minimally are, with none of the
 * service's triggers, outbox or idempotency. A plain node:http server with a pg pool:
 *
 * - POST /invoices/create: the invoice, its PAYMENT_INTENT item and its three calculation lines in
 *   one statement (data-modifying CTEs; one round trip, atomic), into copies of the invoice tables
 *   made with `CREATE TABLE ... (LIKE ... INCLUDING ALL)`: the same columns, checks, defaults and
 *   indexes, and the same foreign keys between them, but no trigger (no rollup changes appended)
 *   and no event row.
 * - POST /test_helpers/payments {invoice_id, price}: a PENDING payment inserted and its invoice
 *   updated (status WAITING_FOR_CONFIRMATIONS, updated_at), in one statement.
 *
 * Statements are sent unnamed, as a plain pg server would. prepareMinimalTables() makes the copies
 * (and copies the rows of the real tables into them, so their indexes are as deep).
 *
 *   DATABASE_URL=... PORT=... FLOOR_ORG=org_bench_042 FLOOR_MODE=test FLOOR_POOL=4 node dist/bench/minimal-floor.js
 */
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { newId } from '../src/shared/ids/ids';

export const MINIMAL_TABLES = {
  invoices: 'bench_min_invoices',
  items: 'bench_min_invoice_items',
  calculations: 'bench_min_invoice_calculations',
  payments: 'bench_min_payments',
};

/** Copies of the invoice and payment tables without triggers or outbox; the real tables' rows copied in. */
export async function prepareMinimalTables(ds: DataSource): Promise<void> {
  const t = MINIMAL_TABLES;
  // One session without the service's statement timeout: on the full data the copies are 1,300,000
  // invoices with their items and calculation lines, more than 30 s of a single statement each.
  const session = ds.createQueryRunner();
  await session.connect();
  try {
    await session.query('SET statement_timeout = 0');
    await session.query(`CREATE TABLE ${t.invoices} (LIKE invoices INCLUDING ALL)`);
    await session.query(`CREATE TABLE ${t.items} (LIKE invoice_items INCLUDING ALL)`);
    await session.query(`CREATE TABLE ${t.calculations} (LIKE invoice_calculations INCLUDING ALL)`);
    await session.query(`CREATE TABLE ${t.payments} (LIKE payments INCLUDING ALL)`);
    await session.query(`INSERT INTO ${t.invoices} SELECT * FROM invoices`);
    await session.query(`INSERT INTO ${t.items} SELECT * FROM invoice_items`);
    await session.query(`INSERT INTO ${t.calculations} SELECT * FROM invoice_calculations`);
    await session.query(`ALTER TABLE ${t.items} ADD FOREIGN KEY (invoice_id) REFERENCES ${t.invoices}(id)`);
    await session.query(`ALTER TABLE ${t.calculations} ADD FOREIGN KEY (invoice_id) REFERENCES ${t.invoices}(id)`);
    await session.query(`ALTER TABLE ${t.payments} ADD FOREIGN KEY (invoice_id) REFERENCES ${t.invoices}(id)`);
    for (const name of Object.values(t)) await session.query(`VACUUM ANALYZE ${name}`);
  } finally {
    await session.query('RESET statement_timeout').catch(() => undefined);
    await session.release();
  }
}

const T = MINIMAL_TABLES;
const CREATE_SQL = `
WITH invoice AS (
  INSERT INTO ${T.invoices} (id, organization_id, mode, status, currency, price, price_usd, customer_email, metadata,
                             rates_snapshot_id, rates_taken_at, expires_at, created_at, updated_at)
  VALUES ($1, $2, $3, 'PENDING', $4, $5::numeric, $5::numeric, $6, $7::jsonb, 'rates_bundled_20261120', $8, $9, $8, $8)
), item AS (
  INSERT INTO ${T.items} (id, organization_id, mode, invoice_id, type, currency, payment_intent_id, price, quantity, position, status, created_at, updated_at)
  VALUES ($10, $2, $3, $1, 'PAYMENT_INTENT', $4, $11, $5::numeric, 1, 0, 'INCLUDED', $8, $8)
)
INSERT INTO ${T.calculations} (id, organization_id, mode, invoice_id, invoice_item_id, title, calculation_type, idx, position,
                               currency, initial_price, price_delta, price, details, created_at, updated_at)
VALUES ($12, $2, $3, $1, $10, 'Payment intent', 'PAYMENT_INTENT', 0, 0, $4, $5::numeric, 0, $5::numeric, $15::jsonb, $8, $8),
       ($13, $2, $3, $1, NULL, 'Total', 'TOTAL', 0, 1, $4, 0, $5::numeric, $5::numeric, '[]', $8, $8),
       ($14, $2, $3, $1, NULL, 'Total in USD', 'TOTAL_USD', 0, 2, 'USD', 0, $5::numeric, $5::numeric, '[]', $8, $8)`;

const PAY_SQL = `
WITH payment AS (
  INSERT INTO ${T.payments} (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id, status,
                             happened_at, created_at, updated_at)
  VALUES ($1, $2, $3, 'prov_ethereum_usdt', $4, 'USDT', $5::numeric, $5::numeric, 'rates_bundled_20261120', 'PENDING', $6, $6, $6)
  RETURNING invoice_id
)
UPDATE ${T.invoices} SET status = 'WAITING_FOR_CONFIRMATIONS', updated_at = $6
 WHERE id = (SELECT invoice_id FROM payment) AND organization_id = $2 AND mode = $3
RETURNING id, status`;

/** The fields of a create the minimal floor reads (the bench sends one PAYMENT_INTENT item). */
export interface MinimalCreateInput {
  items: Array<{ currency?: string; price?: string }>;
  customer_email?: string;
  metadata?: Record<string, string>;
}

/** Writes a created invoice minimally (one statement); its id. */
export async function minimalCreate(pool: Pool, org: string, mode: string, input: MinimalCreateInput): Promise<{ id: string }> {
  const item = input.items[0];
  const id = newId('invoice');
  const now = new Date();
  const pi = newId('pi');
  await pool.query(CREATE_SQL, [
    id,
    org,
    mode,
    item.currency,
    item.price,
    input.customer_email ?? null,
    JSON.stringify(input.metadata ?? {}),
    now,
    new Date(now.getTime() + 15 * 60_000),
    newId('invoice_item'),
    pi,
    newId('invoice_calc'),
    newId('invoice_calc'),
    newId('invoice_calc'),
    JSON.stringify({ payment_intent_id: pi, currency: item.currency, price: item.price, quantity: 1 }),
  ]);
  return { id };
}

/** Records a PENDING payment and moves its invoice (one statement); null when the invoice is not the organization's. */
export async function minimalPay(
  pool: Pool,
  org: string,
  mode: string,
  input: { invoice_id: string; price: string },
): Promise<{ id: string; invoice: { id: string; status: string } } | null> {
  const id = newId('payment');
  const { rows } = await pool.query(PAY_SQL, [id, org, mode, input.invoice_id, input.price, new Date()]);
  return rows[0] ? { id, invoice: rows[0] as { id: string; status: string } } : null;
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      text += c;
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

if (require.main === module) {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.FLOOR_POOL ?? 4) });
  const org = process.env.FLOOR_ORG ?? 'org_bench_042';
  const mode = process.env.FLOOR_MODE ?? 'test';

  const server = createServer((req, res) => {
    void (async () => {
      try {
        const input = JSON.parse((await body(req)) || '{}') as MinimalCreateInput & { invoice_id: string; price: string };
        if (req.method === 'POST' && req.url === '/invoices/create') {
          send(res, 201, await minimalCreate(pool, org, mode, input));
          return;
        }
        if (req.method === 'POST' && req.url === '/test_helpers/payments') {
          const paid = await minimalPay(pool, org, mode, input);
          if (!paid) send(res, 404, { error: 'invoice not found' });
          else send(res, 201, paid);
          return;
        }
        send(res, 404, { error: 'no route' });
      } catch (e) {
        send(res, 500, { error: (e as Error).message });
      }
    })();
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`minimal floor listening on ${typeof address === 'object' && address ? address.port : ''}\n`);
  });
  process.on('SIGTERM', () => {
    server.close();
    void pool.end().then(() => process.exit(0));
  });
}
