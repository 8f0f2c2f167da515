import { Client } from 'pg';
import type { Scope } from '../../../src/shared/auth/request-context';
import { keysetPageStatement, KeysetPageRequest } from '../../../src/shared/db/keyset-page';
import { parseAmount } from '../../../src/shared/money/money';
import { invoiceListRequest } from '../../../src/modules/invoices/persistence/invoice-list';
import { paymentListRequest } from '../../../src/modules/payments/persistence/payment-list';
import { expectSuccess } from '../../support/envelope';
import type { IsolatedService } from '../../support/isolated';
import { genericPlan, FreshDatabase, nodesOf, rowsTouched, startFreshDatabase } from '../../support/plans';

/** Invoices and payments of the organization, loaded at once and never analyzed (a fresh import). */
const ROWS = 2_500;
/**
 * Other organizations' invoices and payments beside them, loaded the same way: the organization is then
 * a small part of each table, as on a server, and an index range on the scope looks as cheap to a
 * planner without statistics as a primary-key lookup.
 */
const OTHER_ORGS = 30;

/**
 * On tables whose statistics are missing or stale (a fresh import, a new large merchant, a bulk load
 * before autovacuum's ANALYZE), the planner may believe an organization has one invoice. A plan that
 * trusts it must still not go quadratic: no part of the statement may run once per invoice of the
 * organization. Measured here on a database of its own whose tables were never analyzed.
 */
