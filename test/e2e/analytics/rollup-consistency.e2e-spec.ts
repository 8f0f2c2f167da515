import fc from 'fast-check';
import { expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import {
  awayFromHourBoundary,
  HOUR_BOUNDARY_HOOK_TIMEOUT,
  D,
  DAY,
  dashboard,
  HOUR,
  r30,
  recomputedRollups,
  seedInvoice,
  seedPayment,
  sql,
  storedRollups,
  ts,
  ZERO30,
} from './analytics-helpers';

const PROVIDERS = ['prov_ethereum_usdt', 'prov_ethereum_usdc'];

describe('rollups follow every write of the service', () => {
  beforeAll(awayFromHourBoundary, HOUR_BOUNDARY_HOOK_TIMEOUT);

  it('a payment PENDING -> COMPLETED and the invoice it completes move between status buckets (API write path)', async () => {
    const org = await createOrg();
    const invoice = expectSuccess(
      await org.test.post('/invoices/create', {
        items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '100' }],
        customer_email: 'Payer@Example.com',
      }),
      201,
    ).id;
    const other = expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '20' }] }), 201).id;
    expectSuccess(await org.test.put(`/invoices/${other}`, { status: 'VOIDED' }), 200);

    let d = await dashboard(org.test, 'last_day');
    expect(d.invoices).toMatchObject({ count: 2, paid_count: 0, average_price_usd: r30(60), by_status: { PENDING: 1, VOIDED: 1 } });
    expect(d.customers).toEqual({ unique: 1, new: 1, returning: 0, top: [] });

    const first = expectSuccess(await org.test.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_ethereum_usdt', price: '60' }), 201);
    const [{ price_usd: firstUsd }] = await sql(`SELECT price_usd::text FROM payments WHERE id = $1`, [first.id]);
    d = await dashboard(org.test, 'last_day');
    expect(d.payments).toMatchObject({ count: 1, completed_count: 0, volume_usd: ZERO30, by_status: { PENDING: 1, COMPLETED: 0 } });
    expect(d.invoices.by_status).toMatchObject({ PENDING: 0, WAITING_FOR_CONFIRMATIONS: 1, VOIDED: 1 });

    expectSuccess(await org.test.post(`/test_helpers/payments/${first.id}/status`, { status: 'COMPLETED' }), 200);
    d = await dashboard(org.test, 'last_day');
    expect(d.payments).toMatchObject({ count: 1, completed_count: 1, volume_usd: r30(firstUsd), by_status: { PENDING: 0, COMPLETED: 1 } });
    expect(d.providers).toEqual([
      { provider_id: 'prov_ethereum_usdt', name: 'Tether USD (Ethereum, ERC-20)', payments_count: 1, volume_usd: r30(firstUsd), share: r30(1) },
    ]);
    expect(d.invoices.by_status).toMatchObject({ PARTIALLY_PAID: 1, WAITING_FOR_CONFIRMATIONS: 0 });

    const second = expectSuccess(
      await org.test.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_ethereum_usdc', price: '45', status: 'COMPLETED' }),
      201,
    );
    expect(second.invoice.status).toBe('COMPLETED');
    const [{ price_usd: secondUsd }] = await sql(`SELECT price_usd::text FROM payments WHERE id = $1`, [second.id]);
    d = await dashboard(org.test, 'last_day');
    const total = new D(firstUsd).add(secondUsd);
    expect(d.payments).toMatchObject({ count: 2, completed_count: 2, volume_usd: r30(total) });
    expect(d.invoices).toMatchObject({
      count: 2,
      paid_count: 1,
      paid_volume_usd: r30(100),
      conversion_rate: r30(0.5),
      by_status: { COMPLETED: 1, VOIDED: 1, PARTIALLY_PAID: 0 },
    });
    expect(d.customers).toEqual({
      unique: 1,
      new: 1,
      returning: 0,
      top: [{ customer_email: 'payer@example.com', invoices_count: 1, paid_volume_usd: r30(100) }],
    });
    expect(await storedRollups(org.id)).toEqual(await recomputedRollups(org.id));
  });

  type Op =
    | { kind: 'invoice'; email: string | null; price: string }
    | { kind: 'pay'; invoice: number; provider: number; price: string; status: 'PENDING' | 'COMPLETED'; hoursAgo: number }
    | { kind: 'status'; payment: number; status: 'COMPLETED' | 'FAILED' | 'CANCELLED' }
    | { kind: 'void'; invoice: number };

  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({
      kind: fc.constant('invoice' as const),
      email: fc.constantFrom('a@example.com', 'B@example.com', 'b@example.com', null),
      price: fc.constantFrom('10', '25.5', '99.99', '0.01'),
    }),
    fc.record({
      kind: fc.constant('pay' as const),
      invoice: fc.nat(),
      provider: fc.nat(1),
      price: fc.constantFrom('5', '10.5', '30', '0.000001', '120'),
      status: fc.constantFrom('PENDING' as const, 'COMPLETED' as const),
      hoursAgo: fc.integer({ min: 0, max: 80 }),
    }),
    fc.record({
      kind: fc.constant('status' as const),
      payment: fc.nat(),
      status: fc.constantFrom('COMPLETED' as const, 'FAILED' as const, 'CANCELLED' as const),
    }),
    fc.record({ kind: fc.constant('void' as const), invoice: fc.nat() }),
  );

  it('after any sequence of invoices, payments and status changes the rollups equal a recomputation and the dashboard equals the raw rows', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        const org = await createOrg();
        // The first dashboard call builds the kept day windows; from then on the triggers keep them.
        await dashboard(org.test, 'last_30_days');
        expect(
          (await sql(`SELECT anchor_day FROM analytics_window_anchors WHERE organization_id = $1 AND mode = 'test'`, [org.id]))[0].anchor_day,
        ).not.toBeNull();
        const invoices: string[] = [];
        const payments: string[] = [];
        const now = Date.now();
        for (const o of ops) {
          if (o.kind === 'invoice') {
            const res = await org.test.post('/invoices/create', {
              items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: o.price }],
              ...(o.email ? { customer_email: o.email } : {}),
            });
            invoices.push(expectSuccess(res, 201).id);
          } else if (o.kind === 'pay' && invoices.length) {
            const res = await org.test.post('/test_helpers/payments', {
              invoice_id: invoices[o.invoice % invoices.length],
              provider_id: PROVIDERS[o.provider],
              price: o.price,
              status: o.status,
              happened_at: ts(now - o.hoursAgo * HOUR),
            });
            payments.push(expectSuccess(res, 201).id);
          } else if (o.kind === 'status' && payments.length) {
            const res = await org.test.post(`/test_helpers/payments/${payments[o.payment % payments.length]}/status`, { status: o.status });
            expect([200, 400]).toContain(res.status); // a final payment refuses any move
          } else if (o.kind === 'void' && invoices.length) {
            const res = await org.test.put(`/invoices/${invoices[o.invoice % invoices.length]}`, { status: 'VOIDED' });
            expect([200, 400]).toContain(res.status); // only a PENDING invoice may be voided
          }
        }
        expect(await storedRollups(org.id)).toEqual(await recomputedRollups(org.id));

        // Every row is within the last 80 hours: last_7_days holds them all.
        const rawPayments = await sql<{ status: string; price_usd: string; provider_id: string }>(
          `SELECT status, price_usd::text, provider_id FROM payments WHERE organization_id = $1`,
          [org.id],
        );
        const rawInvoices = await sql<{ status: string; price_usd: string; email: string | null }>(
          `SELECT status, price_usd::text, lower(customer_email) AS email FROM invoices WHERE organization_id = $1`,
          [org.id],
        );
        const d = await dashboard(org.test, 'last_7_days');
        const completed = rawPayments.filter((p) => p.status === 'COMPLETED');
        const volume = completed.reduce((s, p) => s.add(p.price_usd), new D(0));
        expect(d.payments.count).toBe(rawPayments.length);
        expect(d.payments.completed_count).toBe(completed.length);
        expect(d.payments.volume_usd).toBe(r30(volume));
        for (const s of ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED']) expect(d.payments.by_status[s]).toBe(rawPayments.filter((p) => p.status === s).length);
        for (const provider of d.providers) {
          const mine = completed.filter((p) => p.provider_id === provider.provider_id).reduce((s, p) => s.add(p.price_usd), new D(0));
          expect(provider.volume_usd).toBe(r30(mine));
          expect(provider.share).toBe(volume.isZero() ? ZERO30 : r30(mine.div(volume)));
        }
        const paid = rawInvoices.filter((i) => i.status === 'COMPLETED');
        expect(d.invoices.count).toBe(rawInvoices.length);
        expect(d.invoices.paid_count).toBe(paid.length);
        expect(d.invoices.paid_volume_usd).toBe(r30(paid.reduce((s, i) => s.add(i.price_usd), new D(0))));
        expect(d.invoices.conversion_rate).toBe(rawInvoices.length ? r30(new D(paid.length).div(rawInvoices.length)) : ZERO30);
        const emails = new Set(rawInvoices.map((i) => i.email).filter((e) => e !== null));
        expect(d.customers.unique).toBe(emails.size);
        expect(d.customers.new).toBe(emails.size);
        const series = d.series.reduce((s: InstanceType<typeof D>, p: any) => s.add(p.payments_volume_usd), new D(0));
        expect(r30(series)).toBe(r30(volume));
        expect(d.series.reduce((n: number, p: any) => n + p.invoices_count, 0)).toBe(rawInvoices.length);
      }),
      { numRuns: 8 },
    );
  });

  it('the kept day windows move to a new day, a month later, a year later and back, equal to a recomputation each time', async () => {
    const org = await createOrg();
    const now = Date.now();
    const emails = ['a@example.com', 'b@example.com', 'c@example.com', null];
    const statuses = ['COMPLETED', 'PENDING', 'VOIDED', 'COMPLETED'];
    // 60 invoices and payments spread over the last two years and a half (SQL seeding: see analytics-helpers).
    for (let i = 0; i < 60; i++) {
      const at = now - Math.floor((i * 912 * DAY) / 60) - i * 3_600_000;
      const inv = await seedInvoice({ org: org.id, at, status: statuses[i % 4], priceUsd: `${i + 1}.5`, email: emails[i % 4] });
      await seedPayment({
        org: org.id,
        invoiceId: inv,
        at: at + 1000,
        providerId: PROVIDERS[i % 2],
        currency: i % 2 ? 'USDC' : 'USDT',
        status: i % 3 ? 'COMPLETED' : 'FAILED',
        priceUsd: `${i}.25`,
      });
    }
    await dashboard(org.test, 'last_365_days');
    const anchor = async () =>
      (await sql(`SELECT to_char(anchor_day, 'YYYY-MM-DD') AS d FROM analytics_window_anchors WHERE organization_id = $1 AND mode = 'test'`, [org.id]))[0].d;
    const today = new Date(now).toISOString().slice(0, 10);
    expect(await anchor()).toBe(today);
    const rolled = await recomputedRollups(org.id);
    expect(rolled.customerWindows.length).toBeGreaterThan(0);
    expect(rolled.windowCustomers.length).toBeGreaterThan(0);
    expect(await storedRollups(org.id)).toEqual(rolled);
    for (const shift of [1, 2, 40, 200, 400, -3, 0]) {
      const day = new Date(now + shift * DAY).toISOString().slice(0, 10);
      await sql(`SELECT analytics_roll_windows($1, 'test', $2::date)`, [org.id, day]);
      expect(await anchor()).toBe(day);
      expect(await storedRollups(org.id)).toEqual(await recomputedRollups(org.id));
    }
    // Windows left on another day: the next call moves them back to today before answering from them.
    await sql(`SELECT analytics_roll_windows($1, 'test', $2::date)`, [org.id, new Date(now - 2 * DAY).toISOString().slice(0, 10)]);
    const d = await dashboard(org.test, 'last_365_days');
    expect(await anchor()).toBe(today);
    const [{ n }] = await sql(
      `SELECT count(DISTINCT lower(customer_email))::int AS n FROM invoices
                                WHERE organization_id = $1 AND created_at >= $2 AND created_at < $3`,
      [org.id, new Date(d.from + 'Z'), new Date(d.to + 'Z')],
    );
    expect(n).toBeGreaterThan(0);
    expect(d.customers.unique).toBe(n);
  });

  it('concurrent writers in one organization (payments, status changes, new invoices) all succeed and leave the rollups exact', async () => {
    const org = await createOrg();
    await dashboard(org.test, 'last_7_days');
    const invoices = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        org.test.post('/invoices/create', {
          items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: `${10 + i}` }],
          customer_email: `c${i % 3}@example.com`,
        }),
      ),
    );
    const ids = invoices.map((r) => expectSuccess(r, 201).id as string);
    const pending = await Promise.all(
      ids.map((id, i) => org.test.post('/test_helpers/payments', { invoice_id: id, provider_id: PROVIDERS[i % 2], price: '4' })),
    );
    const paymentIds = pending.map((r) => expectSuccess(r, 201).id as string);
    const results = await Promise.all([
      ...paymentIds.map((id, i) => org.test.post(`/test_helpers/payments/${id}/status`, { status: i % 3 ? 'COMPLETED' : 'FAILED' })),
      ...ids.map((id, i) => org.test.post('/test_helpers/payments', { invoice_id: id, provider_id: PROVIDERS[(i + 1) % 2], price: '20', status: 'COMPLETED' })),
      ...Array.from({ length: 6 }, (_, i) =>
        org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '5' }], customer_email: `c${i % 4}@example.com` }),
      ),
    ]);
    for (const r of results) expect([200, 201]).toContain(r.status);
    expect(await storedRollups(org.id)).toEqual(await recomputedRollups(org.id));
    const d = await dashboard(org.test, 'last_7_days');
    expect(d.payments.count).toBe(12);
    expect(d.invoices.count).toBe(12);
    expect(d.invoices.paid_count).toBe(6);
    expect(d.customers.unique).toBe(4);
  });

  it('direct SQL changes (a correction, a deletion) keep the rollups exact too', async () => {
    const org = await createOrg();
    await dashboard(org.test, 'last_7_days');
    const invoice = expectSuccess(
      await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }], customer_email: 'x@example.com' }),
      201,
    ).id;
    const later = expectSuccess(
      await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '12' }], customer_email: 'x@example.com' }),
      201,
    ).id;
    const p = expectSuccess(
      await org.test.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_ethereum_usdt', price: '3', status: 'COMPLETED' }),
      201,
    ).id;
    await sql(`UPDATE payments SET happened_at = happened_at - interval '3 days', price_usd = price_usd + 1 WHERE id = $1`, [p]);
    await sql(`UPDATE invoices SET created_at = created_at - interval '40 days', customer_email = 'Y@example.com' WHERE id = $1`, [later]);
    expect(await storedRollups(org.id)).toEqual(await recomputedRollups(org.id));
    await sql(`DELETE FROM payments WHERE id = $1`, [p]);
    await sql(`DELETE FROM invoices WHERE id = $1`, [later]);
    expect(await storedRollups(org.id)).toEqual(await recomputedRollups(org.id));
    // The repair path (after a bulk load with the triggers off) lands on the same rows.
    const before = await storedRollups(org.id);
    await sql(`SELECT analytics_rebuild($1)`, [org.id]);
    const rebuilt = await storedRollups(org.id);
    expect(rebuilt).toEqual(await recomputedRollups(org.id));
    const windowsLeftOut = { paymentWindows: [], invoiceWindows: [], customerWindows: [], windowCustomers: [] };
    expect({ ...rebuilt, ...windowsLeftOut }).toEqual({ ...before, ...windowsLeftOut });
    expect(rebuilt.customerWindows).toEqual([]); // the day windows wait for the next dashboard call
    expect(rebuilt.windowCustomers).toEqual([]);
    await dashboard(org.test, 'last_7_days');
    expect(await storedRollups(org.id)).toEqual(before);
    const d = await dashboard(org.test, 'last_365_days');
    expect(d.payments.count).toBe(0);
    expect(d.customers).toEqual({ unique: 1, new: 1, returning: 0, top: [] });
  });
});
