import type { Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';
import { convert, MAX_INTEGER_DIGITS, Money, renderAmount, sumAmounts, ZERO } from '../../../shared/money/money';
import type { CalculationStep, ItemCalculation, ItemInput } from './calculation';

/** An item with its catalog price resolved: what the pure pipeline needs. */
export type PricedItem =
  | { type: 'PRODUCT'; input: Extract<ItemInput, { type: 'PRODUCT' }>; title: string; currency: Currency; unitPrice: Amount }
  | { type: 'PAYMENT_INTENT'; input: Extract<ItemInput, { type: 'PAYMENT_INTENT' }>; currency: Currency; price: Amount };

export type UsdRates = Record<Currency, Amount>;

export interface PipelineResult {
  items: ItemCalculation[];
  totals: [CalculationStep, CalculationStep];
  total: { currency: Currency; price: Amount; priceUsd: Amount };
}

/**
 * The invoice currency: the one asked for, else the single currency all items share, else null
 * (the caller answers 400 on `currency`).
 */
export function deriveCurrency(items: Array<{ currency: Currency }>, requested: Currency | null): Currency | null {
  if (requested) return requested;
  const currencies = new Set(items.map((i) => i.currency));
  return currencies.size === 1 ? [...currencies][0] : null;
}

function step(
  idx: number,
  calculationType: CalculationStep['calculationType'],
  title: string,
  currency: Currency,
  initialPrice: Amount,
  price: Amount,
  details: CalculationStep['details'],
): CalculationStep {
  return { idx, calculationType, title, currency, initialPrice, price, priceDelta: price.sub(initialPrice), details };
}

/**
 * Items -> ordered calculation steps -> totals (decisions §7). Each item starts with a PRODUCT or
 * PAYMENT_INTENT step in its own currency; a CURRENCY_CHANGE step follows when that differs from
 * the target. TOTAL sums the items in the target currency; TOTAL_USD sums each item converted to
 * USD from its own currency. Conversions round half-up at 30 digits, once each.
 */
export function runPipeline(items: PricedItem[], target: Currency, rates: UsdRates): PipelineResult {
  const calculated: ItemCalculation[] = items.map((item, index) => {
    const steps: CalculationStep[] = [];
    let own: Amount;
    if (item.type === 'PRODUCT') {
      const { quantity, product_id } = item.input;
      own = item.unitPrice.mul(quantity);
      steps.push(
        step(0, 'PRODUCT', item.title, item.currency, item.unitPrice, own, {
          price: renderAmount(item.unitPrice),
          currency: item.currency,
          quantity,
          product_id,
        }),
      );
    } else {
      own = item.price;
      steps.push(
        step(0, 'PAYMENT_INTENT', 'Payment intent', item.currency, item.price, item.price, {
          payment_intent_id: item.input.payment_intent_id ?? null,
          currency: item.currency,
          price: renderAmount(item.price),
          quantity: 1,
        }),
      );
    }
    let inTarget = own;
    if (item.currency !== target) {
      inTarget = convert(own, rates[item.currency], rates[target]);
      steps.push(
        step(1, 'CURRENCY_CHANGE', `Currency change ${item.currency} to ${target}`, target, own, inTarget, {
          from: item.currency,
          to: target,
          from_rate_usd: renderAmount(rates[item.currency]),
          to_rate_usd: renderAmount(rates[target]),
        }),
      );
    }
    const priceUsd = item.currency === 'USD' ? own : convert(own, rates[item.currency], rates.USD);
    return {
      index,
      item: { ...item.input, currency: item.currency },
      steps,
      total: { currency: target, currencyOriginal: item.currency, price: inTarget, priceUsd, priceOrig: own },
    };
  });

  const price = sumAmounts(calculated.map((c) => c.total.price));
  const priceUsd = sumAmounts(calculated.map((c) => c.total.priceUsd));
  const totals: [CalculationStep, CalculationStep] = [
    step(0, 'TOTAL', 'Total', target, ZERO, price, []),
    step(0, 'TOTAL_USD', 'Total in USD', 'USD', ZERO, priceUsd, []),
  ];
  return { items: calculated, totals, total: { currency: target, price, priceUsd } };
}

/**
 * What of a calculation no amount can hold (decisions §1: at most MAX_INTEGER_DIGITS integer digits, as
 * every amount is stored): each input is within it, but a quantity, a conversion into a currency worth
 * less, or a sum may not be. Field errors naming the item (`items.<i>.price`, or `.quantity` for a
 * product) when its own amount or its USD value is past it, `currency` when the conversion into the target
 * currency is, and for the totals `currency` when a conversion took part, else `items`; null when everything
 * fits.
 */
export function amountsPastLimit(result: PipelineResult, target: Currency): Record<string, string> | null {
  const limit = new Money(10).pow(MAX_INTEGER_DIGITS);
  const past = (a: Amount) => a.abs().greaterThanOrEqualTo(limit);
  const errors: Record<string, string> = {};
  for (const c of result.items) {
    const field = c.item.type === 'PRODUCT' ? `items.${c.index}.quantity` : `items.${c.index}.price`;
    if (past(c.total.priceOrig)) errors[field] = `comes to more than ${MAX_INTEGER_DIGITS} integer digits in ${c.total.currencyOriginal}`;
    else if (past(c.total.priceUsd)) errors[field] = `is worth more than ${MAX_INTEGER_DIGITS} integer digits of USD`;
    else if (past(c.total.price))
      errors.currency = `item ${c.index} comes to more than ${MAX_INTEGER_DIGITS} integer digits in ${target}; choose a currency worth more`;
  }
  if (Object.keys(errors).length) return errors;
  if (past(result.total.price) || past(result.total.priceUsd)) {
    const converted = result.items.some((c) => c.total.currencyOriginal !== target);
    return {
      [converted ? 'currency' : 'items']: `the total comes to more than ${MAX_INTEGER_DIGITS} integer digits${converted ? ` in ${target} or USD` : ''}`,
    };
  }
  return null;
}
