import { CURRENCIES, Currency } from '../../../shared/money/currency';
import { Money, renderAmount } from '../../../shared/money/money';
import { amountsPastLimit, deriveCurrency, PricedItem, runPipeline, UsdRates } from './pricing';

const rates = Object.fromEntries(CURRENCIES.map((c) => [c, new Money(1)])) as UsdRates;
rates.EUR = new Money('1.1587');
rates.BITCOIN = new Money('91250.42');
rates.USDT = new Money('1.0002');
rates.JPY = new Money('0.006392');
rates.SOLANA = new Money('3');

const intent = (currency: Currency, price: string): PricedItem => ({
  type: 'PAYMENT_INTENT',
  input: { type: 'PAYMENT_INTENT', currency, price },
  currency,
  price: new Money(price),
});
const product = (currency: Currency, unit: string, quantity: number): PricedItem => ({
  type: 'PRODUCT',
  input: { type: 'PRODUCT', product_id: 'product_1', billing_schema_id: 'schema_1', quantity },
  title: 'Pro plan',
  currency,
  unitPrice: new Money(unit),
});
const r = (text: string) => renderAmount(new Money(text));

describe('pricing pipeline', () => {
  it('prices a payment intent in its own currency with no currency change', () => {
    const out = runPipeline([intent('USD', '10.50')], 'USD', rates);
    expect(out.items[0].steps.map((s) => s.calculationType)).toEqual(['PAYMENT_INTENT']);
    const s = out.items[0].steps[0];
    expect([renderAmount(s.initialPrice), renderAmount(s.price), renderAmount(s.priceDelta)]).toEqual([r('10.5'), r('10.5'), r('0')]);
    expect(s.details).toEqual({ payment_intent_id: null, currency: 'USD', price: r('10.5'), quantity: 1 });
    expect(out.totals.map((t) => [t.calculationType, t.currency, renderAmount(t.price), renderAmount(t.initialPrice)])).toEqual([
      ['TOTAL', 'USD', r('10.5'), r('0')],
      ['TOTAL_USD', 'USD', r('10.5'), r('0')],
    ]);
  });

  it('multiplies a product price by its quantity, the delta being the difference', () => {
    const out = runPipeline([product('EUR', '19.99', 3)], 'EUR', rates);
    const s = out.items[0].steps[0];
    expect(s.calculationType).toBe('PRODUCT');
    expect(renderAmount(s.initialPrice)).toBe(r('19.99'));
    expect(renderAmount(s.price)).toBe(r('59.97'));
    expect(renderAmount(s.priceDelta)).toBe(r('39.98'));
    expect(s.details).toEqual({ price: r('19.99'), currency: 'EUR', quantity: 3, product_id: 'product_1' });
    // 59.97 EUR in USD at 1.1587
    expect(renderAmount(out.total.priceUsd)).toBe(r('69.487239'));
  });

  it('adds a CURRENCY_CHANGE step converting through USD rates', () => {
    const out = runPipeline([intent('EUR', '100')], 'BITCOIN', rates);
    const [first, change] = out.items[0].steps;
    expect(first.idx).toBe(0);
    expect(change).toMatchObject({ idx: 1, calculationType: 'CURRENCY_CHANGE', currency: 'BITCOIN' });
    // 100 * 1.1587 / 91250.42 = 0.001269802176271398... rounded half-up at 30 digits
    expect(renderAmount(change.price)).toBe(new Money('115.87').div('91250.42').toFixed(30, Money.ROUND_HALF_UP));
    expect(renderAmount(change.initialPrice)).toBe(r('100'));
    expect(change.details).toEqual({ from: 'EUR', to: 'BITCOIN', from_rate_usd: r('1.1587'), to_rate_usd: r('91250.42') });
    expect(out.items[0].total).toMatchObject({ currency: 'BITCOIN', currencyOriginal: 'EUR' });
  });

  it('rounds half-up at the 30th fractional digit', () => {
    // 1 JPY in SOLANA: 0.006392 / 3 = 0.002130666..., the 31st digit is 6: rounds up
    const out = runPipeline([intent('JPY', '1')], 'SOLANA', rates);
    expect(renderAmount(out.total.price)).toBe('0.002130666666666666666666666667');
    // an exact half at the 31st digit rounds away from zero
    const half = runPipeline([intent('USD', '0.0000000000000000000000000000005')], 'EUR', { ...rates, EUR: new Money(1) });
    expect(renderAmount(half.total.price)).toBe('0.000000000000000000000000000001');
  });

  it('totals mixed currencies exactly: TOTAL is the sum of item prices, TOTAL_USD the sum of item USD values', () => {
    const items = [intent('EUR', '10'), intent('USDT', '5.5'), product('USD', '0.1', 3), intent('BITCOIN', '0.00012345')];
    const out = runPipeline(items, 'USD', rates);
    const sum = out.items.reduce((acc, c) => acc.add(c.total.price), new Money(0));
    expect(renderAmount(out.total.price)).toBe(renderAmount(sum));
    expect(renderAmount(out.totals[0].price)).toBe(renderAmount(sum));
    const sumUsd = out.items.reduce((acc, c) => acc.add(c.total.priceUsd), new Money(0));
    expect(renderAmount(out.totals[1].price)).toBe(renderAmount(sumUsd));
    // 10 EUR + 5.5 USDT + 3 x 0.1 USD + 0.00012345 BTC, each at its USD rate
    expect(renderAmount(out.total.price)).toBe(r('28.652964349'));
  });

  it('keeps a quantity-one intent and a product in the same currency free of conversion steps', () => {
    const out = runPipeline([product('USD', '5', 1), intent('USD', '1')], 'USD', rates);
    expect(out.items.flatMap((c) => c.steps.map((s) => s.calculationType))).toEqual(['PRODUCT', 'PAYMENT_INTENT']);
  });

  it.each([
    [[{ currency: 'USD' }, { currency: 'USD' }], null, 'USD'],
    [[{ currency: 'USD' }, { currency: 'EUR' }], null, null],
    [[{ currency: 'USD' }, { currency: 'EUR' }], 'EUR', 'EUR'],
    [[{ currency: 'BITCOIN' }], 'USD', 'USD'],
  ] as Array<[Array<{ currency: Currency }>, Currency | null, Currency | null]>)('derives the currency of %j asked %s as %s', (items, asked, expected) => {
    expect(deriveCurrency(items, asked)).toBe(expected);
  });
});

