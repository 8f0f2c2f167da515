import { Api, ownTestDatabase } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { TcpRelay } from '../../support/relay';
import { ADMIN_TOKEN, RunningServer, startServer } from '../../support/server';
import { createInvoice, pay } from './payments-helpers';

/** How long the relay holds each of PostgreSQL's answers: far longer than the service takes to send what it sends at once. */
const HOLD_MS = 40;

/**
 * A relay between the service and PostgreSQL that holds PostgreSQL's answers for HOLD_MS, as a
 * database across a network would, and notes per connection what the service sent and when it had
 * to wait: a "wait" is a run of the service's messages sent before the next answer reached it.
 * Statements sent together (pipelined) make one wait; each statement sent only after the answer to
 * the one before makes its own.
 */
class WaitingRelay {
  /** Per connection: what the service sent, split where it had received an answer in between. */
  readonly waits = new Map<number, string[][]>();
  /** Per connection, wait by wait like `waits`: the text of each statement the service ran (simple, or bound to a prepared one). */
  readonly statements = new Map<number, string[][]>();
  readonly relay: TcpRelay;

  constructor(databaseUrl: string) {
    const answered = new Map<number, boolean>();
    const prepared = new Map<number, Map<string, string>>();
    this.relay = TcpRelay.forDatabase(databaseUrl, {
      fromClient: (connection, chunk) => {
        const waits = this.waits.get(connection.id) ?? [];
        const statements = this.statements.get(connection.id) ?? [];
        this.waits.set(connection.id, waits);
        this.statements.set(connection.id, statements);
        if (answered.get(connection.id) !== false || waits.length === 0) {
          waits.push([]);
          statements.push([]);
        }
        answered.set(connection.id, false);
        const named = prepared.get(connection.id) ?? new Map<string, string>();
        prepared.set(connection.id, named);
        waits[waits.length - 1].push(messagesOf(chunk));
        statements[statements.length - 1].push(...statementsOf(chunk, named));
        connection.toServer(chunk);
      },
      fromServer: (connection, chunk) =>
        // In order: each answer leaves HOLD_MS after it came, and never before the one before it.
        connection.later(HOLD_MS, () => {
          answered.set(connection.id, true);
          connection.toClient(chunk);
        }),
    });
  }

  /**
   * The waits of the one transaction (BEGIN to COMMIT) sent and committed since `mark` that inserted a
   * payment, on whichever connection carried it. Background passes the payment's commit wakes (durable
   * event handlers) run transactions of their own meanwhile; they insert no payment, so they are left out.
   */
  transactionSince(mark: Map<number, number>): string[][] {
    const found: string[][][] = [];
    for (const [id, waits] of this.waits) {
      const from = mark.get(id) ?? 0;
      const recent = waits.slice(from);
      const ran = (this.statements.get(id) ?? []).slice(from);
      for (let begin = 0; begin < recent.length; begin++) {
        if (!recent[begin].some((m) => m.includes('BEGIN'))) continue;
        const commit = recent.findIndex((w, i) => i >= begin && w.some((m) => m.includes('COMMIT')));
        if (commit < 0) break;
        if (ran.slice(begin, commit + 1).some((w) => w.some((sql) => /insert into payments\b/i.test(sql)))) found.push(recent.slice(begin, commit + 1));
        begin = commit;
      }
    }
    if (found.length !== 1) throw new Error(`expected one transaction, found ${found.length}: ${JSON.stringify(found)}`);
    return found[0];
  }

  mark(): Map<number, number> {
    return new Map([...this.waits].map(([id, waits]) => [id, waits.length]));
  }
}

