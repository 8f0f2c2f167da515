import type { Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';
import type { CalculationStep, PriceCalculation } from '../../quotes';

/** One stored calculation line, before ids and tenant columns are added. */
export interface CalculationLine {
  /** Index of the item in the invoice, or null for the totals. */
  itemIndex: number | null;
  position: number;
  idx: number;
  calculationType: string;
  title: string;
  currency: Currency;
  initialPrice: Amount;
  priceDelta: Amount;
  price: Amount;
  details: CalculationStep['details'];
}

/** Flattens a price calculation into stored lines: each item's steps by idx, then TOTAL and TOTAL_USD. */
export function calculationLines(calc: PriceCalculation): CalculationLine[] {
  const lines: CalculationLine[] = [];
  const push = (itemIndex: number | null, s: CalculationStep) =>
    lines.push({
      itemIndex,
      position: lines.length,
      idx: s.idx,
      calculationType: s.calculationType,
      title: s.title,
      currency: s.currency,
      initialPrice: s.initialPrice,
      priceDelta: s.priceDelta,
      price: s.price,
      details: s.details,
    });
  const items = [...calc.items].sort((a, b) => a.index - b.index);
  for (const item of items) {
    for (const step of [...item.steps].sort((a, b) => a.idx - b.idx)) push(item.index, step);
  }
  for (const step of calc.totals) push(null, step);
  return lines;
}
