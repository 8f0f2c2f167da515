import { Client } from 'pg';
import { v7 as uuidv7 } from 'uuid';
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

  it('drops a day past retention but keeps the snapshot an invoice, its payment and a refund were priced from; rates are still served', async () => {
    const now = Date.now();
    const oldDay = new Date(now - 40 * DAY_MS);
    // Written 40 days ago (an import of rates dated later, so one is in force now): the invoice is priced from `held`.
    const held = await writeSnapshot(oldDay, new Date(now - 60_000), '1.5');
    const unheld = await writeSnapshot(new Date(oldDay.getTime() + 1000), new Date(now - 120_000), '1.6');
    await eurQuotedAt('15');

    const invoice = expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'EUR', price: '100' }] }), 201)
      .id as string;
    expectSuccess(await org.test.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_card_usd', price: '150', status: 'COMPLETED' }), 201);
    const before = expectSuccess(await org.test.post(`/invoices/${invoice}`, { expand: ['payments'] }));
    expect(before.price_usd).toBe(r30('150'));

    // Newer rates take over: the held snapshot is no longer the one in force.
    await writeSnapshot(new Date(now), new Date(now - 10_000), '1.2');
    await eurQuotedAt('12');
    const heldBefore = await where(held);
    expect(heldBefore).toEqual({ recent: heldBefore.recent, kept: 0 });
    expect(heldBefore.recent).toBeGreaterThan(40);

    await runWorkerPass(org.test, 'partition-retention');

    // The old day (its rows had landed in the default partition: no range covered them) is gone from both tables.
    for (const table of ['rate_snapshots_recent', 'exchange_rates_recent']) expect(await partitions(table)).not.toContain(`${table}_${daySuffix(oldDay)}`);
    expect(await where(held)).toEqual({ recent: 0, kept: heldBefore.recent });
    expect(await where(unheld)).toEqual({ recent: 0, kept: 0 });

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
});