describe('amountsPastLimit', () => {
  const nines = '9'.repeat(48);
  const limitOf = (items: PricedItem[], target: Currency) => amountsPastLimit(runPipeline(items, target, rates), target);

  it('is null while every amount of the calculation fits 48 integer digits', () => {
    expect(limitOf([intent('USD', nines)], 'USD')).toBeNull();
    expect(limitOf([intent('USD', '10'), product('EUR', '5', 3)], 'USD')).toBeNull();
  });

  it("names the item whose own amount or USD value is past it, the currency when the conversion is, and the totals' cause", () => {
    // 10^47 BTC is worth 9.1 x 10^51 USD.
    expect(limitOf([intent('BITCOIN', `1${'0'.repeat(47)}`)], 'BITCOIN')).toEqual({ 'items.0.price': expect.stringContaining('of USD') });
    // A product's price times its quantity.
    expect(limitOf([intent('USD', '1'), product('USD', `1${'0'.repeat(43)}`, 100_000)], 'USD')).toEqual({
      'items.1.quantity': expect.stringContaining('in USD'),
    });
    // 10^46 USD is 1.6 x 10^48 JPY: the target currency is what took it past.
    expect(limitOf([intent('USD', `1${'0'.repeat(46)}`)], 'JPY')).toEqual({ currency: expect.stringContaining('in JPY') });
    // Three amounts that each fit, whose sum does not.
    expect(limitOf([intent('USD', nines), intent('USD', nines), intent('USD', nines)], 'USD')).toEqual({ items: expect.stringContaining('total') });
  });
});
