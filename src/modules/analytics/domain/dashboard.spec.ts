import fc from 'fast-check';
import { Money, renderAmount } from '../../../shared/money/money';
import { buildDashboard, DashboardRead, divideRounded, moneyText, ratio } from './dashboard';
import { currentWindowOf, windowOf } from './period';

const NOW = new Date('2026-11-21T12:07:26Z');
const m = (v: string) => new Money(v);
const z30 = '0.000000000000000000000000000000';
const EMPTY: DashboardRead = { payments: [], invoices: [], unique: 0, new: 0, top: [], paymentSeries: [], invoiceSeries: [] };
const named = (names: Record<string, string>) => (id: string) => names[id] ?? id;
const seconds = (d: Date) => d.getTime() / 1000;

describe('dashboard figures', () => {
  it('ratio is 0 when the whole is 0, else rounded half-up at 30 digits', () => {
    expect(ratio(m('1'), m('0'))).toBe(z30);
    expect(ratio(m('2'), m('3'))).toBe('0.666666666666666666666666666667');
    expect(ratio(m('5'), m('5'))).toBe('1.000000000000000000000000000000');
  });

  it('divides exactly: rounded half-up at 30 digits from the exact quotient, over the whole numeric(78,30) range', () => {
    // Exact reference: 500 digits cut off cover every quotient of two numeric(78,30) values.
    const Exact = Money.clone({ precision: 500, rounding: Money.ROUND_DOWN });
    const exact = (a: InstanceType<typeof Money>, b: InstanceType<typeof Money>) => new Exact(a).div(new Exact(b)).toFixed(30, Money.ROUND_HALF_UP);
    const cases: Array<[string, string]> = [
      ['1', '3'],
      ['2', '3'],
      ['1', '8'],
      ['5', '1e31'],
      ['15', '1e31'],
      ['4.999999999999999999999999999999', '1e1'],
      ['123456789012345678901234567890123456789012345678.123456789012345678901234567890', '7'],
      ['123456789012345678901234567890123456789012345678.123456789012345678901234567890', '0.000000000000000000000000000003'],
      ['1', '123456789012345678901234567890123456789012345678.123456789012345678901234567890'],
      ['0.000000000000000000000000000001', '3'],
      ['0.000000000000000000000000000015', '10'],
    ];
    for (const [a, b] of cases) expect(divideRounded(m(a), m(b)).toFixed(30)).toBe(exact(m(a), m(b)));
    expect(divideRounded(m('5'), m('1e31')).toFixed(30)).toBe('0.000000000000000000000000000001');
    expect(divideRounded(m('0.000000000000000000000000000015'), m('10')).toFixed(30)).toBe('0.000000000000000000000000000002');
    // numeric(78,30) values of every magnitude: up to `digits` digits, 30 of them fractional.
    const amount = fc
      .integer({ min: 1, max: 78 })
      .chain((digits) => fc.bigInt({ min: 0n, max: 10n ** BigInt(digits) - 1n }))
      .map((n) => m(n.toString()).div(m('1e30')));
    fc.assert(
      fc.property(
        amount,
        amount.filter((b) => !b.isZero()),
        (a, b) => {
          expect(divideRounded(a, b).toFixed(30)).toBe(exact(a, b));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('money read from numeric(78,30) passes as is; any other text is rendered exactly', () => {
    for (const text of ['0.000000000000000000000000000000', '123456789012345678901234567890123456789012345678.000000000000000000000000000001']) {
      expect(moneyText(text)).toBe(text);
      expect(moneyText(text)).toBe(renderAmount(m(text)));
    }
    expect(moneyText('4.5')).toBe('4.500000000000000000000000000000');
    expect(moneyText('0')).toBe(z30);
    expect(moneyText('-1.25')).toBe('-1.250000000000000000000000000000');
    expect(moneyText('1.0000000000000000000000000000005')).toBe('1.000000000000000000000000000001');
  });

  it('volumes count COMPLETED payments only; counts every status; ties order by count then id', () => {
    const d = buildDashboard({
      window: windowOf('last_7_days', NOW),
      read: {
        ...EMPTY,
        payments: [
          ['prov_b', 'USDT', 'COMPLETED', 1, '10.000000000000000000000000000000'],
          ['prov_b', 'USDT', 'PENDING', 3, '99'],
          ['prov_a', 'USDC', 'COMPLETED', 1, '10'],
          ['prov_c', 'USDC', 'FAILED', 2, '7'],
        ],
      },
      providerName: named({ prov_a: 'A' }),
    });
    expect(d.payments).toMatchObject({
      count: 7,
      completed_count: 2,
      volume_usd: '20.000000000000000000000000000000',
      by_status: { PENDING: 3, COMPLETED: 2, FAILED: 2, CANCELLED: 0 },
    });
    expect(d.payments.by_currency.map((c) => [c.currency, c.count, c.volume_usd.slice(0, 5)])).toEqual([
      ['USDT', 4, '10.00'],
      ['USDC', 3, '10.00'],
    ]);
    expect(d.providers.map((p) => [p.provider_id, p.name, p.payments_count, p.share])).toEqual([
      ['prov_b', 'prov_b', 4, '0.500000000000000000000000000000'],
      ['prov_a', 'A', 1, '0.500000000000000000000000000000'],
      ['prov_c', 'prov_c', 2, z30],
    ]);
  });

  it('invoice figures: paid = COMPLETED, mean price over all, conversion 0 when none; series zero-filled', () => {
    const w = windowOf('last_7_days', NOW);
    const empty = buildDashboard({ window: w, read: EMPTY, providerName: named({}) });
    expect(empty.invoices).toMatchObject({ count: 0, average_price_usd: z30, conversion_rate: z30 });
    expect(empty.series).toHaveLength(7);
    const d = buildDashboard({
      window: w,
      read: {
        ...EMPTY,
        invoices: [
          ['COMPLETED', 1, '10'],
          ['VOIDED', 2, '1'],
        ],
        paymentSeries: [
          [seconds(w.buckets[3]), '4.500000000000000000000000000000'],
          [seconds(w.buckets[6]), '0.000000000000000000000000000000'],
        ],
        invoiceSeries: [
          [seconds(w.buckets[3]), 2],
          [seconds(w.buckets[0]), 1],
        ],
        unique: 3,
        new: 1,
        top: [['b@example.com', 2, '7.100000000000000000000000000000']],
      },
      providerName: named({}),
    });
    expect(d.invoices).toEqual({
      count: 3,
      by_status: { PENDING: 0, COMPLETED: 1, VOIDED: 2, PROCESSING: 0, WAITING_FOR_CONFIRMATIONS: 0, PARTIALLY_PAID: 0 },
      paid_count: 1,
      paid_volume_usd: '10.000000000000000000000000000000',
      average_price_usd: '3.666666666666666666666666666667',
      conversion_rate: '0.333333333333333333333333333333',
    });
    expect(d.customers).toEqual({
      unique: 3,
      new: 1,
      returning: 2,
      top: [{ customer_email: 'b@example.com', invoices_count: 2, paid_volume_usd: '7.100000000000000000000000000000' }],
    });
    expect(d.series[0]).toEqual({ date: '2026-11-15', payments_volume_usd: z30, invoices_count: 1 });
    expect(d.series[3]).toEqual({ date: '2026-11-18', payments_volume_usd: '4.500000000000000000000000000000', invoices_count: 2 });
    expect(d.series[2]).toEqual({ date: '2026-11-17', payments_volume_usd: z30, invoices_count: 0 });
    expect(d.series[6]).toEqual({ date: '2026-11-21', payments_volume_usd: z30, invoices_count: 0 });
  });

  it('hourly series place each row at its hour', () => {
    const w = windowOf('last_day', NOW);
    const d = buildDashboard({
      window: w,
      read: { ...EMPTY, paymentSeries: [[seconds(w.buckets[23]), '1.000000000000000000000000000000']] },
      providerName: named({}),
    });
    expect(d.series).toHaveLength(24);
    expect(d.series[23]).toEqual({ date: '2026-11-21 12:00:00', payments_volume_usd: '1.000000000000000000000000000000', invoices_count: 0 });
    expect(d.series[0].date).toBe('2026-11-20 13:00:00');
  });

  it('the shared window is the one windowOf gives, until the next bucket starts', () => {
    const a = currentWindowOf('last_30_days', NOW);
    expect(a).toEqual(windowOf('last_30_days', NOW));
    expect(currentWindowOf('last_30_days', new Date('2026-11-21T23:59:59.999Z'))).toBe(a);
    const next = currentWindowOf('last_30_days', new Date('2026-11-22T00:00:00Z'));
    expect(next).not.toBe(a);
    expect(next.labels[29]).toBe('2026-11-22');
    expect(Object.isFrozen(next.labels)).toBe(true);
  });
});
