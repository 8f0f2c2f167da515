import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { databaseOf } from '../timing/timing-helpers';
import { recurringProduct, ts, waitFor } from './subscription-helpers';

/** The scheduler's log lines about the given subscriptions, in order: `failed <id>` or `invoiced <id>`. */
function outcomesIn(output: string, ids: Set<string>): string[] {
  return output
    .split('\n')
    .filter((line) => line.includes('"subscription_invoice_failed"') || line.includes('"subscription_invoiced"'))
    .map((line) => JSON.parse(line))
    .filter((entry) => ids.has(entry.subscription_id))
    .map((entry) => `${entry.event === 'subscription_invoiced' ? 'invoiced' : 'failed'} ${entry.subscription_id}`);
}

/**
 * Fair subscription periods (decisions §22): the scheduler takes due subscriptions round-robin
 * across organizations, at most WORKER_ORG_BATCH of one organization's mode per batch, and one
 * whose invoice cannot be issued goes to the back. Two organizations have 12 due subscriptions
 * each whose invoices cannot be made (live EUR prices while every live rate is stale), all due
 * before a third organization's one: the third organization's invoice is issued in the first batch.
 */
describe('the subscription scheduler takes organizations in turns', () => {
  let service: IsolatedService;

  beforeAll(async () => {
    service = await startIsolatedService({
      RATE_SOURCES: 'http://127.0.0.1:9/rates',
      RATES_MAX_AGE_SECONDS: '10',
      SUBSCRIPTIONS_TICK_SECONDS: '1',
      WORKER_ORG_BATCH: '2',
      RATE_LIMIT_ENABLED: 'false',
      LOG_LEVEL: 'info',
    });
  });
  afterAll(async () => service?.stop());

  /** A new organization's one monthly subscription (ADVANCE, USD), starting at `startsAt`. */
  async function quietSubscription(name: string, startsAt: string): Promise<{ id: string; next_invoice_at: string | null }> {
    const quiet = await service.createOrg(name);
    const plan = await recurringProduct(quiet.test, { payment_type: 'ADVANCE', renew_type: 'ANNIVERSARY', billing_type: 'FULL' });
    const body = { product_id: plan.productId, billing_schema_id: plan.schemaId, customer_email: 'quiet@example.com', starts_at: startsAt };
    return expectSuccess(await quiet.test.post('/subscriptions', body), 201);
  }

  /** Makes all of them due in one statement: `first` an hour ago, a second apart in their order; `last` a minute ago, after them. */
  const dueAtOnce = (first: readonly string[], last: string) =>
    withClient(databaseOf(service), (c) =>
      c.query(
        `UPDATE subscriptions SET next_invoice_at = CASE WHEN id = $2 THEN now() - interval '1 minute'
                                                         ELSE now() - interval '1 hour' + array_position($1::text[], id) * interval '1 second' END
          WHERE id = ANY($1::text[]) OR id = $2`,
        [first, last],
      ),
    );

  it("invoices a third organization's subscription in the first batch while two organizations' due ones keep failing", async () => {
    // Every subscription starts in two hours: nothing is due until the statement below makes them all due at once.
    const later = ts(new Date(Date.now() + 2 * 3600_000));
    const stuck: string[] = [];
    for (const name of ['Flood A', 'Flood B']) {
      const org = await service.createOrg(name);
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
      const schema = expectSuccess(await org.live.get(`/products/${eur}`)).schemas[0].id;
      for (let i = 0; i < 12; i++) {
        const created = expectSuccess(
          await org.live.post('/subscriptions', { product_id: eur, billing_schema_id: schema, customer_email: `s${i}@example.com`, starts_at: later }),
          201,
        );
        stuck.push(created.id);
      }
    }
    const mine = await quietSubscription('Quiet C', later);
    expect(mine.next_invoice_at).not.toBeNull();

    // All due in one statement: the flood's an hour ago, a second apart; the quiet one's a minute ago, after all of them.
    await dueAtOnce(stuck, mine.id);
    const ids = new Set([...stuck, mine.id]);
    const outcomes = await waitFor(
      async () => outcomesIn(service.server.output(), ids),
      (lines) => lines.includes(`invoiced ${mine.id}`),
      30_000,
    );
    const before = outcomes.slice(0, outcomes.indexOf(`invoiced ${mine.id}`));
    // Oldest first, a batch of 20 failing ones would come first; in turns, the first batch holds at
    // most two of each flooding organization, and the quiet one.
    expect(before.every((line) => line.startsWith('failed '))).toBe(true);
    expect(before.length).toBeLessThanOrEqual(4);

    // The failing ones are tried again on later passes, each organization's in turn, and never invoiced.
    const retried = await waitFor(
      async () => outcomesIn(service.server.output(), ids),
      (lines) => stuck.every((id) => lines.filter((l) => l === `failed ${id}`).length >= 2),
      30_000,
    );
    expect(retried.filter((l) => l.startsWith('invoiced '))).toEqual([`invoiced ${mine.id}`]);
  }, 120_000);

  it("invoices an organization's due period while another organization's many due subscriptions are still being moved on", async () => {
    const later = ts(new Date(Date.now() + 2 * 3600_000));
    const volume = await service.createOrg('Volume');
    const plan = await recurringProduct(volume.test, { payment_type: 'ADVANCE', renew_type: 'ANNIVERSARY', billing_type: 'FULL' });
    const many: string[] = [];
    for (let i = 0; i < 60; i++) {
      const body = { product_id: plan.productId, billing_schema_id: plan.schemaId, customer_email: `v${i}@example.com`, starts_at: later };
      many.push(expectSuccess(await volume.test.post('/subscriptions', body), 201).id as string);
    }
    const mine = await quietSubscription('Quiet D', later);
    // All due at once, the volume's first.
    await dueAtOnce(many, mine.id);
    const times = await waitFor(
      () =>
        withClient(databaseOf(service), async (c) => {
          const quietInvoice = await c.query(`SELECT created_at FROM invoices WHERE subscription_id = $1`, [mine.id]);
          const recorded = await c.query(
            `SELECT count(*)::int AS n, max(created_at) AS last FROM subscription_invoices WHERE subscription_id = ANY($1::text[])`,
            [many],
          );
          return { quiet: quietInvoice.rows[0]?.created_at as Date | undefined, volume: recorded.rows[0] as { n: number; last: Date } };
        }),
      (t) => t.quiet !== undefined && t.volume.n === many.length,
      60_000,
    );
    // In rounds (a batch of due subscriptions, then a batch of invoices), the quiet organization's invoice is
    // made in the first round: before the volume's last periods are even recorded, not after all of them.
    expect(times.quiet!.getTime()).toBeLessThan(new Date(times.volume.last).getTime());
  }, 120_000);
});
