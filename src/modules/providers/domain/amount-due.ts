import Decimal from 'decimal.js';
import type { Amount } from '../../../shared/money/money';

/**
 * What a payer sends through a provider to cover a USD amount: the USD amount divided by the USD
 * rate of the provider's currency, rounded UP to the provider's smallest unit (decimals), so the
 * payment is never short by a fraction of a unit the rail cannot carry.
 */
export function amountDue(priceUsd: Amount, currencyRateUsd: Amount, decimals: number): Amount {
  return priceUsd.div(currencyRateUsd).toDecimalPlaces(decimals, Decimal.ROUND_UP);
}
