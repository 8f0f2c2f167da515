import { Client } from 'pg';
import { FOR_INVOICE_SQL, INSERT_PAYMENT_SETTLING_SQL, SETTLING_SQL } from '../../../src/modules/payments/persistence/invoice-payments-sql';
import type { Scope } from '../../../src/shared/auth/request-context';
import { keysetPageStatement } from '../../../src/shared/db/keyset-page';
import { paymentListRequest } from '../../../src/modules/payments/persistence/payment-list';
import { expectSuccess } from '../../support/envelope';
import type { IsolatedService } from '../../support/isolated';
import { genericPlan, FreshDatabase, nodesOf, rowsTouched, startFreshDatabase } from '../../support/plans';

/** One organization's payments, one per invoice, loaded after the statistics were taken (or never taken). */
const ROWS = 3_000;

/**
 * The reads a payment write makes of its invoice's payments (the settlement's, the insert's that
 * returns them, and the invoice's payment list), on a payments table whose statistics do not know the
 * organization: never analyzed, or analyzed while it was empty (a fresh install; autovacuum analyzes
 * only after enough rows changed, and CI's PostgreSQL never does). Planned as the service's sessions
 * plan them (generic plans), they must find the invoice's payments through the invoice's index and
 * not walk the organization's range: that made every payment write read all of the merchant's payments.
 */
describe.each([
  ['never analyzed', false],
  ['analyzed while empty', true],
])('payment writes read an invoice’s payments through its index (payments %s)', (_name, analyzeEmpty) => {
  let service: IsolatedService;
  let db: Client;
  let org: FreshDatabase['org'];

  beforeAll(async () => {
    ({ service, db, org } = await startFreshDatabase('Growing merchant'));
    if (analyzeEmpty) await db.query('ANALYZE payments');
    await db.query(`SET session_replication_role = replica`);
    await db.query(
      `INSERT INTO invoices (id, organization_id, mode, status, currency, price, price_usd, metadata, expires_at, created_at, updated_at)
       SELECT 'invoice_grow_' || g, $1, 'test', 'PENDING', 'USD', 10, 10, '{}'::jsonb, now() + interval '1 day', now() - g * interval '1 second', now()
         FROM generate_series(1, $2::int) g`,
      [org.id, ROWS],
    );
    await db.query(
      `INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id, status,
                             happened_at, created_at, updated_at)
       SELECT 'payment_grow_' || g, $1, 'test', 'prov_bitcoin_btc', 'invoice_grow_' || g, 'BITCOIN', 1, 1, 'rates_bundled_20261120', 'PENDING',
              now(), now() - g * interval '1 second', now()
         FROM generate_series(1, $2::int) g`,
      [org.id, ROWS],
    );
    await db.query(`SET session_replication_role = DEFAULT`);
    const stats = await db.query(`SELECT count(*)::int AS n FROM pg_stats WHERE tablename = 'payments'`);
    expect(stats.rows[0].n).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await service?.stop();
  });

  const invoiceId = 'invoice_grow_1500';
  const insertParams = () => {
    const now = new Date();
    return [
      ...[
        'payment_grow_new',
        org.id,
        'test',
        'prov_bitcoin_btc',
        invoiceId,
        'BITCOIN',
        '1',
        '1',
        'rates_bundled_20261120',
        'PENDING',
        null,
        now,
        now,
        now,
        0,
        1,
      ],
      ...['event_grow_new', org.id, 'test', 'payment.created', '{}', now],
    ];
  };

  it.each([
    ['the settlement’s read', () => [SETTLING_SQL, [org.id, 'test', invoiceId]], 1],
    ['the insert that returns the invoice’s payments', () => [INSERT_PAYMENT_SETTLING_SQL, insertParams()], 2],
    ['the invoice’s payments, oldest first', () => [FOR_INVOICE_SQL, [org.id, 'test', invoiceId]], 1],
    [
      'the payments list filtered by the invoice',
      () => {
        const { text, params } = keysetPageStatement(
          paymentListRequest({ organizationId: org.id, mode: 'test' } as Scope, { invoiceId, limit: 20, offset: 0 }),
        );
        return [text, params];
      },
      1,
    ],
  ] as Array<[string, () => [string, unknown[]], number]>)('%s reads the invoice’s payments, not the organization’s', async (_what, statement, found) => {
    const [text, params] = statement();
    const plan = await genericPlan(db, text, params);
    const payments = nodesOf(plan).filter((n) => ['Index Scan', 'Index Only Scan', 'Bitmap Heap Scan', 'Seq Scan'].includes(n['Node Type']));
    // The invoice's own payments (one loaded, plus the one inserted) and nothing else of the organization's 3,000.
    expect(payments.map((n) => ({ node: n['Node Type'], index: n['Index Name'], rows: rowsTouched(n) })).filter((n) => n.rows > 2)).toEqual([]);
    expect(payments.reduce((sum, n) => sum + (n['Actual Rows'] ?? 0), 0)).toBeGreaterThanOrEqual(found - 1);
  });

  it('records a payment on such an invoice and settles it from all its payments', async () => {
    const paid = expectSuccess(await org.test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '9' }), 201);
    expect(paid.status).toBe('PENDING');
    const invoice = expectSuccess<{ payments: Array<{ id: string }> }>(await org.test.post(`/invoices/${invoiceId}`, { expand: ['payments'] }));
    expect(invoice.payments.map((p) => p.id)).toEqual(['payment_grow_1500', paid.id]);
  });
});
