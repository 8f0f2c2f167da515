import Decimal from 'decimal.js';
import { Amount, Money } from '../../../shared/money/money';

/** What a test payment from the checkout page pays (decisions §17): all that is due, part of it, or more. */
export const TEST_PAYMENT_KINDS = ['exact', 'partial', 'over'] as const;
export type TestPaymentKind = (typeof TEST_PAYMENT_KINDS)[number];

export function isTestPaymentKind(value: unknown): value is TestPaymentKind {
  return typeof value === 'string' && (TEST_PAYMENT_KINDS as readonly string[]).includes(value);
}

/** How much more than what is due an `over` payment pays: a tenth. */
const OVER_FACTOR = new Money('1.1');

/**
 * The amount, in the provider's currency, of a test payment of `kind` against `dueUsd` (the USD still
 * due, more than zero) at `rateUsd` (USD per unit of the currency), on a rail of `decimals`:
 * - exact: what is due, rounded UP to the smallest unit (as the amounts to send are), so it covers it;
 * - partial: half of what is due, rounded down, at least one smallest unit (so a debt of one unit is paid whole);
 * - over: a tenth more than what is due, rounded up, at least one smallest unit more than exact.
 * Pure and exact (decimal.js); never a float.
 */
export function testPaymentPrice(kind: TestPaymentKind, dueUsd: Amount, rateUsd: Amount, decimals: number): Amount {
  const unit = new Money(10).pow(-decimals);
  const due = dueUsd.div(rateUsd);
  const exact = due.toDecimalPlaces(decimals, Decimal.ROUND_UP);
  if (kind === 'exact') return exact;
  if (kind === 'partial') return Money.max(due.div(2).toDecimalPlaces(decimals, Decimal.ROUND_DOWN), unit);
  return Money.max(due.mul(OVER_FACTOR).toDecimalPlaces(decimals, Decimal.ROUND_UP), exact.plus(unit));
}
