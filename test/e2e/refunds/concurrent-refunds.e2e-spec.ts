import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { r30 } from '../../support/money';

/** The value of one unlabeled metric in a Prometheus text answer. */
function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`no metric ${name} in /metrics`);
  return Number(line.slice(name.length + 1));
}

const POOL = 3;
const PARALLEL = 8;

/**
 * Refund creation runs on one connection: the refund's lock and every read made under it (the
 * invoice's payments, the test clock) use the transaction's own connection. So more refunds of one
 * invoice at once than the pool has connections queue for the lock one after the other, and none of
 * them borrows a second connection while it holds one (the pool's own figures, counted by the
 * service and served on /metrics, show it).
 */
describe('refunds: many at once on one invoice, with a small pool', () => {
  let service: IsolatedService;
  let api: Api;
  let metrics: Api;
  beforeAll(async () => {
    service = await startIsolatedService({ DB_POOL_SIZE: String(POOL), CLOCK_CONTROL: 'true' });
    api = (await service.createOrg('Refund storm')).test;
    metrics = new Api(null, service.server.baseUrl);
  });
  afterAll(async () => service?.stop());

  it('creates exactly one refund of the full amount and refuses the rest, without a second connection per transaction', async () => {
    // A moved test clock: reading it is a statement too, and it must go through the transaction.
    expectSuccess(await api.post('/test_helpers/clock', { advance_seconds: 60 }), 200);
    const invoice = expectSuccess(await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '100' }] }), 201).id as string;
    expectSuccess(await api.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_card_usd', price: '100', status: 'COMPLETED' }), 201);
    const before = (await metrics.get('/metrics')).text;
    expect(metric(before, 'db_pool_nested_borrows_total')).toBe(0);

    const answers = await Promise.all(Array.from({ length: PARALLEL }, () => api.post(`/invoices/${invoice}/refunds`, {})));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(PARALLEL - 1).fill(400)]);
    const created = answers.find((a) => a.status === 201)!;
    expect(created.body.data.amount_usd).toBe(r30(100));
    for (const refused of answers.filter((a) => a.status !== 201)) {
      expect(['refund_exceeds_paid', 'nothing_to_refund']).toContain(refused.body.code);
    }

    // The service's own background steps share the small pool and may be queued for a moment as
    // the storm ends; the pool settles once they have run (a leaked or stuck connection never does).
    let after = (await metrics.get('/metrics')).text;
    for (let tries = 0; tries < 50 && metric(after, 'db_pool_waiting_clients') > 0; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      after = (await metrics.get('/metrics')).text;
    }
    // No request took a second connection while its own transaction held one, let alone waited for it.
    expect(metric(after, 'db_pool_nested_borrows_total')).toBe(0);
    expect(metric(after, 'db_pool_nested_borrow_waits_total')).toBe(0);
    // The pool is whole again and nobody is left waiting.
    expect(metric(after, 'db_pool_waiting_clients')).toBe(0);
    expect(metric(after, 'db_pool_total_connections')).toBeLessThanOrEqual(POOL);

    const refunds = expectSuccess(await api.get(`/refunds?invoice_id=${invoice}`));
    expect(refunds.items.map((r: { id: string }) => r.id)).toEqual([created.body.data.id]);
  });
});
