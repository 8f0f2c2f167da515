/**
 * The raw floor: a plain node:http server with a pg pool running the very SQL the service runs for
 * creating an invoice (one PAYMENT_INTENT item, three calculation lines and, when the build has the
 * event outbox, its invoice.created event's row, all in one statement) and for
 * reading one with its items and calculations (one query), with no framework, no validation, no
 * authentication and no logging. The benchmark measures the service against it in the same run.
 * FLOOR_PREPARED=1 sends the same statements as named (prepared) statements, as the service does.
 *
 *   DATABASE_URL=... PORT=... FLOOR_ORG=org_bench_042 FLOOR_MODE=test node dist/bench/floor-server.js
 */
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'pg';
import { newId } from '../src/shared/ids/ids';
import { INSERT_INVOICE_SQL, INSERT_INVOICE_WITH_EVENT_SQL, READ_INVOICE_SCOPED_SQL } from '../src/modules/invoices/persistence/invoice-sql';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.FLOOR_POOL ?? 20) });
const org = process.env.FLOOR_ORG ?? 'org_bench_042';
/** The build records an event per created invoice (the webhooks outbox): the floor does the same writes. */
const withEvents = process.env.FLOOR_EVENTS === '1';
const mode = process.env.FLOOR_MODE ?? 'test';
/**
 * FLOOR_PREPARED=1: send the statements as named (prepared) statements, under the names the
 * service uses, so the floor can also be measured doing at the database what the service does.
 * Unset, it sends them unnamed, as a plain pg server would (the floor the targets are set against).
 */
const preparedMode = process.env.FLOOR_PREPARED === '1';
const sql = (name: string, text: string, values: unknown[]) => (preparedMode ? { name, text, values } : { text, values });

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

/** The create statement with the parameters the service derives for a single USD payment intent. */
async function create(input: { items: Array<{ currency: string; price: string }>; customer_email?: string; metadata?: object }): Promise<string> {
  const item = input.items[0];
  const id = newId('invoice');
  const itemId = newId('invoice_item');
  const pi = newId('pi');
  const now = new Date();
  const price = item.price;
  const params = [
    id,
    org,
    mode,
    'PENDING',
    item.currency,
    price,
    price,
    input.customer_email ?? null,
    JSON.stringify(input.metadata ?? {}),
    null,
    'rates_bundled_20261120',
    now,
    now,
    [itemId],
    ['PAYMENT_INTENT'],
    [item.currency],
    [null],
    [null],
    [pi],
    [price],
    [1],
    [0],
    ['INCLUDED'],
    [newId('invoice_calc'), newId('invoice_calc'), newId('invoice_calc')],
    [itemId, null, null],
    ['Payment intent', 'Total', 'Total in USD'],
    ['PAYMENT_INTENT', 'TOTAL', 'TOTAL_USD'],
    [0, 0, 0],
    [0, 1, 2],
    [item.currency, item.currency, 'USD'],
    [price, '0', '0'],
    ['0', price, price],
    [price, price, price],
    [JSON.stringify({ payment_intent_id: pi, currency: item.currency, price, quantity: 1 }), '[]', '[]'],
    new Date(now.getTime() + 60 * 60_000),
    [null],
  ];
  if (!withEvents) {
    await pool.query(sql('invoice_insert', INSERT_INVOICE_SQL, params));
    return id;
  }
  // As the service: the invoice and its invoice.created event's row in one statement (webhook deliveries
  // come from the trigger on events; none in the benchmark), atomic on its own.
  await pool.query(
    sql('invoice_insert_event', INSERT_INVOICE_WITH_EVENT_SQL, [
      ...params,
      newId('event'),
      org,
      mode,
      'invoice.created',
      JSON.stringify({ object: { id, status: 'PENDING', currency: item.currency, price, customer_email: input.customer_email ?? null } }),
      now,
    ]),
  );
  return id;
}

const server = createServer((req, res) => {
  void (async () => {
    try {
      const text = await body(req);
      if (req.method === 'POST' && req.url === '/invoices/create') {
        send(res, 201, { id: await create(JSON.parse(text)) });
        return;
      }
      const m = req.method === 'POST' && req.url ? /^\/invoices\/([^/]+)$/.exec(req.url) : null;
      if (m) {
        const { rows } = await pool.query(sql('invoice_read_scoped', READ_INVOICE_SCOPED_SQL, [m[1], true, true, org, mode]));
        if (!rows[0]) send(res, 404, { error: 'not found' });
        else send(res, 200, rows[0]);
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
  process.stdout.write(`floor listening on ${typeof address === 'object' && address ? address.port : ''}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
