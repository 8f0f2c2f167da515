import { randomUUID } from 'node:crypto';
import type { ApiResponse } from '../../support/api';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { linesWith } from '../../support/server';
import { awayFromHourBoundary, dashboard, HOUR_BOUNDARY_HOOK_TIMEOUT } from './analytics-helpers';

/**
 * Every invoice and payment write of an organization moves the same few rollup rows (today's
 * buckets and series, the kept day windows). Writers that took those rows in different orders
 * deadlocked: PostgreSQL then cancels one of them after deadlock_timeout (1 s), the service runs it
 * again, and after three such losses the client gets a 500. A burst of mixed writes in one
 * organization must run without a single deadlock, which the service logs as `transaction_retried`.
 */
describe('rollup writers of one organization never deadlock', () => {
  let service: IsolatedService;

  beforeAll(async () => {
    await awayFromHourBoundary();
    service = await startIsolatedService();
  }, HOUR_BOUNDARY_HOOK_TIMEOUT);
  afterAll(() => service?.stop());

  it('a burst of invoice creations, payments and payment status changes: every write answered 2xx, no transaction retried, dashboard exact', async () => {
    const org = await service.createOrg('Lock order');
    const api = org.test;
    // The kept day windows exist from the first dashboard call on: from then every write moves them too.
    await dashboard(api, 'last_7_days');

    const invoices: string[] = [];
    const pending: string[] = [];
    const answers: Array<{ what: string; res: ApiResponse }> = [];
    let created = 0;
    let paymentsMade = 0;
    const price = (i: number) => `${10 + (i % 50)}.${String(i % 100).padStart(2, '0')}`;

    const createInvoice = async (i: number) => {
      const res = await api.post(
        '/invoices/create',
        {
          items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: price(i) }],
          customer_email: `buyer${i % 4}@example.com`,
        },
        { headers: { 'idempotency-key': randomUUID() } },
      );
      answers.push({ what: 'invoice', res });
      if (res.status === 201) {
        created++;
        invoices.push(res.body.data.id);
      }
    };
    for (let i = 0; i < 6; i++) await createInvoice(i);

    let op = 0;
    const worker = async (w: number) => {
      for (let k = 0; k < 16; k++) {
        const i = op++;
        const roll = (i * 7 + w) % 10;
        if (roll < 4) {
          await createInvoice(i);
        } else if (roll < 8 || pending.length === 0) {
          const res = await api.post('/test_helpers/payments', {
            invoice_id: invoices[i % invoices.length],
            provider_id: i % 2 ? 'prov_card_usd' : 'prov_ethereum_usdt',
            price: price(i),
            status: roll % 3 === 0 ? 'COMPLETED' : 'PENDING',
            idempotency_key: randomUUID(),
          });
          answers.push({ what: 'payment', res });
          if (res.status === 201) {
            paymentsMade++;
            if (res.body.data.status === 'PENDING') pending.push(res.body.data.id);
          }
        } else {
          const id = pending.shift()!;
          const res = await api.post(`/test_helpers/payments/${id}/status`, { status: i % 2 ? 'COMPLETED' : 'FAILED' });
          answers.push({ what: 'status', res });
        }
      }
    };
    await Promise.all(Array.from({ length: 12 }, (_, w) => worker(w)));

    const refused = answers.filter((a) => a.res.status >= 300).map((a) => `${a.what} ${a.res.status} ${a.res.text.slice(0, 200)}`);
    expect(refused).toEqual([]);
    const retried = linesWith(service.server, 'transaction_retried');
    expect(retried).toEqual([]);

    const d = await dashboard(api, 'last_7_days');
    expect(d.invoices.count).toBe(created);
    expect(d.payments.count).toBe(paymentsMade);
    expect(d.customers.unique).toBe(4);
  });
});
