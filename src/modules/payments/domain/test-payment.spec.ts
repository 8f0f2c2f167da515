import { Money } from '../../../shared/money/money';
import { isTestPaymentKind, TestPaymentKind, testPaymentPrice } from './test-payment';

const m = (s: string) => new Money(s);

describe('testPaymentPrice', () => {
  it.each<[TestPaymentKind, string, string, number, string]>([
    // 19.75 USD in USDT at 1.0002: 19.746050789842... USDT
    ['exact', '19.75', '1.0002', 6, '19.746051'],
    ['partial', '19.75', '1.0002', 6, '9.873025'],
    ['over', '19.75', '1.0002', 6, '21.720656'],
    // 100 USD in BTC at 91250: 0.00109589041... BTC
    ['exact', '100', '91250', 8, '0.00109590'],
    ['partial', '100', '91250', 8, '0.00054794'],
    ['over', '100', '91250', 8, '0.00120548'],
    // Cards: cents
    ['exact', '25.5', '1', 2, '25.5'],
    ['partial', '25.5', '1', 2, '12.75'],
    ['over', '25.5', '1', 2, '28.05'],
  ])('%s of %s USD at %s (%i decimals) is %s', (kind, due, rate, decimals, want) => {
    expect(testPaymentPrice(kind, m(due), m(rate), decimals).toFixed()).toBe(m(want).toFixed());
  });

  it('covers what is due when exact, stays short of it when partial, goes beyond it when over', () => {
    const due = m('0.333333333333333333333333333333');
    const rate = m('0.07');
    for (const decimals of [0, 2, 6, 8, 18]) {
      const value = (kind: TestPaymentKind) => testPaymentPrice(kind, due, rate, decimals).mul(rate);
      expect(value('exact').gte(due)).toBe(true);
      expect(value('over').gt(value('exact'))).toBe(true);
      expect(testPaymentPrice('partial', due, rate, decimals).gt(0)).toBe(true);
    }
    expect(testPaymentPrice('partial', m('10'), m('1'), 2).mul(1).lt(m('10'))).toBe(true);
  });

  it('pays at least one smallest unit: a debt of less than one unit is paid whole by partial, over pays one more', () => {
    expect(testPaymentPrice('exact', m('0.001'), m('1'), 2).toFixed()).toBe('0.01');
    expect(testPaymentPrice('partial', m('0.001'), m('1'), 2).toFixed()).toBe('0.01');
    expect(testPaymentPrice('over', m('0.001'), m('1'), 2).toFixed()).toBe('0.02');
  });

  it('knows its kinds', () => {
    expect(['exact', 'partial', 'over'].every(isTestPaymentKind)).toBe(true);
    expect(isTestPaymentKind('EXACT')).toBe(false);
    expect(isTestPaymentKind(1)).toBe(false);
  });
});
