import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { r30 } from '../../support/money';
import { withClient } from '../../support/pg';
import { databaseOf } from '../timing/timing-helpers';
import { nextInvoice, readSubscription, recurringProduct, schedulerPass, waitFor } from './subscription-helpers';

describe('a period invoice that cannot be made now', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    // Live prices come from a source that never answers: every live rate is too old to lock a price in.
    // The scheduler never ticks: the test runs its passes (schedulerPass) and finds them done.
    service = await startIsolatedService({ RATE_SOURCES: 'http://127.0.0.1:9/rates', RATES_MAX_AGE_SECONDS: '10', SUBSCRIPTIONS_TICK_SECONDS: '0' });
  });
  afterAll(async () => service?.stop());

  it('is retried on later passes, each time after a longer wait, without holding back the other subscriptions due with it', async () => {
    const org = await service.createOrg('Stale live rates');
    const test = await recurringProduct(org.test, { payment_type: 'ADVANCE', renew_type: 'ANNIVERSARY', billing_type: 'FULL' });
    // The live plan in EUR, so its invoice needs a live rate.
    const eur = expectSuccess(
      await org.live.post('/products', {
        name: 'EUR plan',
        description: 'Monthly in EUR',
        metadata: {},
        schemas: [
          {
            name: 'Monthly',
            description: 'Monthly',
            currency: 'EUR',
            type: 'RECURRING',
            base_price: 10,
            interval_type: 'MONTH',
            interval_count: 1,
            payment_type: 'ADVANCE',
            renew_type: 'ANNIVERSARY',
            billing_type: 'FULL',
            configurations: [],
          },
        ],
      }),
    ).id;
    const eurSchema = expectSuccess(await org.live.get(`/products/${eur}`)).schemas[0].id;
    expectError(await org.live.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'EUR', price: '10' }] }), 503, {
      code: 'rates_unavailable',
    });
    const stuck = expectSuccess(
      await org.live.post('/subscriptions', { product_id: eur, billing_schema_id: eurSchema, customer_email: 'live@example.com' }),
      201,
    );
    // Due after the live one, so the scheduler meets the failing one first in the same batch.
    const fine = expectSuccess(
      await org.test.post('/subscriptions', { product_id: test.productId, billing_schema_id: test.schemaId, customer_email: 'test@example.com' }),
      201,
    );
    const invoice = await nextInvoice(org.test, fine.id, null, schedulerPass(org.test));
    expect(invoice).toMatchObject({ subscription_id: fine.id, price: r30(10) });
    // Several passes later the live one has no invoice: its period is tried again on each pass, and the
    // subscription has moved on to its next period meanwhile (a failing period holds back no later one).
    // Waited for until its period has been tried more than once (a pass run on demand before each look), not for a fixed time.
    const attemptsOf = () =>
      withClient(databaseOf(service), async (c) =>
        Number(
          (await c.query(`SELECT attempts FROM subscription_invoices WHERE subscription_id = $1 AND period_index = 0`, [stuck.id])).rows[0]?.attempts ?? 0,
        ),
      );
    expect(await waitFor(attemptsOf, (n) => n > 1, undefined, schedulerPass(org.test))).toBe(2);
    // From the second failure on it waits longer each time: 2 s, then 4 s (a pass before that leaves it alone).
    const retryOf = () =>
      withClient(databaseOf(service), async (c) => {
        const row = (
          await c.query(
            `SELECT attempts, extract(epoch FROM retry_at - clock_timestamp()) * 1000 AS wait_ms FROM subscription_invoices WHERE subscription_id = $1 AND period_index = 0`,
            [stuck.id],
          )
        ).rows[0];
        return { attempts: Number(row.attempts), waitMs: Number(row.wait_ms) };
      });
    const second = await retryOf();
    expect(second.waitMs).toBeGreaterThan(1_000);
    await schedulerPass(org.test)();
    expect((await retryOf()).attempts).toBe(2);
    await new Promise((r) => setTimeout(r, second.waitMs + 100));
    await schedulerPass(org.test)();
    const third = await retryOf();
    expect(third.attempts).toBe(3);
    expect(third.waitMs).toBeGreaterThan(2_000);
    expect(third.waitMs).toBeLessThanOrEqual(4_000);
    const after = await readSubscription(org.live, stuck.id);
    expect(after).toMatchObject({ latest_invoice_id: null, status: 'ACTIVE', current_period_start: stuck.current_period_start });
    expect(after.next_invoice_at > stuck.next_invoice_at).toBe(true);
    expect(expectSuccess(await org.live.post('/invoices/list', {})).total).toBe(0);
    const failed = expectSuccess(await org.live.post('/events', { type: 'subscription.invoice_failed' })).items;
    expect(failed.map((e: any) => e.data.object.subscription_id)).toEqual([stuck.id]);
  }, 90_000);
});
