import { Money, ZERO, roundMoney } from '../../../shared/money/money';
import type { Amount } from '../../../shared/money/money';

export type AggregationType = 'SUM' | 'COUNT' | 'MAX' | 'UNIQUE_COUNT' | 'LATEST';

/** A usage event as aggregation reads it. */
export interface UsageSample {
  value: Amount;
  timestamp: Date;
  /** What UNIQUE_COUNT counts distinct values of; the event's `unique_key`, or its value when it carries none. */
  uniqueKey: string | null;
  /** Order of arrival, to break ties between events of the same timestamp (the later one wins for LATEST). */
  seq: bigint;
}

/**
 * One period's usage of a metric from its events (the definition; the invoices get it from the database,
 * UsageEventsRepository.aggregate, which usage-aggregates.e2e-spec checks against this):
 * SUM adds the values; COUNT counts the events; MAX takes the largest value; UNIQUE_COUNT counts
 * distinct unique keys; LATEST takes the value of the last event of the period (by timestamp, then
 * by arrival). No events: 0.
 */
export function aggregate(type: AggregationType, samples: readonly UsageSample[]): Amount {
  if (samples.length === 0) return ZERO;
  switch (type) {
    case 'SUM':
      return samples.reduce((total, s) => total.add(s.value), ZERO);
    case 'COUNT':
      return new Money(samples.length);
    case 'MAX':
      return samples.reduce((max, s) => (s.value.greaterThan(max) ? s.value : max), samples[0].value);
    case 'UNIQUE_COUNT':
      return new Money(new Set(samples.map((s) => s.uniqueKey ?? s.value.toFixed())).size);
    case 'LATEST': {
      let last = samples[0];
      for (const s of samples) {
        const later = s.timestamp.getTime() - last.timestamp.getTime() || (s.seq > last.seq ? 1 : s.seq < last.seq ? -1 : 0);
        if (later > 0) last = s;
      }
      return last.value;
    }
  }
}

/** A usage tier: units in [startsAt, endsAt) cost pricePerUnit each; endsAt null is open-ended. */
export interface Tier {
  startsAt: Amount;
  endsAt: Amount | null;
  pricePerUnit: Amount;
}

export interface TierCharge {
  tier: Tier;
  units: Amount;
  amount: Amount;
}

/**
 * Graduated pricing: each unit of `quantity` costs the price of the tier it falls in (a quantity of
 * 150 over tiers [0,100) and [100,∞) is 100 units of the first and 50 of the second). Units below
 * every tier, or in a gap between tiers, are free. The total is rounded once, half-up at 30 digits.
 */
export function graduatedPrice(tiers: readonly Tier[], quantity: Amount): { amount: Amount; charges: TierCharge[] } {
  const charges: TierCharge[] = [];
  let total: Amount = ZERO;
  const ordered = [...tiers].sort((a, b) => a.startsAt.comparedTo(b.startsAt));
  for (const tier of ordered) {
    if (!quantity.greaterThan(tier.startsAt)) continue;
    const top = tier.endsAt === null || quantity.lessThan(tier.endsAt) ? quantity : tier.endsAt;
    const units = top.sub(tier.startsAt);
    const amount = units.mul(tier.pricePerUnit);
    charges.push({ tier, units, amount });
    total = total.add(amount);
  }
  return { amount: roundMoney(total), charges };
}
