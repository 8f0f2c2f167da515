import { Client } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { boundAt, rangeAt } from '../../../src/shared/db/partition-ranges';
import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { D, r30 } from '../../support/money';
import { withClient } from '../../support/pg';
import { runWorkerPass } from '../../support/workers';
import { waitFor } from './rate-source-helpers';

const DAY_MS = 86_400_000;

/** `p20261129`: the suffix of the day partition holding `at` (UTC). */
const daySuffix = (at: Date) => `p${at.toISOString().slice(0, 10).replace(/-/g, '')}`;

/**
 * Rate history that stays small (docs/performance.md): one partition a day, created ahead by the kernel's
 * retention job and dropped once older than RATES_HISTORY_RETENTION_DAYS, keeping the snapshots that an
 * invoice, a payment or a refund holds (and the one in force). Old history is written as the service
 * would have written it then: snapshot ids `rates_<UUIDv7 of that day>`.
 */
describe('rate history retention', () => {
  let service: IsolatedService;
  let org: Awaited<ReturnType<IsolatedService['createOrg']>>;
  let metrics: Api;

  beforeAll(async () => {
    service = await startIsolatedService({ RATES_HISTORY_RETENTION_DAYS: '30', PARTITION_RETENTION_SECONDS: '0' });
    org = await service.createOrg();
    metrics = new Api(null, service.server.baseUrl);
  }, 90_000);
  afterAll(async () => service?.stop());

  const db = <T>(work: (c: Client) => Promise<T>) => withClient(service.databaseUrl!, work);

  /** Writes a snapshot of every bundled currency, `eur` for EUR, as the service does: its id carries `writtenAt`. */
  const writeSnapshot = (writtenAt: Date, takenAt: Date, eur: string) =>
    db(async (c) => {
      const id = `rates_${uuidv7({ msecs: writtenAt.getTime() })}`;
      await c.query(`INSERT INTO rate_snapshots_recent (id, taken_at, source, created_at) VALUES ($1, $2, 'import', $3)`, [id, takenAt, writtenAt]);
      await c.query(
        `INSERT INTO exchange_rates_recent (snapshot_id, currency, usd_rate, source, taken_at)
         SELECT $1, currency, CASE WHEN currency = 'EUR' THEN $2::numeric ELSE usd_rate END, 'import', $3 FROM exchange_rates WHERE snapshot_id = 'rates_bundled_20261120'`,
        [id, eur, takenAt],
      );
      // As an import does: every process forgets which snapshot it had in force.
      await c.query(`SELECT pg_notify('rates_changed', '')`);
      return id;
    });

  /** Waits until a quote prices 10 EUR at `usd` (the service has seen the newest snapshot). */
  const eurQuotedAt = (usd: string) =>
    waitFor(`10 EUR quoted at ${usd} USD`, async () => {
      const res = await org.test.post('/pay/quote', { currency: 'USD', items: [{ type: 'PAYMENT_INTENT', currency: 'EUR', price: '10' }] });
      return res.status === 200 && res.body.data.total.price === r30(usd) ? true : null;
    });

  const partitions = (table: string) =>
    db(async (c) => {
      const { rows } = await c.query(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1`, [
        table,
      ]);
      return rows.map((r: { relname: string }) => r.relname);
    });

  const where = (id: string) =>
    db(async (c) => {
      const { rows } = await c.query(
        `SELECT 'recent' AS t, count(*)::int AS rates FROM exchange_rates_recent WHERE snapshot_id = $1
         UNION ALL SELECT 'kept', count(*)::int FROM exchange_rates_kept WHERE snapshot_id = $1`,
        [id],
      );
      return Object.fromEntries(rows.map((r: { t: string; rates: number }) => [r.t, r.rates]));
    });

  it('keeps a week of day partitions ready ahead, for both history tables', async () => {
    await runWorkerPass(org.test, 'partition-retention');
    const today = new Date();
    for (const table of ['rate_snapshots_recent', 'exchange_rates_recent']) {
      const names = await partitions(table);
      for (let d = 0; d <= 7; d++) expect(names).toContain(`${table}_${daySuffix(new Date(today.getTime() + d * DAY_MS))}`);
      expect(names).toContain(`${table}_default`);
    }
  });

  it('drops a day past retention but keeps the snapshot an invoice and a refund were priced from; the invoice, its payment and rates are still served', async () => {
    const now = Date.now();
    const oldDay = new Date(now - 40 * DAY_MS);
    // Written 40 days ago (imports of rates dated later, so one is in force now): an invoice left unpaid is priced
    // from `quoted`, the invoice paid below from `held`. `unheld` was replaced by `quoted` five days ago: no write
    // priced within the last day can hold it.
    const unheld = await writeSnapshot(new Date(oldDay.getTime() + 2000), new Date(now - 6 * DAY_MS), '1.6');
    const quoted = await writeSnapshot(new Date(oldDay.getTime() + 1000), new Date(now - 5 * DAY_MS), '1.4');
    await eurQuotedAt('14');
    const unpaid = expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'EUR', price: '10' }] }), 201)
      .id as string;
    const held = await writeSnapshot(oldDay, new Date(now - 3 * DAY_MS), '1.5');
    await eurQuotedAt('15');

    const invoice = expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'EUR', price: '100' }] }), 201)
      .id as string;

    // Newer rates take over, dated two days ago (an import): neither invoice's snapshot is the one in force, nor
    // was it at any moment of the last day, so only the invoices keep them.
    await writeSnapshot(new Date(now), new Date(now - 2 * DAY_MS), '1.2');
    await eurQuotedAt('12');
    // Paid within its rate lock: valued at the invoice's own rates, which the payment, their day going soon, keeps
    // itself (the tests below show why); the unpaid invoice's are left to the pass.
    expectSuccess(await org.test.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_card_usd', price: '150', status: 'COMPLETED' }), 201);
    const before = expectSuccess(await org.test.post(`/invoices/${invoice}`, { expand: ['payments'] }));
    expect(before.price_usd).toBe(r30('150'));
    const heldBefore = await where(held);
    expect(heldBefore.recent).toBeGreaterThan(40);
    expect(heldBefore).toEqual({ recent: heldBefore.recent, kept: heldBefore.recent });
    const quotedBefore = await where(quoted);
    expect(quotedBefore).toEqual({ recent: heldBefore.recent, kept: 0 });

    await runWorkerPass(org.test, 'partition-retention');

    // The old day (its rows had landed in the default partition: no range covered them) is gone from both tables.
    for (const table of ['rate_snapshots_recent', 'exchange_rates_recent']) expect(await partitions(table)).not.toContain(`${table}_${daySuffix(oldDay)}`);
    expect(await where(held)).toEqual({ recent: 0, kept: heldBefore.recent });
    expect(await where(quoted)).toEqual({ recent: 0, kept: quotedBefore.recent });
    expect(await where(unheld)).toEqual({ recent: 0, kept: 0 });
    expect(expectSuccess(await org.test.post(`/invoices/${unpaid}`, {})).price_usd).toBe(r30('14'));

    // Read through HTTP: the invoice and its payment as they were, a refund at the invoice's rate from the kept snapshot...
    const after = expectSuccess(await org.test.post(`/invoices/${invoice}`, { expand: ['payments'] }));
    expect(after.price_usd).toBe(before.price_usd);
    expect(after.payments).toEqual(before.payments);
    const atInvoiceRate = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '10', currency: 'EUR', rate: 'invoice' }), 201);
    expect(atInvoiceRate.amount_usd).toBe(r30(new D(10).mul('1.5')));
    // ... and today's rates for anything new.
    await eurQuotedAt('12');
    const current = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '10', currency: 'EUR', rate: 'current' }), 201);
    expect(current.amount_usd).toBe(r30(new D(10).mul('1.2')));

    const text = (await metrics.get('/metrics')).text;
    expect(text).toMatch(/partition_retention_dropped_total\{plan="rate-history"\} [1-9]/);
    expect(text).toMatch(/partition_retention_kept_rows_total\{plan="rate-history"\} [1-9]/);
  });

  it('runs on one instance at a time: while another holds the job lock, a pass changes nothing', async () => {
    const oldDay = new Date(Date.now() - 50 * DAY_MS);
    const old = await writeSnapshot(oldDay, new Date(Date.now() - 50 * DAY_MS), '1.7');
    const holder = new Client({ connectionString: service.databaseUrl! });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(hashtext('partition_retention'))`);
      await runWorkerPass(org.test, 'partition-retention');
      const waiting = await where(old);
      expect(waiting.kept).toBe(0);
      expect(waiting.recent).toBeGreaterThan(40);
      await holder.query(`SELECT pg_advisory_unlock(hashtext('partition_retention'))`);
      await runWorkerPass(org.test, 'partition-retention');
      expect(await where(old)).toEqual({ recent: 0, kept: 0 });
    } finally {
      await holder.end();
    }
  });

  /** Gives the day holding `at` its partitions, as the job has them for every day it created ahead (before any row of the day is written). */
  const dayPartitions = (at: Date) =>
    db(async (c) => {
      const day = rangeAt('day', at);
      const [lower, upper] = [boundAt({ kind: 'id', prefix: 'rates_' }, day.from), boundAt({ kind: 'id', prefix: 'rates_' }, day.to)];
      for (const table of ['rate_snapshots_recent', 'exchange_rates_recent']) {
        await c.query(`CREATE TABLE ${table}_${day.suffix} PARTITION OF ${table} FOR VALUES FROM ('${lower}') TO ('${upper}')`);
      }
    });

  /** The snapshot a payment or a refund holds, and its EUR rate as the rates tables still have it (null: gone). */
  const heldBy = (table: 'payments' | 'refunds', id: string) =>
    db(async (c) => {
      const { rows } = await c.query(
        `SELECT t.rates_snapshot_id AS snapshot, (SELECT usd_rate::text FROM exchange_rates WHERE snapshot_id = t.rates_snapshot_id AND currency = 'EUR') AS eur
           FROM ${table} t WHERE t.id = $1`,
        [id],
      );
      return rows[0] as { snapshot: string; eur: string | null };
    });

  /**
   * Runs a retention pass while `holder` holds what the write `written` waits for (it has chosen its rates and
   * is in its transaction), then lets the write go: the pass either ends at once (nothing tells it about the
   * write) or waits for the write, whichever it does. Answers the write's response once both have ended.
   */
  const passWhileWriteWaits = async <T>(holder: Client, written: Promise<T>): Promise<T> => {
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const waiting = async (sql: string, params: unknown[]) => (await db((c) => c.query<{ n: number }>(sql, params))).rows[0].n;
    for (const deadline = Date.now() + 10_000; ;) {
      if ((await waiting(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))`, [holderPid])) > 0) break;
      if (Date.now() > deadline) throw new Error('the write never waited for the held lock');
      await new Promise((r) => setTimeout(r, 25));
    }
    let passed = false;
    const pass = runWorkerPass(org.test, 'partition-retention').then(() => (passed = true));
    // Some backend other than the write waiting for a lock: the pass, waiting for the write.
    for (const deadline = Date.now() + 4_000; !passed;) {
      const others = await waiting(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND NOT ($1 = ANY (pg_blocking_pids(pid))) AND datname = current_database()`,
        [holderPid],
      );
      if (others > 0 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await holder.query('COMMIT');
    const answer = await written;
    await pass;
    return answer;
  };

  const openHolder = async () => {
    const holder = new Client({ connectionString: service.databaseUrl! });
    await holder.connect();
    await holder.query('BEGIN');
    return holder;
  };

  it('a payment reported long after it happened keeps the rates it was valued at when their day is dropped while it is being written', async () => {
    const now = Date.now();
    const day = new Date(now - 45 * DAY_MS);
    await dayPartitions(day);
    const then = await writeSnapshot(day, day, '1.45');
    await writeSnapshot(new Date(now), new Date(now - 5_000), '1.2');
    await eurQuotedAt('12');
    const invoice = expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'EUR', price: '100' }] }), 201)
      .id as string;

    // The payment is valued at the rates in force when it happened (the day about to go), then waits for its invoice.
    const holder = await openHolder();
    try {
      await holder.query(`SELECT id FROM invoices WHERE id = $1 FOR UPDATE`, [invoice]);
      const reported = org.test.post('/test_helpers/payments', {
        invoice_id: invoice,
        provider_id: 'prov_card_eur',
        price: '100',
        status: 'COMPLETED',
        happened_at: new Date(day.getTime() + 3_600_000).toISOString(),
      });
      const payment = expectSuccess(await passWhileWriteWaits(holder, reported), 201);

      // The day went (on the pass above or, had it given up waiting, the next one); the payment's rates did not.
      await runWorkerPass(org.test, 'partition-retention');
      expect(await partitions('rate_snapshots_recent')).not.toContain(`rate_snapshots_recent_${daySuffix(day)}`);
      expect(await heldBy('payments', payment.id as string)).toEqual({ snapshot: then, eur: r30('1.45') });
      const read = expectSuccess(await org.test.post(`/payments/${payment.id}`, {}));
      expect(read.price_usd).toBe(r30('145'));
    } finally {
      await holder.end();
    }
  });

  it('a payment valued from rates whose day has gone since (the service still remembered them) is valued again from the rates that remain', async () => {
    const now = Date.now();
    const day = new Date(now - 47 * DAY_MS);
    const gone = await writeSnapshot(day, day, '1.47');
    const happenedAt = new Date(day.getTime() + 3_600_000).toISOString();
    const invoice = expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'EUR', price: '100' }] }), 201)
      .id as string;
    // A report for an invoice that does not exist is valued first (the service remembers the rates in force then), then refused.
    const refused = await org.test.post('/test_helpers/payments', {
      invoice_id: `invoice_${uuidv7()}`,
      provider_id: 'prov_card_eur',
      price: '100',
      status: 'COMPLETED',
      happened_at: happenedAt,
    });
    expect(refused.status).toBe(404);
    // Nothing holds those rates: their day goes.
    await runWorkerPass(org.test, 'partition-retention');
    expect(await where(gone)).toEqual({ recent: 0, kept: 0 });

    const payment = expectSuccess(
      await org.test.post('/test_helpers/payments', {
        invoice_id: invoice,
        provider_id: 'prov_card_eur',
        price: '100',
        status: 'COMPLETED',
        happened_at: happenedAt,
      }),
      201,
    );
    const held = await heldBy('payments', payment.id as string);
    expect(held.snapshot).not.toBe(gone);
    expect(held.eur).not.toBeNull();
    const read = expectSuccess(await org.test.post(`/payments/${payment.id}`, {}));
    expect(read.price_usd).toBe(r30(new D(100).mul(held.eur!)));
  });

  it("locks a day's two tables in the order rate reads take them before dropping it, so a read never deadlocks with the drop", async () => {
    // The days ahead made first: this pass then has only the day to drop (creating one also locks the tables).
    await runWorkerPass(org.test, 'partition-retention');
    const day = new Date(Date.now() - 53 * DAY_MS);
    await dayPartitions(day);
    const doomed = await writeSnapshot(day, day, '1.53');
    // A transaction that has read the snapshots (as a rate read or the refresher does, before the rates).
    const holder = await openHolder();
    try {
      await holder.query(`SELECT count(*) FROM rate_snapshots_recent`);
      let passed = false;
      const pass = runWorkerPass(org.test, 'partition-retention').then(() => (passed = true));
      const waiting = async () =>
        (
          await db((c) =>
            c.query<{ pid: number }>(
              `SELECT l.pid FROM pg_locks l WHERE NOT l.granted AND l.relation = 'rate_snapshots_recent'::regclass AND l.mode = 'AccessExclusiveLock'`,
            ),
          )
        ).rows;
      let waiter: number | undefined;
      for (const deadline = Date.now() + 6_000; !waiter; await new Promise((r) => setTimeout(r, 25))) {
        if (passed || Date.now() > deadline) throw new Error('the pass never waited for the snapshots table');
        waiter = (await waiting())[0]?.pid;
      }
      // Waiting there, the pass holds nothing of the rates table: the read may still take it, then finish.
      const held = await db((c) => c.query(`SELECT 1 FROM pg_locks WHERE pid = $1 AND granted AND relation = 'exchange_rates_recent'::regclass`, [waiter]));
      expect(held.rows).toEqual([]);
      await holder.query(`SELECT count(*) FROM exchange_rates_recent`);
      await holder.query('COMMIT');
      await pass;
      expect(await where(doomed)).toEqual({ recent: 0, kept: 0 });
    } finally {
      await holder.end();
    }
  });

  it('a payment valued from a day while a pass is dropping it waits for the drop, then is valued again from the rates that remain', async () => {
    const now = Date.now();
    const day = new Date(now - 49 * DAY_MS);
    await dayPartitions(day);
    const doomed = await writeSnapshot(day, day, '1.49');
    const invoice = expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'EUR', price: '100' }] }), 201)
      .id as string;
    const advisoryWaits = async () =>
      (
        await db((c) =>
          c.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory' AND datname = current_database()`,
          ),
        )
      ).rows[0].n;
    const until = async (what: string, done: () => Promise<boolean>) => {
      for (const deadline = Date.now() + 4_000; !(await done()); await new Promise((r) => setTimeout(r, 25))) {
        if (Date.now() > deadline) throw new Error(`never: ${what}`);
      }
    };

    // The keep lock held here: a pass that has read the day's references waits for it before its copies and the DROP.
    const holder = await openHolder();
    try {
      await holder.query(`SELECT pg_advisory_xact_lock(hashtext('rate_history_keep'))`);
      let passed = false;
      const pass = runWorkerPass(org.test, 'partition-retention').then(() => (passed = true));
      await until('the pass waited', async () => passed || (await advisoryWaits()) === 1);
      // The payment is valued from the day, still there; it then waits behind the pass.
      const reported = org.test.post('/test_helpers/payments', {
        invoice_id: invoice,
        provider_id: 'prov_card_eur',
        price: '100',
        status: 'COMPLETED',
        happened_at: new Date(day.getTime() + 3_600_000).toISOString(),
      });
      await until('the payment waited behind the pass', async () => passed || (await advisoryWaits()) === 2);
      await holder.query('COMMIT');
      await pass;
      const payment = expectSuccess(await reported, 201);

      expect(await where(doomed)).toEqual({ recent: 0, kept: 0 });
      const held = await heldBy('payments', payment.id as string);
      expect(held.snapshot).not.toBe(doomed);
      expect(held.eur).not.toBeNull();
      expect(expectSuccess(await org.test.post(`/payments/${payment.id}`, {})).price_usd).toBe(r30(new D(100).mul(held.eur!)));
    } finally {
      await holder.end();
    }
  });

  it("a refund at the invoice's rate, of an invoice that recorded no snapshot, is valued at its payment's rates and keeps them when their day is dropped while it is being written", async () => {
    const now = Date.now();
    const day = new Date(now - 43 * DAY_MS);
    await dayPartitions(day);
    const then = await writeSnapshot(day, day, '1.43');
    const invoice = expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'EUR', price: '100' }] }), 201)
      .id as string;
    // Paid (as reported late) at the day's rates, by an invoice written before invoices recorded their snapshot:
    // a refund at the invoice's rate takes the rates it was paid at.
    const paidAt = new Date(day.getTime() + 3_600_000);
    expectSuccess(
      await org.test.post('/test_helpers/payments', {
        invoice_id: invoice,
        provider_id: 'prov_card_eur',
        price: '100',
        status: 'COMPLETED',
        happened_at: paidAt.toISOString(),
      }),
      201,
    );
    await db((c) => c.query(`UPDATE invoices SET rates_snapshot_id = NULL, rates_taken_at = $2 WHERE id = $1`, [invoice, paidAt]));

    // The refund is valued, then waits for the invoice's refunds lock.
    const holder = await openHolder();
    try {
      await holder.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`refunds:test:${invoice}`]);
      const asked = org.test.post(`/invoices/${invoice}/refunds`, { amount: '10', currency: 'EUR', rate: 'invoice' });
      const refund = expectSuccess(await passWhileWriteWaits(holder, asked), 201);
      expect(refund.amount_usd).toBe(r30('14.3'));

      await runWorkerPass(org.test, 'partition-retention');
      expect(await partitions('rate_snapshots_recent')).not.toContain(`rate_snapshots_recent_${daySuffix(day)}`);
      expect(await heldBy('refunds', refund.id as string)).toEqual({ snapshot: then, eur: r30('1.43') });
    } finally {
      await holder.end();
    }
  });

  it('keeps, when their day goes, the snapshots in force at some moment of the last day (an invoice priced from one may not have committed yet), and not one replaced before', async () => {
    const now = Date.now();
    const day = new Date(now - 47 * DAY_MS);
    await dayPartitions(day);
    // Neither is held by anything: `replaced` gave way to `lately` 30 hours ago; `lately` was in force until the
    // newer rates taken a moment ago (the tests above), so a write priced within the last day may record it.
    const replaced = await writeSnapshot(day, new Date(now - 40 * 3_600_000), '1.61');
    const lately = await writeSnapshot(new Date(day.getTime() + 1000), new Date(now - 30 * 3_600_000), '1.62');
    const [replacedRates, latelyRates] = [await where(replaced), await where(lately)];
    expect(replacedRates.recent).toBeGreaterThan(40);
    expect(latelyRates.recent).toBe(replacedRates.recent);

    await runWorkerPass(org.test, 'partition-retention');
    expect(await partitions('rate_snapshots_recent')).not.toContain(`rate_snapshots_recent_${daySuffix(day)}`);
    expect(await where(replaced)).toEqual({ recent: 0, kept: 0 });
    expect(await where(lately)).toEqual({ recent: 0, kept: latelyRates.recent });
  });
});
