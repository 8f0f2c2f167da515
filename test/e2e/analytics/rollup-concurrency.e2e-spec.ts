import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { testDatabaseUrl } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { awayFromHourBoundary, dashboard, HOUR_BOUNDARY_HOOK_TIMEOUT, recomputedRollups, sql, storedRollups } from './analytics-helpers';

/**
 * Writers of one organization append their rollup changes instead of updating shared rollup rows
 * (migration 1763702000000), so they no longer run one at a time: only writes to the same invoice
 * or payment wait for each other (its row lock). Shown without timing: transactions of one
 * organization held open at once from the test, with a lock_timeout on the second so that a wait
 * fails the statement instead of slowing it, and API writes of the organization completing while
 * such a transaction is still open.
 */
describe('writes of one organization run side by side', () => {
  const held: Client[] = [];
  beforeAll(awayFromHourBoundary, HOUR_BOUNDARY_HOOK_TIMEOUT);
  afterEach(async () => {
    for (const c of held.splice(0)) await c.end().catch(() => undefined);
  });

  async function session(): Promise<Client> {
    const c = new Client({ connectionString: testDatabaseUrl() });
    await c.connect();
    held.push(c);
    return c;
  }

  const newInvoice = (org: TestOrg, price: string, email: string) =>
    org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price }], customer_email: email });

  const insertInvoice = (c: Client, org: string, price: string, email: string) =>
    c.query(
      `INSERT INTO invoices (id, organization_id, mode, status, currency, price, price_usd, customer_email, created_at, updated_at)
             VALUES ($1, $2, 'test', 'PENDING', 'USD', $3::numeric, $3::numeric, $4, now(), now())`,
      [`invoice_${randomUUID()}`, org, price, email],
    );

  const insertPayment = (c: Client, org: string, invoiceId: string, status: string) =>
    c.query(
      `INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id, status,
                                   happened_at, created_at, updated_at)
             VALUES ($1, $2, 'test', 'prov_ethereum_usdt', $3, 'USDT', 7, 7, 'rates_bundled_20261120', $4, now(), now(), now())`,
      [`payment_${randomUUID()}`, org, invoiceId, status],
    );

  /** Settles to 'blocked' when the request has not answered while the other transaction stays open. */
  async function unlessBlocked<T>(p: Promise<T>): Promise<T | 'blocked'> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([p, new Promise<'blocked'>((r) => (timer = setTimeout(() => r('blocked'), 20_000)))]);
    } finally {
      clearTimeout(timer);
    }
  }

  it('two transactions of one organization write invoices, payments and status changes and stay open at once; the second never waits for a lock', async () => {
    const org = await createOrg();
    await dashboard(org.test, 'last_30_days'); // kept day windows built: every write moves them too
    const a = expectSuccess(await newInvoice(org, '40', 'one@example.com'), 201).id;
    const b = expectSuccess(await newInvoice(org, '50', 'two@example.com'), 201).id;

    const first = await session();
    const second = await session();
    await second.query(`SET lock_timeout = '2s'`);
    await first.query('BEGIN');
    await insertInvoice(first, org.id, '10', 'three@example.com');
    await insertPayment(first, org.id, a, 'COMPLETED');
    await first.query(`UPDATE invoices SET status = 'COMPLETED' WHERE id = $1`, [a]);

    // The same kinds of rows of the same organization, today's buckets and series included: before,
    // the second transaction queued on the organization's rollup lock until the first ended.
    await second.query('BEGIN');
    await insertInvoice(second, org.id, '20', 'four@example.com');
    await insertPayment(second, org.id, b, 'PENDING');
    await second.query(`UPDATE invoices SET status = 'WAITING_FOR_CONFIRMATIONS' WHERE id = $1`, [b]);
    const waiting = await sql(`SELECT pid FROM pg_locks WHERE NOT granted AND pid = ANY($1)`, [[(first as any).processID, (second as any).processID]]);
    expect(waiting).toEqual([]);

    // Only the same invoice's writers wait for each other (its row lock).
    await expect(second.query(`UPDATE invoices SET customer_email = 'x@example.com' WHERE id = $1`, [a])).rejects.toMatchObject({ code: '55P03' });
    await second.query('ROLLBACK');
    await first.query('COMMIT');

    const d = await dashboard(org.test, 'last_30_days');
    expect(d.invoices.count).toBe(3);
    expect(d.invoices.by_status).toMatchObject({ COMPLETED: 1, PENDING: 2 });
    expect(d.payments.count).toBe(1);
    expect(d.customers.unique).toBe(3);
    expect(await storedRollups(org.id)).toEqual(await recomputedRollups(org.id));
  });

  it('while a write of the organization is held open in another session, the API creates invoices, records payments and changes statuses of that organization, and the dashboard answers', async () => {
    const org = await createOrg();
    await dashboard(org.test, 'last_7_days');
    const target = expectSuccess(await newInvoice(org, '30', 'payer@example.com'), 201).id;
    const toVoid = expectSuccess(await newInvoice(org, '15', 'other@example.com'), 201).id;

    const open = await session();
    await open.query('BEGIN');
    await insertInvoice(open, org.id, '99', 'held@example.com');

    const created = await unlessBlocked(newInvoice(org, '12', 'new@example.com'));
    expect(created).not.toBe('blocked');
    expectSuccess(created as any, 201);
    const payment = await unlessBlocked(org.test.post('/test_helpers/payments', { invoice_id: target, provider_id: 'prov_ethereum_usdt', price: '5' }));
    expect(payment).not.toBe('blocked');
    const paymentId = expectSuccess(payment as any, 201).id;
    const completed = await unlessBlocked(org.test.post(`/test_helpers/payments/${paymentId}/status`, { status: 'COMPLETED' }));
    expect(completed).not.toBe('blocked');
    expectSuccess(completed as any, 200);
    const voided = await unlessBlocked(org.test.put(`/invoices/${toVoid}`, { status: 'VOIDED' }));
    expect(voided).not.toBe('blocked');
    expectSuccess(voided as any, 200);

    // The dashboard folds what is committed and leaves the open transaction's change for later.
    const during = await unlessBlocked(dashboard(org.test, 'last_7_days'));
    expect(during).not.toBe('blocked');
    expect(during.invoices.count).toBe(3);
    expect(during.payments).toMatchObject({ count: 1, completed_count: 1 });
    expect(during.invoices.by_status).toMatchObject({ VOIDED: 1, PARTIALLY_PAID: 1, PENDING: 1 });
    expect(during.customers.unique).toBe(3);

    // Still open all along; once it commits, the next call counts it.
    await open.query('COMMIT');
    const after = await dashboard(org.test, 'last_7_days');
    expect(after.invoices.count).toBe(4);
    expect(after.customers.unique).toBe(4);
    expect(await storedRollups(org.id)).toEqual(await recomputedRollups(org.id));
  });

  it('the service folds appended changes in the background: the tail empties without a dashboard call', async () => {
    const org = await createOrg();
    for (let i = 0; i < 3; i++) expectSuccess(await newInvoice(org, `${i + 1}`, `c${i}@example.com`), 201);
    const tail = async () =>
      (
        await sql<{ n: number }>(
          `SELECT (SELECT count(*) FROM analytics_invoice_deltas WHERE organization_id = $1) + (SELECT count(*) FROM analytics_payment_deltas WHERE organization_id = $1) AS n`,
          [org.id],
        )
      )[0].n;
    // ANALYTICS_FOLD_SECONDS is 1: a few passes at most, even on a loaded machine; but a pass folds every
    // organization of the shared database, and another file's bulk insert (list-plans: hundreds of thousands of
    // rows) makes one pass take tens of seconds on this machine.
    const deadline = Date.now() + 60_000;
    while (Number(await tail()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(Number(await tail())).toBe(0);
    const [{ n }] = await sql(`SELECT sum(invoices_count)::int AS n FROM analytics_invoice_series WHERE organization_id = $1 AND grain = 'day'`, [org.id]);
    expect(n).toBe(3);
  }, 90_000);
});