/** The statement texts a chunk runs: simple queries' texts and the texts of the prepared statements its binds name (`named` learns them from its parses). */
function statementsOf(chunk: Buffer, named: Map<string, string>): string[] {
  const out: string[] = [];
  const cstring = (from: number): [string, number] => {
    const end = chunk.indexOf(0, from);
    return [chunk.toString('utf8', from, end), end + 1];
  };
  for (let at = 0; at + 5 <= chunk.length;) {
    const type = String.fromCharCode(chunk[at]);
    const length = chunk.readInt32BE(at + 1);
    if (type === 'Q') out.push(cstring(at + 5)[0]);
    if (type === 'P') {
      const [name, next] = cstring(at + 5);
      named.set(name, cstring(next)[0]);
    }
    if (type === 'B') {
      const [, next] = cstring(at + 5);
      out.push(named.get(cstring(next)[0]) ?? '');
    }
    at += 1 + length;
  }
  return out;
}

/** The messages of a chunk of the frontend protocol, by type: Q (simple query, with its text), P (parse), B (bind), E (execute), S (sync)... */
function messagesOf(chunk: Buffer): string {
  const out: string[] = [];
  for (let at = 0; at + 5 <= chunk.length;) {
    const type = String.fromCharCode(chunk[at]);
    const length = chunk.readInt32BE(at + 1);
    out.push(type === 'Q' ? `Q ${chunk.toString('utf8', at + 5, at + length).replace(/\0$/, '')}` : type);
    at += 1 + length;
  }
  return out.join(' ');
}

describe('round trips of a payment record (PostgreSQL answers held 40 ms)', () => {
  let database: Awaited<ReturnType<typeof ownTestDatabase>>;
  let relay: WaitingRelay;
  let server: RunningServer;
  let api: Api;

  beforeAll(async () => {
    database = await ownTestDatabase();
    relay = new WaitingRelay(database.url);
    await relay.relay.start();
    // Nothing else runs transactions meanwhile: no sweeper, folder or webhook dispatcher.
    server = await startServer({
      databaseUrl: relay.relay.relayed(database.url),
      env: { INVOICE_SWEEP_SECONDS: '0', ANALYTICS_FOLD_SECONDS: '0', WEBHOOK_DISPATCHER: 'false' },
    });
    const res = await new Api(null, server.baseUrl).post('/admin/organizations', { name: 'Round trips' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
    api = new Api(expectSuccess(res, 201).test_key as string, server.baseUrl);
    // Caches filled and statements prepared on the pool's connections, as on a running service.
    for (let i = 0; i < 6; i++) await pay(api, { invoice_id: await createInvoice(api), provider_id: 'prov_card_usd', price: '10', status: 'PENDING' });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await relay?.relay.stop();
    await database?.drop();
  });

  it('waits on PostgreSQL twice: BEGIN, the lock and the payment together, then the invoice’s move with COMMIT', async () => {
    const invoiceId = await createInvoice(api);
    const mark = relay.mark();
    const paid = await pay(api, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '100', status: 'COMPLETED' });
    expect(paid.invoice).toMatchObject({ status: 'COMPLETED' });
    const waits = relay.transactionSince(mark);
    expect(waits).toHaveLength(2);
    // BEGIN, then the lock's and the insert's bind/execute/sync in the same wait.
    expect(waits[0].join(' ')).toMatch(/^Q BEGIN( [A-Z])*$/);
    expect(
      waits[0]
        .join(' ')
        .split(' ')
        .filter((m) => m === 'E'),
    ).toHaveLength(2);
    expect(waits[1].join(' ')).toMatch(/Q COMMIT$/);
  });

  it('a payment for an invoice of another organization is 404 and leaves no payment behind', async () => {
    const created = await new Api(null, server.baseUrl).post('/admin/organizations', { name: 'Someone else' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
    const other = new Api(expectSuccess(created, 201).test_key as string, server.baseUrl);
    const theirs = await createInvoice(other);
    const res = await api.post('/test_helpers/payments', { invoice_id: theirs, provider_id: 'prov_card_usd', price: '100', status: 'COMPLETED' });
    expect(res.status).toBe(404);
    const listed = expectSuccess(await other.post('/payments', { invoice_id: theirs }));
    expect(listed.items).toEqual([]);
    const mine = expectSuccess(await api.post('/payments', {}));
    expect(mine.items.some((p: { invoice_id: string }) => p.invoice_id === theirs)).toBe(false);
  });
});
