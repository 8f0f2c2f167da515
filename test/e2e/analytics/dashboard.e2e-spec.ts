import { anonymous } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg, TestOrg } from '../../support/factories';
import { Api } from '../../support/api';
import {
  awayFromHourBoundary,
  HOUR_BOUNDARY_HOOK_TIMEOUT,
  D,
  DAY,
  dashboard,
  dayLabel,
  HOUR,
  hourLabel,
  r30,
  seedInvoice,
  seedPayment,
  startOfDay,
  startOfHour,
  ts,
  ZERO30,
} from './analytics-helpers';

const USDT = { providerId: 'prov_ethereum_usdt', currency: 'USDT', name: 'Tether USD (Ethereum, ERC-20)' };
const USDC = { providerId: 'prov_ethereum_usdc', currency: 'USDC', name: 'USD Coin (Ethereum, ERC-20)' };
const BTC = { providerId: 'prov_bitcoin_bitcoin', currency: 'BITCOIN', name: 'Bitcoin' };

const TINY = '0.000000000000000000000000000001';
const THIRD = '0.333333333333333333333333333333';

describe('POST /analytics/dashboard', () => {
  it('adds up amounts whose sum is past 48 integer digits: two invoices of 9 x 10^47 USD paid on one day', async () => {
    const org = await createOrg();
    const huge = `9${'0'.repeat(47)}`;
    for (let i = 0; i < 2; i++) {
      const id = (await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: huge }] })).body.data.id as string;
      expectSuccess(await org.test.post('/test_helpers/payments', { invoice_id: id, provider_id: 'prov_card_usd', price: huge, status: 'COMPLETED' }), 201);
    }
    const figures = await dashboard(org.test, 'last_day');
    expect(figures.invoices).toMatchObject({ count: 2, paid_count: 2, paid_volume_usd: r30(`18${'0'.repeat(47)}`) });
    expect(figures.payments.volume_usd).toBe(r30(`18${'0'.repeat(47)}`));
    expect(figures.invoices.average_price_usd).toBe(r30(huge));
  });

  it('requires an API key (401) and a valid period (400 validator.period)', async () => {
    const org = await createOrg();
    expectError(await anonymous().post('/analytics/dashboard', { period: 'last_day' }), 401, { code: 'missing_api_key' });
    expectError(await anonymous().post('/analytics/dashboard', { period: 'last_day' }, { authorization: `sk_test_${'A1b2C3d4'.repeat(4)}` }), 401);
    for (const body of [{ period: 'last_2_days' }, {}, { period: 7 }, { period: null }, { period: 'LAST_DAY' }]) {
      const res = await org.test.post('/analytics/dashboard', body);
      const err = expectError(res, 400, { code: 'validation_failed', field: 'period' });
      // A period left out says so; a wrong one lists the accepted values.
      expect(err.validator.period).toMatch('period' in body ? /last_day/ : /^is required$/);
    }
    // A read: a read-only key may ask.
    const readOnly = new Api(await createKey(org.id, 'test', true));
    expect((await dashboard(readOnly, 'last_day')).period).toBe('last_day');
  });

  it('answers every period with the full shape, zero-filled, for an organization without data', async () => {
    const org = await createOrg();
    const now = Date.now();
    for (const [period, points] of [
      ['last_day', 24],
      ['last_7_days', 7],
      ['last_30_days', 30],
      ['last_90_days', 90],
      ['last_365_days', 365],
      ['prev_last_day', 24],
      ['prev_last_7_days', 7],
      ['prev_last_30_days', 30],
      ['prev_last_90_days', 90],
      ['prev_last_365_days', 365],
    ] as const) {
      const d = await dashboard(org.test, period);
      const hourly = period.endsWith('last_day');
      const n = Number(points);
      const end = hourly ? startOfHour(now) + HOUR : startOfDay(now) + DAY;
      const to = period.startsWith('prev_') ? end - n * (hourly ? HOUR : DAY) : end;
      const from = to - n * (hourly ? HOUR : DAY);
      expect(d).toEqual({
        period,
        from: ts(from),
        to: ts(to),
        payments: { count: 0, completed_count: 0, volume_usd: ZERO30, by_status: { PENDING: 0, COMPLETED: 0, FAILED: 0, CANCELLED: 0 }, by_currency: [] },
        invoices: {
          count: 0,
          by_status: { PENDING: 0, COMPLETED: 0, VOIDED: 0, PROCESSING: 0, WAITING_FOR_CONFIRMATIONS: 0, PARTIALLY_PAID: 0 },
          paid_count: 0,
          paid_volume_usd: ZERO30,
          average_price_usd: ZERO30,
          conversion_rate: ZERO30,
        },
        providers: [],
        customers: { unique: 0, new: 0, returning: 0, top: [] },
        series: Array.from({ length: n }, (_, i) => ({
          date: hourly ? hourLabel(from + i * HOUR) : dayLabel(from + i * DAY),
          payments_volume_usd: ZERO30,
          invoices_count: 0,
        })),
        refunds: { count: 0, completed_count: 0, refunded_usd: ZERO30 },
        net_volume_usd: ZERO30,
        subscriptions: { active_count: 0, past_due_count: 0, canceled_count: 0, mrr_usd: ZERO30, mrr_by_currency: [] },
      });
    }
  });

  describe('a known data set spread over days', () => {
    let org: TestOrg;
    let now: number;
    let H0: number; // start of the current hour
    let D0: number; // start of the current day
    let W7: number; // start of last_7_days
    let Y: number; // start of last_365_days

    beforeAll(async () => {
      await awayFromHourBoundary();
      org = await createOrg();
      const other = await createOrg();
      now = Date.now();
      H0 = startOfHour(now);
      D0 = startOfDay(now);
      W7 = D0 - 6 * DAY;
      Y = D0 - 364 * DAY;
      const o = org.id;

      // Invoices (created_at, status, price_usd, customer_email).
      const i1 = await seedInvoice({ org: o, at: now - 60_000, status: 'COMPLETED', priceUsd: '100', email: 'Alice@Example.com' });
      const i2 = await seedInvoice({ org: o, at: H0 - 23 * HOUR, status: 'PENDING', priceUsd: '50', email: 'alice@example.com' });
      const i3 = await seedInvoice({ org: o, at: H0 - 23 * HOUR - 1000, status: 'COMPLETED', priceUsd: '30', email: 'bob@example.com' });
      const i4 = await seedInvoice({ org: o, at: W7, status: 'COMPLETED', priceUsd: '200', email: 'carol@example.com' });
      await seedInvoice({ org: o, at: W7 - 1000, status: 'VOIDED', priceUsd: '10', email: 'carol@example.com' });
      await seedInvoice({ org: o, at: D0 - 3 * DAY + 5 * HOUR, status: 'PARTIALLY_PAID', priceUsd: '70.5', email: null });
      const i7 = await seedInvoice({ org: o, at: D0 - 2 * DAY, status: 'COMPLETED', priceUsd: THIRD, email: 'dave@example.com' });
      await seedInvoice({ org: o, at: Y - 1000, status: 'COMPLETED', priceUsd: '5', email: 'erin@example.com' });
      await seedInvoice({ org: o, at: Y, status: 'PENDING', priceUsd: '1', email: 'erin@example.com' });

      // Payments (happened_at, provider, status, price_usd).
      const pay = (invoiceId: string, at: number, p: typeof USDT, status: string, priceUsd: string) =>
        seedPayment({ org: o, invoiceId, at, providerId: p.providerId, currency: p.currency, status, priceUsd });
      await pay(i1, now - 120_000, USDT, 'COMPLETED', '100');
      await pay(i2, now - 180_000, USDC, 'PENDING', '40');
      await pay(i2, H0 - 23 * HOUR, USDT, 'COMPLETED', '25.5');
      await pay(i3, H0 - 23 * HOUR - 1000, BTC, 'COMPLETED', '30');
      await pay(i4, W7, USDC, 'COMPLETED', '200');
      await pay(i4, W7 - 1000, USDT, 'COMPLETED', '999');
      await pay(i7, D0 - 3 * DAY + HOUR, USDT, 'FAILED', '12');
      await pay(i7, D0 - 3 * DAY + 2 * HOUR, BTC, 'CANCELLED', '7');
      await pay(i7, D0 - 2 * DAY, USDT, 'COMPLETED', TINY);
      await pay(i7, Y, USDT, 'COMPLETED', '1000');
      await pay(i7, Y - 1000, USDT, 'COMPLETED', '3');

      // Never counted: another organization's rows and this organization's live-mode rows, at the same times.
      for (const [owner, mode] of [
        [other.id, 'test'],
        [o, 'live'],
      ] as const) {
        const inv = await seedInvoice({ org: owner, mode, at: now - 60_000, status: 'COMPLETED', priceUsd: '5000', email: 'alice@example.com' });
        await seedInvoice({ org: owner, mode, at: W7 - 1000, status: 'COMPLETED', priceUsd: '5000', email: 'zed@example.com' });
        await seedPayment({
          org: owner,
          mode,
          invoiceId: inv,
          at: now - 60_000,
          providerId: USDT.providerId,
          currency: 'USDT',
          status: 'COMPLETED',
          priceUsd: '5000',
        });
        await seedPayment({
          org: owner,
          mode,
          invoiceId: inv,
          at: W7 - 1000,
          providerId: USDC.providerId,
          currency: 'USDC',
          status: 'PENDING',
          priceUsd: '5000',
        });
      }
    }, HOUR_BOUNDARY_HOOK_TIMEOUT);

    it('last_7_days: every figure, the first second of the window in and the second before it out', async () => {
      const d = await dashboard(org.test, 'last_7_days');
      expect(d.period).toBe('last_7_days');
      expect(d.from).toBe(ts(W7));
      expect(d.to).toBe(ts(D0 + DAY));

      // Payments in the window: 100 C, 40 P, 25.5 C, 30 C (btc), 200 C (usdc, at W7), 12 F, 7 X, TINY C. Out: 999 at W7 - 1 s.
      const volume = new D(100).add(25.5).add(30).add(200).add(TINY);
      expect(r30(volume)).toBe('355.500000000000000000000000000001');
      expect(d.payments).toEqual({
        count: 8,
        completed_count: 5,
        volume_usd: '355.500000000000000000000000000001',
        by_status: { PENDING: 1, COMPLETED: 5, FAILED: 1, CANCELLED: 1 },
        by_currency: [
          { currency: 'USDC', count: 2, volume_usd: r30(200) },
          { currency: 'USDT', count: 4, volume_usd: '125.500000000000000000000000000001' },
          { currency: 'BITCOIN', count: 2, volume_usd: r30(30) },
        ],
      });
      expect(d.providers).toEqual([
        { provider_id: USDC.providerId, name: USDC.name, payments_count: 2, volume_usd: r30(200), share: r30(new D(200).div(volume)) },
        {
          provider_id: USDT.providerId,
          name: USDT.name,
          payments_count: 4,
          volume_usd: '125.500000000000000000000000000001',
          share: r30(new D('125.500000000000000000000000000001').div(volume)),
        },
        { provider_id: BTC.providerId, name: BTC.name, payments_count: 2, volume_usd: r30(30), share: r30(new D(30).div(volume)) },
      ]);
      expect(d.providers[0].share).toBe('0.562587904360056258790436005626');

      // Invoices in the window: 100 C, 50 P, 30 C, 200 C (at W7), 70.5 PP, 1/3 C. Out: 10 V at W7 - 1 s.
      expect(d.invoices).toEqual({
        count: 6,
        by_status: { PENDING: 1, COMPLETED: 4, VOIDED: 0, PROCESSING: 0, WAITING_FOR_CONFIRMATIONS: 0, PARTIALLY_PAID: 1 },
        paid_count: 4,
        paid_volume_usd: '330.333333333333333333333333333333',
        average_price_usd: '75.138888888888888888888888888889', // 450.833333333333333333333333333333 / 6
        conversion_rate: '0.666666666666666666666666666667',
      });

      // Customers: alice (2 invoices, one paid 100), bob (30), carol (200; first invoice before the window), dave (1/3).
      expect(d.customers).toEqual({
        unique: 4,
        new: 3,
        returning: 1,
        top: [
          { customer_email: 'carol@example.com', invoices_count: 1, paid_volume_usd: r30(200) },
          { customer_email: 'alice@example.com', invoices_count: 2, paid_volume_usd: r30(100) },
          { customer_email: 'bob@example.com', invoices_count: 1, paid_volume_usd: r30(30) },
          { customer_email: 'dave@example.com', invoices_count: 1, paid_volume_usd: THIRD },
        ],
      });

      // Series: seven days, oldest first; each completed payment and invoice on the day of its timestamp.
      const volumes = new Map<string, InstanceType<typeof D>>();
      const addVolume = (at: number, v: string) => volumes.set(dayLabel(at), (volumes.get(dayLabel(at)) ?? new D(0)).add(v));
      addVolume(now - 120_000, '100');
      addVolume(H0 - 23 * HOUR, '25.5');
      addVolume(H0 - 23 * HOUR - 1000, '30');
      addVolume(W7, '200');
      addVolume(D0 - 2 * DAY, TINY);
      const counts = new Map<string, number>();
      for (const at of [now - 60_000, H0 - 23 * HOUR, H0 - 23 * HOUR - 1000, W7, D0 - 3 * DAY + 5 * HOUR, D0 - 2 * DAY])
        counts.set(dayLabel(at), (counts.get(dayLabel(at)) ?? 0) + 1);
      expect(d.series).toEqual(
        Array.from({ length: 7 }, (_, i) => {
          const label = dayLabel(W7 + i * DAY);
          return { date: label, payments_volume_usd: r30(volumes.get(label) ?? 0), invoices_count: counts.get(label) ?? 0 };
        }),
      );
      expect(d.series[0]).toEqual({ date: dayLabel(W7), payments_volume_usd: r30(200), invoices_count: 1 });
    });

    it('prev_last_7_days: the seven days before, holding what fell one second outside last_7_days', async () => {
      const d = await dashboard(org.test, 'prev_last_7_days');
      expect(d.from).toBe(ts(W7 - 7 * DAY));
      expect(d.to).toBe(ts(W7));
      expect(d.payments).toEqual({
        count: 1,
        completed_count: 1,
        volume_usd: r30(999),
        by_status: { PENDING: 0, COMPLETED: 1, FAILED: 0, CANCELLED: 0 },
        by_currency: [{ currency: 'USDT', count: 1, volume_usd: r30(999) }],
      });
      expect(d.providers).toEqual([{ provider_id: USDT.providerId, name: USDT.name, payments_count: 1, volume_usd: r30(999), share: r30(1) }]);
      expect(d.invoices).toEqual({
        count: 1,
        by_status: { PENDING: 0, COMPLETED: 0, VOIDED: 1, PROCESSING: 0, WAITING_FOR_CONFIRMATIONS: 0, PARTIALLY_PAID: 0 },
        paid_count: 0,
        paid_volume_usd: ZERO30,
        average_price_usd: r30(10),
        conversion_rate: ZERO30,
      });
      // carol's first invoice is this voided one: new here; nothing paid, so no top customer.
      expect(d.customers).toEqual({ unique: 1, new: 1, returning: 0, top: [] });
      expect(d.series[6]).toEqual({ date: dayLabel(W7 - DAY), payments_volume_usd: r30(999), invoices_count: 1 });
      expect(d.series.slice(0, 6).every((p: any) => p.payments_volume_usd === ZERO30 && p.invoices_count === 0)).toBe(true);
    });

    it('last_day: 24 hourly points, the first second of the window in and the second before it out', async () => {
      const d = await dashboard(org.test, 'last_day');
      expect(d.from).toBe(ts(H0 - 23 * HOUR));
      expect(d.to).toBe(ts(H0 + HOUR));
      // Payments: 100 C (usdt), 40 P (usdc), 25.5 C (usdt, at the window's first second). Out: 30 C (btc) one second before.
      expect(d.payments).toEqual({
        count: 3,
        completed_count: 2,
        volume_usd: r30(125.5),
        by_status: { PENDING: 1, COMPLETED: 2, FAILED: 0, CANCELLED: 0 },
        by_currency: [
          { currency: 'USDT', count: 2, volume_usd: r30(125.5) },
          { currency: 'USDC', count: 1, volume_usd: ZERO30 },
        ],
      });
      expect(d.providers).toEqual([
        { provider_id: USDT.providerId, name: USDT.name, payments_count: 2, volume_usd: r30(125.5), share: r30(1) },
        { provider_id: USDC.providerId, name: USDC.name, payments_count: 1, volume_usd: ZERO30, share: ZERO30 },
      ]);
      expect(d.invoices).toEqual({
        count: 2,
        by_status: { PENDING: 1, COMPLETED: 1, VOIDED: 0, PROCESSING: 0, WAITING_FOR_CONFIRMATIONS: 0, PARTIALLY_PAID: 0 },
        paid_count: 1,
        paid_volume_usd: r30(100),
        average_price_usd: r30(75),
        conversion_rate: r30(0.5),
      });
      // 'Alice@Example.com' and 'alice@example.com' are one customer; her first invoice is at the window's first second.
      expect(d.customers).toEqual({
        unique: 1,
        new: 1,
        returning: 0,
        top: [{ customer_email: 'alice@example.com', invoices_count: 2, paid_volume_usd: r30(100) }],
      });
      expect(d.series).toHaveLength(24);
      expect(d.series[0]).toEqual({ date: hourLabel(H0 - 23 * HOUR), payments_volume_usd: r30(25.5), invoices_count: 1 });
      const last = new Map<string, { v: InstanceType<typeof D>; n: number }>();
      last.set(hourLabel(now - 120_000), { v: new D(100), n: 0 });
      const i1 = last.get(hourLabel(now - 60_000)) ?? { v: new D(0), n: 0 };
      last.set(hourLabel(now - 60_000), { ...i1, n: i1.n + 1 });
      for (let i = 1; i < 24; i++) {
        const label = hourLabel(H0 - (23 - i) * HOUR);
        const point = last.get(label);
        expect(d.series[i]).toEqual({ date: label, payments_volume_usd: r30(point?.v ?? 0), invoices_count: point?.n ?? 0 });
      }
    });

    it('prev_last_day: the 24 hours before', async () => {
      const d = await dashboard(org.test, 'prev_last_day');
      expect(d.from).toBe(ts(H0 - 47 * HOUR));
      expect(d.to).toBe(ts(H0 - 23 * HOUR));
      expect(d.payments.count).toBe(1);
      expect(d.payments.volume_usd).toBe(r30(30));
      expect(d.payments.by_currency).toEqual([{ currency: 'BITCOIN', count: 1, volume_usd: r30(30) }]);
      expect(d.providers).toEqual([{ provider_id: BTC.providerId, name: BTC.name, payments_count: 1, volume_usd: r30(30), share: r30(1) }]);
      expect(d.invoices).toMatchObject({ count: 1, paid_count: 1, paid_volume_usd: r30(30), average_price_usd: r30(30), conversion_rate: r30(1) });
      expect(d.customers).toEqual({
        unique: 1,
        new: 1,
        returning: 0,
        top: [{ customer_email: 'bob@example.com', invoices_count: 1, paid_volume_usd: r30(30) }],
      });
      expect(d.series[23]).toEqual({ date: hourLabel(H0 - 24 * HOUR), payments_volume_usd: r30(30), invoices_count: 1 });
    });

    it('last_30_days holds the whole week and the week before; last_365_days and prev_last_365_days split at their boundary', async () => {
      const m = await dashboard(org.test, 'last_30_days');
      expect(m.from).toBe(ts(D0 - 29 * DAY));
      expect(m.payments).toMatchObject({ count: 9, completed_count: 6, volume_usd: '1354.500000000000000000000000000001' });
      expect(m.invoices).toMatchObject({ count: 7, paid_count: 4, paid_volume_usd: '330.333333333333333333333333333333' });
      // carol's first invoice is now inside: alice, bob, carol, dave are all new.
      expect(m.customers).toMatchObject({ unique: 4, new: 4, returning: 0 });

      const y = await dashboard(org.test, 'last_365_days');
      expect(y.from).toBe(ts(Y));
      expect(y.series).toHaveLength(365);
      // + 1000 C at the first second of the year window; the 3 C one second before is out.
      expect(y.payments).toMatchObject({ count: 10, completed_count: 7, volume_usd: '2354.500000000000000000000000000001' });
      expect(y.invoices).toMatchObject({ count: 8, paid_count: 4 });
      // erin's first invoice (5, COMPLETED) is one second before the window: erin is returning.
      expect(y.customers).toMatchObject({ unique: 5, new: 4, returning: 1 });
      expect(y.series[0]).toEqual({ date: dayLabel(Y), payments_volume_usd: r30(1000), invoices_count: 1 });

      const p = await dashboard(org.test, 'prev_last_365_days');
      expect(p.to).toBe(ts(Y));
      expect(p.payments).toMatchObject({ count: 1, volume_usd: r30(3) });
      expect(p.invoices).toMatchObject({ count: 1, paid_count: 1, paid_volume_usd: r30(5), conversion_rate: r30(1) });
      expect(p.customers).toEqual({
        unique: 1,
        new: 1,
        returning: 0,
        top: [{ customer_email: 'erin@example.com', invoices_count: 1, paid_volume_usd: r30(5) }],
      });
      expect(p.series[364]).toEqual({ date: dayLabel(Y - DAY), payments_volume_usd: r30(3), invoices_count: 1 });
    });

    it('the live mode of the same organization sees only its own rows', async () => {
      const d = await dashboard(org.live, 'last_7_days');
      expect(d.payments).toMatchObject({ count: 1, completed_count: 1, volume_usd: r30(5000) });
      expect(d.invoices).toMatchObject({ count: 1, paid_volume_usd: r30(5000) });
      expect(d.customers).toEqual({
        unique: 1,
        new: 1,
        returning: 0,
        top: [{ customer_email: 'alice@example.com', invoices_count: 1, paid_volume_usd: r30(5000) }],
      });
    });
  });
});
