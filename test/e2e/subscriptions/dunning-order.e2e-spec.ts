import type { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { databaseOf } from '../timing/timing-helpers';
import { runWorkerPass } from '../../support/workers';
import { moveClockTo, nextInvoice, parseTime, readSubscription, recurringProduct, schedulerPass, waitFor } from './subscription-helpers';

/**
 * Dunning counts period outcomes in period order, whatever order they are decided in: the status
 * follows the latest period (by start) whose outcome is decided, and only two unpaid periods adjacent
 * by index cancel. A partly paid invoice whose payment window ends counts as unpaid.
 */
describe('dunning in period order', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    // The scheduler never ticks: each step runs the passes it needs (schedulerPass, settled) and finds them done.
    service = await startIsolatedService({ CLOCK_CONTROL: 'true', SUBSCRIPTIONS_TICK_SECONDS: '0' });
  });
  afterAll(async () => service?.stop());

  async function subscribed(api: Api, interval: 'DAY' | 'WEEK'): Promise<any> {
    const { productId, schemaId } = await recurringProduct(api, {
      payment_type: 'ADVANCE',
      renew_type: 'ANNIVERSARY',
      billing_type: 'FULL',
      interval_type: interval,
    });
    return expectSuccess(await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'dunning@example.com' }), 201);
  }

  /** A sweep of the invoices (a payment window may have ended), then a pass of the scheduler: both ended. */
  const settled = (api: Api) => async () => {
    await runWorkerPass(api, 'invoice-sweeper');
    await schedulerPass(api)();
  };

  /** Waits until period `index`'s outcome is decided (as the scheduler stored it); answers it. */
  async function decided(api: Api, subscriptionId: string, index: number): Promise<string | null> {
    const read = () =>
      withClient(databaseOf(service), async (c) => {
        const rows = await c.query<{ outcome: string | null }>(`SELECT outcome FROM subscription_invoices WHERE subscription_id = $1 AND period_index = $2`, [
          subscriptionId,
          index,
        ]);
        return rows.rows[0]?.outcome ?? null;
      });
    return waitFor(read, (o) => o !== null, undefined, settled(api));
  }

  const pay = async (api: Api, invoice: { id: string; price: string }, price = invoice.price) =>
    expectSuccess(await api.post('/test_helpers/payments', { invoice_id: invoice.id, provider_id: 'prov_card_usd', price, status: 'COMPLETED' }), 201);
  const voidInvoice = async (api: Api, id: string) => expectSuccess(await api.put(`/invoices/${id}`, { status: 'VOIDED' }));

  it('a later period paid before an earlier one is voided leaves it ACTIVE', async () => {
    const api = (await service.createOrg('Paid ahead')).test;
    const sub = await subscribed(api, 'DAY');
    const first = await nextInvoice(api, sub.id, null, schedulerPass(api));
    await moveClockTo(api, parseTime(sub.current_period_end));
    const second = await nextInvoice(api, sub.id, first.id, schedulerPass(api));
    await pay(api, second);
    expect(await decided(api, sub.id, 1)).toBe('paid');
    await voidInvoice(api, first.id);
    expect(await decided(api, sub.id, 0)).toBe('unpaid');
    expect((await readSubscription(api, sub.id)).status).toBe('ACTIVE');
  }, 90_000);

  it('unpaid, paid, unpaid in period order never cancels, whatever order they are decided in', async () => {
    const api = (await service.createOrg('Never twice in a row')).test;
    const sub = await subscribed(api, 'DAY');
    const invoices = [await nextInvoice(api, sub.id, null, schedulerPass(api))];
    await moveClockTo(api, parseTime(sub.current_period_end));
    invoices.push(await nextInvoice(api, sub.id, invoices[0].id, schedulerPass(api)));
    const second = await readSubscription(api, sub.id);
    await moveClockTo(api, parseTime(second.current_period_end));
    invoices.push(await nextInvoice(api, sub.id, invoices[1].id, schedulerPass(api)));

    await voidInvoice(api, invoices[0].id);
    expect(await decided(api, sub.id, 0)).toBe('unpaid');
    await voidInvoice(api, invoices[2].id);
    expect(await decided(api, sub.id, 2)).toBe('unpaid');
    // Periods 0 and 2 are unpaid, but not adjacent: PAST_DUE, not CANCELED.
    expect((await readSubscription(api, sub.id)).status).toBe('PAST_DUE');
    await pay(api, invoices[1]);
    expect(await decided(api, sub.id, 1)).toBe('paid');
    // The latest decided period (2) is unpaid.
    expect((await readSubscription(api, sub.id)).status).toBe('PAST_DUE');
  }, 90_000);

  it('two adjacent unpaid periods cancel it, even decided out of order with a later period paid in between', async () => {
    const api = (await service.createOrg('Twice in a row')).test;
    const sub = await subscribed(api, 'DAY');
    const invoices = [await nextInvoice(api, sub.id, null, schedulerPass(api))];
    await moveClockTo(api, parseTime(sub.current_period_end));
    invoices.push(await nextInvoice(api, sub.id, invoices[0].id, schedulerPass(api)));
    const second = await readSubscription(api, sub.id);
    await moveClockTo(api, parseTime(second.current_period_end));
    invoices.push(await nextInvoice(api, sub.id, invoices[1].id, schedulerPass(api)));

    await voidInvoice(api, invoices[1].id);
    expect(await decided(api, sub.id, 1)).toBe('unpaid');
    await pay(api, invoices[2]);
    expect(await decided(api, sub.id, 2)).toBe('paid');
    expect((await readSubscription(api, sub.id)).status).toBe('ACTIVE');
    // Period 0 unpaid next to period 1 unpaid: canceled, though period 2 was paid.
    await voidInvoice(api, invoices[0].id);
    const canceled = await waitFor(
      () => readSubscription(api, sub.id),
      (s) => s.status === 'CANCELED',
      10_000,
      settled(api),
    );
    expect(canceled).toMatchObject({ status: 'CANCELED', next_invoice_at: null });
  }, 90_000);

  it('a second unpaid period that cancels an ARREARS subscription first bills the period it served meanwhile', async () => {
    const api = (await service.createOrg('Served, then canceled')).test;
    const { productId, schemaId } = await recurringProduct(api, {
      payment_type: 'ARREARS',
      renew_type: 'ANNIVERSARY',
      billing_type: 'FULL',
      interval_type: 'DAY',
    });
    const sub = expectSuccess(
      await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'served@example.com' }),
      201,
    );
    const periodEnd = async () => parseTime((await readSubscription(api, sub.id)).current_period_end);
    // Periods 0 and 1 invoiced at their ends; period 0's invoice voided: PAST_DUE.
    await moveClockTo(api, await periodEnd());
    const first = await nextInvoice(api, sub.id, null, schedulerPass(api));
    await moveClockTo(api, await periodEnd());
    const second = await nextInvoice(api, sub.id, first.id, schedulerPass(api));
    await voidInvoice(api, first.id);
    expect(await decided(api, sub.id, 0)).toBe('unpaid');
    // Period 2 is served to its end, and before the scheduler's next pass period 1's invoice is voided: the
    // outcome heard as an event cancels the subscription.
    await moveClockTo(api, await periodEnd());
    await voidInvoice(api, second.id);
    const canceled = await waitFor(
      () => readSubscription(api, sub.id),
      (s) => s.status === 'CANCELED',
      10_000,
    );
    expect(canceled.next_invoice_at).toBeNull();
    // Period 2 was recorded before the cancel, and the scheduler's pass issues its invoice.
    const third = await nextInvoice(api, sub.id, second.id, schedulerPass(api));
    const periods = await withClient(
      databaseOf(service),
      async (c) =>
        (
          await c.query<{ period_index: number; invoice_id: string | null }>(
            `SELECT period_index, invoice_id FROM subscription_invoices WHERE subscription_id = $1 ORDER BY period_index`,
            [sub.id],
          )
        ).rows,
    );
    expect(periods.map((p) => p.period_index)).toEqual([0, 1, 2]);
    expect(periods[2].invoice_id).toBe(third.id);
  }, 90_000);

  it('a partly paid period invoice whose payment window ended counts as unpaid', async () => {
    const api = (await service.createOrg('Partly paid')).test;
    const sub = await subscribed(api, 'WEEK');
    const first = await nextInvoice(api, sub.id, null, schedulerPass(api));
    await pay(api, first, '4');
    // Its expiry (7 days) and the monitoring window after it (1 day) pass; the next period's invoice is still open.
    await moveClockTo(api, new Date(parseTime(first.expires_at ?? sub.current_period_end).getTime() + 86_400_000 + 60_000));
    expect(await decided(api, sub.id, 0)).toBe('unpaid');
    expect((await readSubscription(api, sub.id)).status).toBe('PAST_DUE');
  }, 90_000);
});
