import Decimal from 'decimal.js';
import { type Amount, Money } from '../../../shared/money/money';

/**
 * What is still due through a provider: the invoice's price_usd less the USD value of the payments
 * already seen (completed or waiting for confirmations), in the provider's currency at `rateUsd`,
 * rounded UP to the provider's decimals (the same rule GET /providers/{invoice_id} applies to the
 * whole price), never below zero.
 */
export function stillDue(priceUsd: Amount, paidUsd: Amount, rateUsd: Amount, decimals: number): Amount {
  const open = priceUsd.minus(paidUsd);
  if (open.lte(0)) return open.mul(0).abs();
  return open.div(rateUsd).toDecimalPlaces(decimals, Decimal.ROUND_UP);
}

/** An amount in the provider's currency as whole smallest units (wei, token units); it has at most `decimals` digits. */
export function toUnits(amount: Amount, decimals: number): bigint {
  return BigInt(amount.mul(new Money(10).pow(decimals)).toFixed(0, Decimal.ROUND_UP));
}
