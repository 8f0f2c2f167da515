import type { Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';

// The pricing contract shared by quotes and invoices: what an item is, and what its calculation gives.

/** An item as a client writes it on invoice creation or in a quote. */
export type ItemInput =
  | { type: 'PRODUCT'; product_id: string; billing_schema_id: string; quantity: number }
  | { type: 'PAYMENT_INTENT'; currency: Currency; price: string; payment_intent_id?: string | null };

export type CalculationType = 'PRODUCT' | 'PAYMENT_INTENT' | 'CURRENCY_CHANGE' | 'TOTAL' | 'TOTAL_USD';

/** One ordered step of an item's price (decisions §7). Amounts exact; render with renderAmount(). */
export interface CalculationStep {
  idx: number;
  calculationType: CalculationType;
  title: string;
  currency: Currency;
  initialPrice: Amount;
  price: Amount;
  priceDelta: Amount;
  /** PRODUCT: {price, currency, quantity, product_id}; CURRENCY_CHANGE: {from, to, from_rate_usd, to_rate_usd}; PAYMENT_INTENT: {payment_intent_id, currency, price, quantity}; totals: []. Amount values are 30-digit strings. */
  details: Record<string, string | number | null> | [];
}

export interface ItemCalculation {
  /** Index of the item in the request. */
  index: number;
  item: ItemInput & { currency: Currency };
  steps: CalculationStep[];
  /** The item in the target currency, in USD, and in its own currency. */
  total: { currency: Currency; currencyOriginal: Currency; price: Amount; priceUsd: Amount; priceOrig: Amount };
}

export interface PriceCalculation {
  currency: Currency;
  items: ItemCalculation[];
  /** The TOTAL step (target currency) and the TOTAL_USD step, in that order. */
  totals: [CalculationStep, CalculationStep];
  total: { currency: Currency; price: Amount; priceUsd: Amount };
  rates: { snapshotId: string; takenAt: Date; usd: Partial<Record<Currency, Amount>> };
}
