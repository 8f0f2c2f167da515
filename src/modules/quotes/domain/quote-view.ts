import type { Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';
import { convert, renderAmount } from '../../../shared/money/money';
import { formatTimestamp } from '../../../shared/time/time';
import type { CalculationStep, ItemCalculation, PriceCalculation } from './calculation';

type Rates = Partial<Record<Currency, Amount>>;

function toCurrency(amount: Amount, from: Currency, to: Currency, rates: Rates): Amount {
  return from === to ? amount : convert(amount, rates[from] as Amount, rates[to] as Amount);
}

function baseFields(s: CalculationStep) {
  return {
    idx: s.idx,
    currency: s.currency,
    calculation_type: s.calculationType,
    title: s.title,
    initial_price: renderAmount(s.initialPrice),
    price: renderAmount(s.price),
    price_delta: renderAmount(s.priceDelta),
  };
}

/**
 * A quote step with its amounts also in the item's own currency (`_orig`) and in USD (`_usd`).
 * A CURRENCY_CHANGE step starts from the item's own amount and ends in the target currency, so
 * its `_orig` amounts do not move and its `_usd` delta is only the conversion's rounding.
 */
export function quoteStep(s: CalculationStep, original: Currency, rates: Rates) {
  let initialOrig: Amount, priceOrig: Amount, initialUsd: Amount, priceUsd: Amount;
  if (s.calculationType === 'CURRENCY_CHANGE') {
    initialOrig = s.initialPrice;
    priceOrig = s.initialPrice;
    initialUsd = toCurrency(s.initialPrice, original, 'USD', rates);
    priceUsd = toCurrency(s.price, s.currency, 'USD', rates);
  } else {
    initialOrig = toCurrency(s.initialPrice, s.currency, original, rates);
    priceOrig = toCurrency(s.price, s.currency, original, rates);
    initialUsd = toCurrency(s.initialPrice, s.currency, 'USD', rates);
    priceUsd = toCurrency(s.price, s.currency, 'USD', rates);
  }
  return {
    ...baseFields(s),
    initial_price_orig: renderAmount(initialOrig),
    price_orig: renderAmount(priceOrig),
    price_delta_orig: renderAmount(priceOrig.sub(initialOrig)),
    initial_price_usd: renderAmount(initialUsd),
    price_usd: renderAmount(priceUsd),
    price_delta_usd: renderAmount(priceUsd.sub(initialUsd)),
    details: s.details,
  };
}

function echoItem(c: ItemCalculation) {
  const item = c.item;
  return item.type === 'PRODUCT'
    ? { type: item.type, product_id: item.product_id, quantity: item.quantity, billing_schema_id: item.billing_schema_id, currency: item.currency }
    : { type: item.type, price: renderAmount(c.total.priceOrig), currency: item.currency };
}

/** The `/pay/quote` response: one entry per item, then a TOTAL entry and a TOTAL_USD entry. */
export function quoteView(calc: PriceCalculation) {
  const rates = calc.rates.usd;
  const [total, totalUsd] = calc.totals;
  return {
    currency: calc.currency,
    exchange_rate_timestamp: formatTimestamp(calc.rates.takenAt),
    total: { currency: calc.currency, price: renderAmount(calc.total.price), price_usd: renderAmount(calc.total.priceUsd) },
    items: [
      ...calc.items.map((c) => ({
        item: echoItem(c),
        calculations: c.steps.map((s) => quoteStep(s, c.total.currencyOriginal, rates)),
        total: {
          currency: c.total.currency,
          currency_original: c.total.currencyOriginal,
          price: renderAmount(c.total.price),
          price_usd: renderAmount(c.total.priceUsd),
          price_orig: renderAmount(c.total.priceOrig),
        },
      })),
      { item: { type: 'TOTAL', currency: calc.currency, status: 'INCLUDED' }, calculations: [quoteStep(total, calc.currency, rates)] },
      { item: { type: 'TOTAL_USD', currency: 'USD', status: 'INCLUDED' }, calculations: [{ ...baseFields(totalUsd), details: totalUsd.details }] },
    ],
  };
}

export type QuoteView = ReturnType<typeof quoteView>;