describe('list plans on tables that were never analyzed', () => {
  let service: IsolatedService;
  let db: Client;
  let org: FreshDatabase['org'];

  beforeAll(async () => {
    ({ service, db, org } = await startFreshDatabase('Fresh import'));
    // The other organizations' rows: written straight in (no rollup triggers: this session replicates).
    await db.query(`SET session_replication_role = replica`);
    await db.query(`INSERT INTO organizations (id, name, created_at) SELECT 'org_peer_' || o, 'Peer ' || o, now() FROM generate_series(1, $1::int) o`, [
      OTHER_ORGS,
    ]);
    await db.query(
      `INSERT INTO invoices (id, organization_id, mode, status, currency, price, price_usd, metadata, expires_at, created_at, updated_at, payment_provider_ids)
       SELECT 'invoice_peer_' || o || '_' || g, 'org_peer_' || o, 'test', (ARRAY['PENDING','COMPLETED','VOIDED','PROCESSING','WAITING_FOR_CONFIRMATIONS','PARTIALLY_PAID'])[g % 6 + 1],
              'USD', (g % 1000) + 1, (g % 1000) + 1, '{}'::jsonb, now() + interval '1 day', now() - g * interval '1 minute', now() - g * interval '1 minute',
              ARRAY['prov_bitcoin_btc']
         FROM generate_series(1, $1::int) o, generate_series(1, $2::int) g`,
      [OTHER_ORGS, ROWS],
    );
    await db.query(
      `INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id, status,
                             happened_at, created_at, updated_at)
       SELECT 'payment_peer_' || o || '_' || g, 'org_peer_' || o, 'test', 'prov_bitcoin_btc', 'invoice_peer_' || o || '_' || g, 'BITCOIN', (g % 1000) + 1, (g % 1000) + 1,
              'rates_bundled_20261120', (ARRAY['COMPLETED','PENDING','FAILED','CANCELLED'])[g % 4 + 1],
              now() - g * interval '1 minute', now() - g * interval '1 minute', now() - g * interval '1 minute'
         FROM generate_series(1, $1::int) o, generate_series(1, $2::int) g`,
      [OTHER_ORGS, ROWS],
    );
    await db.query(`SET session_replication_role = DEFAULT`);
    await db.query(
      `INSERT INTO invoices (id, organization_id, mode, status, currency, price, price_usd, metadata, expires_at, created_at, updated_at, payment_provider_ids)
       SELECT 'invoice_fresh_' || g, $1, 'test', (ARRAY['PENDING','COMPLETED','VOIDED','PROCESSING','WAITING_FOR_CONFIRMATIONS','PARTIALLY_PAID'])[g % 6 + 1],
              'USD', (g % 1000) + 1, (g % 1000) + 1, '{}'::jsonb, now() + interval '1 day', now() - g * interval '1 minute', now() - g * interval '1 minute',
              ARRAY['prov_bitcoin_btc']
         FROM generate_series(1, $2::int) g`,
      [org.id, ROWS],
    );
    await db.query(
      `INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id, status,
                             happened_at, created_at, updated_at)
       SELECT 'payment_fresh_' || g, $1, 'test', 'prov_bitcoin_btc', 'invoice_fresh_' || g, 'BITCOIN', (g % 1000) + 1, (g % 1000) + 1,
              'rates_bundled_20261120', (ARRAY['COMPLETED','PENDING','FAILED','CANCELLED'])[g % 4 + 1],
              now() - g * interval '1 minute', now() - g * interval '1 minute', now() - g * interval '1 minute'
         FROM generate_series(1, $2::int) g`,
      [org.id, ROWS],
    );
    const analyzed = await db.query(`SELECT relname FROM pg_stat_user_tables
                                      WHERE relname IN ('invoices', 'payments') AND (last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL)`);
    expect(analyzed.rows).toEqual([]);
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await service?.stop();
  });

  const scope = () => ({ organizationId: org.id, mode: 'test' }) as Scope;
  const clock = { now: new Date(), monitoringMinutes: 60 };

  it.each([
    ['invoices, two statuses', () => invoiceListRequest(scope(), { status: ['PENDING', 'COMPLETED'], limit: 20, offset: 0 }, clock)],
    [
      'invoices, a status and an amount range',
      () => invoiceListRequest(scope(), { status: ['PENDING'], priceUsdFrom: parseAmount('10'), priceUsdTo: parseAmount('900'), limit: 20, offset: 0 }, clock),
    ],
    [
      'invoices, an amount range',
      () => invoiceListRequest(scope(), { priceUsdFrom: parseAmount('10'), priceUsdTo: parseAmount('900'), limit: 20, offset: 0 }, clock),
    ],
    ['invoices, unfiltered, starting_after', () => invoiceListRequest(scope(), { limit: 20, offset: 0, startingAfter: 'invoice_fresh_100' }, clock)],
    ['invoices, unfiltered', () => invoiceListRequest(scope(), { limit: 20, offset: 0 }, clock)],
    ['invoices, a currency', () => invoiceListRequest(scope(), { currency: ['USD'], limit: 20, offset: 0 }, clock)],
    [
      'invoices, a day of created_at',
      () => invoiceListRequest(scope(), { createdFrom: new Date(Date.now() - 86_400_000), createdTo: new Date(), limit: 20, offset: 0 }, clock),
    ],
    ['invoices, a customer', () => invoiceListRequest(scope(), { customerEmail: 'nobody@example.com', limit: 20, offset: 0 }, clock)],
    // The provider filter reads the invoices' own read model (payment_provider_ids), never payments:
    // a check on each invoice the scope's walk meets, whatever the statistics of either table.
    ['invoices, a provider', () => invoiceListRequest(scope(), { providerId: 'prov_bitcoin_btc', limit: 20, offset: 0 }, clock)],
    [
      'invoices, a provider and two statuses',
      () => invoiceListRequest(scope(), { providerId: 'provider_bitcoin_btc', status: ['PENDING', 'COMPLETED'], limit: 20, offset: 0 }, clock),
    ],
    ['payments, two statuses', () => paymentListRequest(scope(), { status: ['COMPLETED', 'FAILED'], limit: 20, offset: 0 })],
    ['payments, unfiltered', () => paymentListRequest(scope(), { limit: 20, offset: 0 })],
    ['payments, unfiltered, starting_after', () => paymentListRequest(scope(), { limit: 20, offset: 0, startingAfter: 'payment_fresh_100' })],
    [
      'payments, a status and an amount range',
      () => paymentListRequest(scope(), { status: ['COMPLETED'], priceUsdFrom: parseAmount('10'), priceUsdTo: parseAmount('900'), limit: 20, offset: 0 }),
    ],
    ['payments, a currency', () => paymentListRequest(scope(), { currency: ['BITCOIN'], limit: 20, offset: 0 })],
    ['payments, an invoice', () => paymentListRequest(scope(), { invoiceId: 'invoice_fresh_1', limit: 20, offset: 0 }), 21],
    [
      'payments, an invoice and two statuses',
      () => paymentListRequest(scope(), { invoiceId: 'invoice_fresh_3', status: ['COMPLETED', 'FAILED'], limit: 20, offset: 0 }),
      21,
    ],
    [
      'payments, a day of created_at',
      () => paymentListRequest(scope(), { createdFrom: new Date(Date.now() - 86_400_000), createdTo: new Date(), limit: 20, offset: 0 }),
    ],
  ] as Array<[string, () => KeysetPageRequest, number?, number?]>)(
    '%s: no node runs more often than the page has rows, and none reads beyond the organization',
    async (_name, request, bound = ROWS, maxLoops = 21) => {
      const { text, params } = keysetPageStatement(request());
      const plan = await genericPlan(db, text, params);
      const nodes = nodesOf(plan).map((n) => ({
        node: `${n['Node Type']}${n['Index Name'] ? ` ${n['Index Name']}` : ''}`,
        loops: n['Actual Loops'] ?? 0,
        rows: rowsTouched(n),
        perLoop: (n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0),
      }));
      // The page has 21 rows at most (limit + 1): probing each of them once is the most a node may repeat.
      expect(nodes.filter((n) => n.loops > maxLoops)).toEqual([]);
      // A node run once per page row is a lookup of that row: it finds one row and reads no others.
      expect(nodes.filter((n) => n.loops > 1 && n.perLoop > 1)).toEqual([]);
      // No node reads more rows than the organization has in the table (the exact total may count them
      // all once); a lookup that walked the organization per page row read 21 times that. An invoice's
      // payments are found through their own index: no node reads more than a page of rows.
      expect(nodes.filter((n) => n.rows > bound)).toEqual([]);
    },
  );

  it('the answers are right too: the page over HTTP is the newest matches', async () => {
    const expected = (
      await db.query(
        `SELECT id FROM invoices WHERE organization_id = $1 AND status IN ('PENDING', 'COMPLETED')
                                       ORDER BY created_at DESC, id DESC`,
        [org.id],
      )
    ).rows.map((r: { id: string }) => r.id);
    const page = expectSuccess<{ total: number; items: Array<{ id: string }> }>(
      await org.test.post('/invoices/list', { status: ['PENDING', 'COMPLETED'], limit: 20 }),
    );
    expect(page.total).toBe(expected.length);
    expect(page.items.map((i) => i.id)).toEqual(expected.slice(0, 20));
  });

  it('answers the provider filter right over HTTP while neither table has statistics', async () => {
    const expected = (
      await db.query(
        `SELECT i.id FROM invoices i WHERE i.organization_id = $1 AND i.mode = 'test'
            AND EXISTS (SELECT 1 FROM payments p WHERE p.invoice_id = i.id AND p.provider_id = 'prov_bitcoin_btc')
          ORDER BY i.created_at DESC, i.id DESC`,
        [org.id],
      )
    ).rows.map((r: { id: string }) => r.id);
    expect(expected).toHaveLength(ROWS);
    const page = expectSuccess<{ total: number; items: Array<{ id: string }> }>(
      await org.test.post('/invoices/list', { provider_id: 'provider_bitcoin_btc', limit: 20 }),
    );
    expect(page.total).toBe(expected.length);
    expect(page.items.map((i) => i.id)).toEqual(expected.slice(0, 20));
    // Another provider: nothing of this organization.
    expect(expectSuccess<{ total: number }>(await org.test.post('/invoices/list', { provider_id: 'prov_ethereum_usdt', limit: 20 })).total).toBe(0);
  });
});
