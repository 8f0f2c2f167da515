import { Money } from '../../../shared/money/money';
import { buildDashboard, ratio } from './dashboard';
import { windowOf } from './period';

const NOW = new Date('2026-11-21T12:07:26Z');
const m = (v: string) => new Money(v);
const z30 = '0.000000000000000000000000000000';

describe('dashboard figures', () => {
  it('ratio is 0 when the whole is 0, else rounded half-up at 30 digits', () => {
    expect(ratio(m('1'), m('0'))).toBe(z30);
    expect(ratio(m('2'), m('3'))).toBe('0.666666666666666666666666666667');
    expect(ratio(m('5'), m('5'))).toBe('1.000000000000000000000000000000');
  });

  it('volumes count COMPLETED payments only; counts every status; ties order by count then id', () => {
    const d = buildDashboard({
      window: windowOf('last_7_days', NOW),
      payments: [
        { providerId: 'prov_b', currency: 'USDT', status: 'COMPLETED', count: 1, volumeUsd: m('10') },
        { providerId: 'prov_b', currency: 'USDT', status: 'PENDING', count: 3, volumeUsd: m('99') },
        { providerId: 'prov_a', currency: 'USDC', status: 'COMPLETED', count: 1, volumeUsd: m('10') },
        { providerId: 'prov_c', currency: 'USDC', status: 'FAILED', count: 2, volumeUsd: m('7') },
      ],
      invoices: [],
      series: [],
      customers: { unique: 0, new: 0, top: [] },
      providerNames: new Map([['prov_a', 'A']]),
    });
    expect(d.payments).toMatchObject({ count: 7, completed_count: 2, volume_usd: '20.000000000000000000000000000000', by_status: { PENDING: 3, COMPLETED: 2, FAILED: 2, CANCELLED: 0 } });
    expect(d.payments.by_currency.map((c) => [c.currency, c.count, c.volume_usd.slice(0, 5)])).toEqual([['USDT', 4, '10.00'], ['USDC', 3, '10.00']]);
    expect(d.providers.map((p) => [p.provider_id, p.name, p.payments_count, p.share])).toEqual([
      ['prov_b', 'prov_b', 4, '0.500000000000000000000000000000'],
      ['prov_a', 'A', 1, '0.500000000000000000000000000000'],
      ['prov_c', 'prov_c', 2, z30],
    ]);
  });

  it('invoice figures: paid = COMPLETED, mean price over all, conversion 0 when none; series zero-filled', () => {
    const w = windowOf('last_7_days', NOW);
    const empty = buildDashboard({ window: w, payments: [], invoices: [], series: [], customers: { unique: 0, new: 0, top: [] }, providerNames: new Map() });
    expect(empty.invoices).toMatchObject({ count: 0, average_price_usd: z30, conversion_rate: z30 });
    expect(empty.series).toHaveLength(7);
    const d = buildDashboard({
      window: w,
      payments: [],
      invoices: [{ status: 'COMPLETED', count: 1, priceUsdSum: m('10') }, { status: 'VOIDED', count: 2, priceUsdSum: m('1') }],
      series: [{ bucket: w.buckets[3], paymentsVolumeUsd: m('4.5'), invoicesCount: 2 }],
      customers: { unique: 3, new: 1, top: [] },
      providerNames: new Map(),
    });
    expect(d.invoices).toEqual({
      count: 3, by_status: { PENDING: 0, COMPLETED: 1, VOIDED: 2, PROCESSING: 0, WAITING_FOR_CONFIRMATIONS: 0, PARTIALLY_PAID: 0 },
      paid_count: 1, paid_volume_usd: '10.000000000000000000000000000000', average_price_usd: '3.666666666666666666666666666667',
      conversion_rate: '0.333333333333333333333333333333',
    });
    expect(d.customers).toEqual({ unique: 3, new: 1, returning: 2, top: [] });
    expect(d.series[3]).toEqual({ date: '2026-11-18', payments_volume_usd: '4.500000000000000000000000000000', invoices_count: 2 });
    expect(d.series[2]).toEqual({ date: '2026-11-17', payments_volume_usd: z30, invoices_count: 0 });
  });
});
