import { Money } from '../../../shared/money/money';
import { aggregate, graduatedPrice, Tier, UsageSample } from './usage';

const sample = (value: string, at: string, seq: number, uniqueKey: string | null = null): UsageSample => ({
  value: new Money(value),
  timestamp: new Date(at),
  uniqueKey,
  seq: BigInt(seq),
});

const events = [
  sample('5', '2026-01-01T00:00:03Z', 1, 'u1'),
  sample('0.000000000000000000000000000001', '2026-01-01T00:00:05Z', 2, 'u2'),
  sample('12.5', '2026-01-01T00:00:01Z', 3, 'u1'),
  sample('7', '2026-01-01T00:00:05Z', 4),
];

describe('usage aggregation', () => {
  it.each([
    ['SUM', '24.500000000000000000000000000001'],
    ['COUNT', '4'],
    ['MAX', '12.5'],
    ['UNIQUE_COUNT', '3'],
    ['LATEST', '7'],
  ] as const)('%s of a period', (type, expected) => {
    expect(aggregate(type, events).toFixed()).toBe(expected);
  });

  it.each(['SUM', 'COUNT', 'MAX', 'UNIQUE_COUNT', 'LATEST'] as const)('%s of no events is 0', (type) => {
    expect(aggregate(type, []).toFixed()).toBe('0');
  });

  it('LATEST takes the last timestamp, not the last arrival', () => {
    expect(aggregate('LATEST', [sample('9', '2026-01-02T00:00:00Z', 1), sample('3', '2026-01-01T00:00:00Z', 2)]).toFixed()).toBe('9');
  });

  it('UNIQUE_COUNT counts values of events without a key', () => {
    expect(
      aggregate('UNIQUE_COUNT', [
        sample('1', '2026-01-01T00:00:00Z', 1),
        sample('1.0', '2026-01-01T00:00:00Z', 2),
        sample('2', '2026-01-01T00:00:00Z', 3),
      ]).toFixed(),
    ).toBe('2');
  });
});

const tier = (from: string, to: string | null, price: string): Tier => ({
  startsAt: new Money(from),
  endsAt: to === null ? null : new Money(to),
  pricePerUnit: new Money(price),
});
const tiers = [tier('1000', null, '0.0005'), tier('0', '100', '0'), tier('100', '1000', '0.001')];

describe('graduated tier pricing', () => {
  it.each([
    ['0', '0'],
    ['100', '0'],
    ['150', '0.05'],
    ['1000', '0.9'],
    ['1500', '1.15'],
    ['100.5', '0.0005'],
  ])('%s units cost %s, each unit at the price of its tier', (units, amount) => {
    expect(graduatedPrice(tiers, new Money(units)).amount.toFixed()).toBe(amount);
  });

  it('lists the units of each tier reached', () => {
    const { charges } = graduatedPrice(tiers, new Money('1500'));
    expect(charges.map((c) => [c.units.toFixed(), c.amount.toFixed()])).toEqual([
      ['100', '0'],
      ['900', '0.9'],
      ['500', '0.25'],
    ]);
  });

  it('units below every tier and in gaps are free', () => {
    expect(graduatedPrice([tier('10', '20', '1'), tier('30', null, '2')], new Money('35')).amount.toFixed()).toBe('20');
  });

  it('rounds once at 30 digits, half-up', () => {
    expect(graduatedPrice([tier('0', null, '0.000000000000000000000000000001')], new Money('0.5')).amount.toFixed()).toBe('0.000000000000000000000000000001');
  });
});
