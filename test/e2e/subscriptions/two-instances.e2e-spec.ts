import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { RunningServer, startServer } from '../../support/server';
import { databaseOf } from '../timing/timing-helpers';
import { moveClockTo, parseTime, readSubscription, recurringProduct, waitFor } from './subscription-helpers';

const ENV = { CLOCK_CONTROL: 'true', SUBSCRIPTIONS_TICK_SECONDS: '1', INVOICE_SWEEP_SECONDS: '0' };

describe('two instances on one database', () => {
  let service: IsolatedService;
  let second: RunningServer;
  beforeAll(async () => {
    service = await startIsolatedService(ENV);
    second = await startServer({ databaseUrl: databaseOf(service), env: ENV });
  });
  afterAll(async () => {
    await second?.stop();
    await service?.stop();
  });

  it('issue each period invoice once', async () => {
    const org = await service.createOrg('Two instances');
    const viaSecond = new Api(org.testKey, second.baseUrl);
    const { productId, schemaId } = await recurringProduct(org.test, { payment_type: 'ADVANCE', renew_type: 'ANNIVERSARY', billing_type: 'FULL' });
    const count = 40;
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const api = i % 2 ? viaSecond : org.test;
      ids.push(
        expectSuccess(await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: `c${i}@example.com` }), 201).id,
      );
    }
    const db = databaseOf(service);
    const invoiceCount = () =>
      withClient(db, async (c) => Number((await c.query('SELECT count(*) FROM invoices WHERE organization_id = $1', [org.id])).rows[0].count));
    expect(await waitFor(invoiceCount, (n) => n >= count, 60_000)).toBe(count);

    // A month on: every subscription's second period is due at once on both instances.
    const first = await readSubscription(org.test, ids[0]);
    // Each subscription's own first period end (a busy machine may create them in different seconds).
    const firstEnds = await Promise.all(ids.slice(0, 3).map(async (id) => (await readSubscription(org.test, id)).current_period_end));
    await moveClockTo(org.test, parseTime(first.current_period_end));
    expect(await waitFor(invoiceCount, (n) => n >= 2 * count, 60_000)).toBe(2 * count);
    // Both schedulers keep ticking: still nothing twice.
    await new Promise((r) => setTimeout(r, 3000));
    const perPeriod = await withClient(
      db,
      async (c) =>
        (
          await c.query(`SELECT subscription_id, period_start, count(*)::int AS n FROM invoices WHERE organization_id = $1 GROUP BY 1, 2 HAVING count(*) > 1`, [
            org.id,
          ])
        ).rows,
    );
    expect(perPeriod).toEqual([]);
    expect(await invoiceCount()).toBe(2 * count);
    const periods = await withClient(db, async (c) =>
      Number((await c.query('SELECT count(*) FROM subscription_invoices WHERE organization_id = $1', [org.id])).rows[0].count),
    );
    expect(periods).toBe(2 * count);
    for (const [i, id] of ids.slice(0, 3).entries()) expect((await readSubscription(viaSecond, id)).current_period_start).toBe(firstEnds[i]);
  }, 120_000);
});
