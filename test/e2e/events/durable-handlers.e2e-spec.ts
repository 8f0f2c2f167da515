import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { createDatabase, dropDatabase, withClient } from '../../support/pg';
import { ADMIN_TOKEN, linesWith, RunningServer, startServer } from '../../support/server';
import { eventually } from '../../support/webhook-receiver';

/**
 * Durable event handlers (src/shared/events/durable-handlers.ts), seen through the one the service
 * runs: subscriptions' `subscriptions.period_invoice_outcome`, which hears `invoice.completed` and
 * `invoice.voided`. Each handled event is logged at debug ("durable event handled" with its id), and
 * its cursor is the row in `event_handler_cursors`.
 */
const HANDLER = 'subscriptions.period_invoice_outcome';

function pgServer(): string {
  const url = process.env.TEST_PG_SERVER_URL;
  if (!url) throw new Error('these tests run service processes on a database of their own: start PostgreSQL on 127.0.0.1:5432 or set DATABASE_URL');
  return url;
}

interface Key {
  tx: string;
  pos: string;
}

/** a < b in commit order. */
const before = (a: Key, b: Key) => BigInt(a.tx) < BigInt(b.tx) || (a.tx === b.tx && BigInt(a.pos) < BigInt(b.pos));

describe('durable event handlers', () => {
  const servers: RunningServer[] = [];
  let db: string | null = null;

  afterEach(async () => {
    for (const s of servers.splice(0)) await s.stop('SIGKILL');
    if (db) await dropDatabase(pgServer(), db);
    db = null;
  });

  async function server(env: Record<string, string> = {}) {
    const started = await startServer({ databaseUrl: db!, env: { LOG_LEVEL: 'debug', DURABLE_HANDLERS_POLL_MS: '200', ...env } });
    servers.push(started);
    return started;
  }

  async function organization(s: RunningServer) {
    const res = await new Api(null, s.baseUrl).post('/admin/organizations', { name: 'Durable handlers' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
    return new Api(res.body.data.test_key as string, s.baseUrl);
  }

  /**
   * Creates and voids an invoice; the id of its invoice.voided event. With `mayExit`, the process
   * may exit between the void's commit and its answer (the crash hook runs as soon as the handler
   * is woken, which can be before the answer is written): a cut connection then counts, and the
   * committed void is checked in the database instead.
   */
  async function voidInvoice(api: Api, mayExit = false): Promise<string> {
    const { id } = expectSuccess(await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '5' }] }), 201);
    const voided = api.put(`/invoices/${id}`, { status: 'VOIDED' });
    if (!mayExit) expectSuccess(await voided);
    else {
      // A fetch error comes from Node's own realm, not the test's: told apart by a marker, not instanceof.
      const answer = await voided.catch(() => 'connection cut' as const);
      if (answer !== 'connection cut') expectSuccess(answer);
      const status = await withClient(db!, (c) => c.query(`SELECT status FROM invoices WHERE id = $1`, [id]));
      expect(status.rows[0].status).toBe('VOIDED');
    }
    const rows = await withClient(db!, (c) => c.query(`SELECT id FROM events WHERE type = 'invoice.voided' AND data->'object'->>'id' = $1`, [id]));
    expect(rows.rows).toHaveLength(1);
    return rows.rows[0].id as string;
  }

  const eventKey = (eventId: string) =>
    withClient(
      db!,
      async (c) => (await c.query(`SELECT transaction_id::text AS tx, position::text AS pos FROM events WHERE id = $1`, [eventId])).rows[0] as Key,
    );
  const cursor = () =>
    withClient(
      db!,
      async (c) =>
        (await c.query(`SELECT transaction_id::text AS tx, position::text AS pos FROM event_handler_cursors WHERE handler = $1`, [HANDLER])).rows[0] as Key,
    );
  /** The handler's own log lines (the webhooks fan-out, a durable handler too, logs every event). */
  const linesOf = (s: RunningServer) => linesWith(s, 'durable event handled').filter((l) => l.includes(`"handler":"${HANDLER}"`));
  const handled = (s: RunningServer, eventId: string) => linesOf(s).filter((l) => l.includes(eventId)).length;

  it('a process that exits between the commit and the handling: the next start handles that event, once, and not the one handled before', async () => {
    db = await createDatabase(pgServer());
    // Exits right before the handler's second event in this process.
    const first = await server({ DURABLE_HANDLERS_CRASH_BEFORE: `${HANDLER}:2` });
    const api = await organization(first);

    const a = await voidInvoice(api);
    await eventually(async () => expect(handled(first, a)).toBe(1));
    await eventually(async () => expect(before(await cursor(), await eventKey(a))).toBe(false));

    const b = await voidInvoice(api, true);
    // The change was committed; the worker then exits before handling it.
    expect(await Promise.race([first.exited, new Promise((r) => setTimeout(() => r('still running'), 15_000))])).toBe(1);
    expect(first.output()).toContain(`durable handler ${HANDLER}: exiting before its event 2`);
    expect(handled(first, b)).toBe(0);
    expect(before(await cursor(), await eventKey(b))).toBe(true);

    const second = await server();
    await eventually(async () => expect(before(await cursor(), await eventKey(b))).toBe(false));
    await eventually(async () => expect(handled(second, b)).toBe(1));
    // A moment more: nothing is handled twice, and the event handled before the crash is not handled again.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(handled(second, b)).toBe(1);
    expect(handled(second, a)).toBe(0);
    expect(handled(first, a)).toBe(1);
  });

  it('two instances on one database: every event is handled once in all, in commit order', async () => {
    db = await createDatabase(pgServer());
    const one = await server();
    const two = await server();
    const apiOne = await organization(one);
    const apiTwo = new Api(apiOne.key, two.baseUrl);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await voidInvoice(i % 2 ? apiTwo : apiOne));
    const last = await eventKey(ids[ids.length - 1]);
    await eventually(async () => expect(before(await cursor(), last)).toBe(false));
    await new Promise((r) => setTimeout(r, 1_000));
    for (const id of ids) expect(handled(one, id) + handled(two, id)).toBe(1);
    // The order handled: in each process's output, and across both by time (log times are to the
    // millisecond; two lines of the same millisecond count as in order), the events' commit order.
    const lines = (s: RunningServer) =>
      linesOf(s)
        .map((l) => JSON.parse(l) as { time: string; event: string })
        .filter((l) => ids.includes(l.event));
    for (const s of [one, two]) {
      const seen = lines(s).map((l) => ids.indexOf(l.event));
      expect(seen).toEqual([...seen].sort((x, y) => x - y));
    }
    const order = [...lines(one), ...lines(two)]
      .sort((x, y) => Date.parse(x.time) - Date.parse(y.time) || ids.indexOf(x.event) - ids.indexOf(y.event))
      .map((l) => l.event);
    expect(order).toEqual(ids);
  });
  it('a database restored into another cluster (transaction ids behind the restored ones): restored events count as handled, new ones are handled', async () => {
    db = await createDatabase(pgServer());
    const first = await server();
    const api = await organization(first);
    const a = await voidInvoice(api);
    await eventually(async () => expect(before(await cursor(), await eventKey(a))).toBe(false));
    await first.stop();
    // As after pg_dump and a restore elsewhere: the stored ids are far ahead of this cluster's counter.
    await withClient(db, async (c) => {
      await c.query(`UPDATE events SET transaction_id = (transaction_id::text::bigint + 1000000000)::text::xid8`);
      await c.query(`UPDATE event_handler_cursors SET transaction_id = (transaction_id::text::bigint + 1000000000)::text::xid8`);
    });

    const second = await server();
    await eventually(async () => expect(linesWith(second, 'from another database cluster')).toHaveLength(1));
    const b = await voidInvoice(new Api(api.key, second.baseUrl));
    await eventually(async () => expect(handled(second, b)).toBe(1));
    expect(handled(second, a)).toBe(0);
    // Its cursor passes it (the pass that logs the event commits the cursor a moment after the log line).
    await eventually(async () => expect(before(await cursor(), await eventKey(b))).toBe(false));
  });
});
