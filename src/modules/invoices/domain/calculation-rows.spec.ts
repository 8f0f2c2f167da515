import { Money } from '../../../shared/money/money';
import type { CalculationStep, PriceCalculation } from '../../quotes';
import { calculationLines } from './calculation-rows';

const m = (v: string) => new Money(v);
const step = (idx: number, calculationType: CalculationStep['calculationType'], price: string): CalculationStep => ({
  idx,
  calculationType,
  title: calculationType,
  currency: 'USD',
  initialPrice: m('0'),
  price: m(price),
  priceDelta: m(price),
  details: [],
});

describe('calculationLines', () => {
  it('orders lines by item, then idx, then the totals, numbering their positions', () => {
    const calc = {
      currency: 'USD',
      items: [
        { index: 1, item: { type: 'PAYMENT_INTENT', currency: 'USD', price: '2' }, steps: [step(0, 'PAYMENT_INTENT', '2')], total: {} },
        {
          index: 0,
          item: { type: 'PAYMENT_INTENT', currency: 'EUR', price: '1' },
          steps: [step(1, 'CURRENCY_CHANGE', '1.1'), step(0, 'PAYMENT_INTENT', '1')],
          total: {},
        },
      ],
      totals: [step(0, 'TOTAL', '3.1'), step(0, 'TOTAL_USD', '3.1')],
    } as unknown as PriceCalculation;
    const lines = calculationLines(calc);
    expect(lines.map((l) => [l.itemIndex, l.idx, l.calculationType, l.position])).toEqual([
      [0, 0, 'PAYMENT_INTENT', 0],
      [0, 1, 'CURRENCY_CHANGE', 1],
      [1, 0, 'PAYMENT_INTENT', 2],
      [null, 0, 'TOTAL', 3],
      [null, 0, 'TOTAL_USD', 4],
    ]);
    expect(lines[1].price.toString()).toBe('1.1');
  });
});
