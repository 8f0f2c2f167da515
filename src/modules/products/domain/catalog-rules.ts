import type { FieldErrors } from '../../../shared/errors/domain-error';
import type { Amount } from '../../../shared/money/money';

/** Enumerations of the catalog (the interface shows one value of each; these are the full sets). */
export const SCHEMA_TYPES = ['ONE_TIME', 'RECURRING'] as const;
export const INTERVAL_TYPES = ['DAY', 'WEEK', 'MONTH', 'YEAR'] as const;
export const PAYMENT_TYPES = ['ADVANCE', 'ARREARS'] as const;
export const RENEW_TYPES = ['CALENDAR', 'ANNIVERSARY'] as const;
export const BILLING_TYPES = ['FULL', 'PRORATED'] as const;
export const AGGREGATION_TYPES = ['SUM', 'COUNT', 'MAX', 'UNIQUE_COUNT', 'LATEST'] as const;

export type SchemaType = (typeof SCHEMA_TYPES)[number];
export type IntervalType = (typeof INTERVAL_TYPES)[number];
export type PaymentType = (typeof PAYMENT_TYPES)[number];
export type RenewType = (typeof RENEW_TYPES)[number];
export type BillingType = (typeof BILLING_TYPES)[number];
export type AggregationType = (typeof AGGREGATION_TYPES)[number];

export const RECURRING_FIELDS = ['interval_type', 'interval_count', 'payment_type', 'renew_type', 'billing_type'] as const;
export type RecurringField = (typeof RECURRING_FIELDS)[number];

/** The recurring terms of a schema as a client sent them (any of them may be missing). */
export interface RecurringTermsInput {
  type: SchemaType;
  interval_type?: IntervalType | null;
  interval_count?: number | null;
  payment_type?: PaymentType | null;
  renew_type?: RenewType | null;
  billing_type?: BillingType | null;
}

export interface RecurringTerms {
  interval_type: IntervalType | null;
  interval_count: number | null;
  payment_type: PaymentType | null;
  renew_type: RenewType | null;
  billing_type: BillingType | null;
}

/**
 * A RECURRING schema needs every recurring term; a ONE_TIME schema has none (whatever was sent is
 * stored as null). Returns the terms to store, or the missing fields keyed by their name.
 */
export function recurringTermsOf(input: RecurringTermsInput): { terms: RecurringTerms } | { errors: Partial<Record<RecurringField, string>> } {
  if (input.type === 'ONE_TIME') {
    return { terms: { interval_type: null, interval_count: null, payment_type: null, renew_type: null, billing_type: null } };
  }
  const errors: Partial<Record<RecurringField, string>> = {};
  for (const field of RECURRING_FIELDS) {
    if (input[field] === undefined || input[field] === null) errors[field] = 'is required for RECURRING schemas';
  }
  if (Object.keys(errors).length) return { errors };
  return {
    terms: {
      interval_type: input.interval_type!,
      interval_count: input.interval_count!,
      payment_type: input.payment_type!,
      renew_type: input.renew_type!,
      billing_type: input.billing_type!,
    },
  };
}

/** One usage tier: [starts_at, ends_at) of a metric's quantity; ends_at null is open-ended. */
export interface TierBounds {
  startsAt: Amount;
  endsAt: Amount | null;
  /** The metric the tier prices; tiers of different metrics never collide. */
  metric: string;
}

/**
 * Checks a schema's tiers: each must start before it ends, and tiers of one metric must not
 * overlap (touching bounds, where one ends exactly where the next starts, are fine). Returns
 * problems keyed by `<index>.<field>` relative to the configurations array.
 */
export function tierProblems(tiers: readonly TierBounds[]): FieldErrors {
  const errors: FieldErrors = {};
  tiers.forEach((tier, i) => {
    if (tier.endsAt !== null && !tier.startsAt.lessThan(tier.endsAt)) errors[`${i}.starts_at`] = 'must be less than ends_at';
  });
  const byMetric = new Map<string, number[]>();
  tiers.forEach((tier, i) => {
    if (errors[`${i}.starts_at`]) return;
    byMetric.set(tier.metric, [...(byMetric.get(tier.metric) ?? []), i]);
  });
  for (const indexes of byMetric.values()) {
    const sorted = [...indexes].sort((a, b) => tiers[a].startsAt.comparedTo(tiers[b].startsAt) || a - b);
    for (let k = 1; k < sorted.length; k++) {
      const previous = tiers[sorted[k - 1]];
      const current = tiers[sorted[k]];
      // Sorted by start, so the current tier overlaps the previous one when it starts before the previous ends.
      if (previous.endsAt === null || current.startsAt.lessThan(previous.endsAt)) {
        errors[`${sorted[k]}.starts_at`] = `overlaps configurations.${sorted[k - 1]} of the same metric`;
      }
    }
  }
  return errors;
}

/**
 * Version groups of a replacement: the record at position i inherits the group of the replaced
 * version's record at position i; records beyond the old count start a new group.
 */
export function inheritVersionGroups(previousGroups: readonly string[], count: number, freshGroup: () => string): string[] {
  return Array.from({ length: count }, (_, i) => previousGroups[i] ?? freshGroup());
}
