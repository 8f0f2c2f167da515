import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { createInvoice, intent, readInvoice } from './invoice-helpers';

/** Tickers (BTC, ETH, ...) are read as the interface's currency names; answers always use the names. */
describe('currency tickers in requests', () => {
  it('creates an invoice from BTC and ETH as it would from BITCOIN and ETHEREUM', async () => {
    const org = await createOrg();
    const byTicker = await readInvoice(org.test, await createInvoice(org.test, { items: [intent('0.5', 'BTC')], currency: 'ETH' }), {
      expand: ['items'],
    });
    const byName = await readInvoice(org.test, await createInvoice(org.test, { items: [intent('0.5', 'BITCOIN')], currency: 'ETHEREUM' }), {
      expand: ['items'],
    });
    expect(byTicker.currency).toBe('ETHEREUM');
    expect(byTicker.price).toBe(byName.price);
    expect(byTicker.items[0].currency).toBe('BITCOIN');
  });

  it('reads tickers in quotes, invoice reads and list filters', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test, { items: [intent('10', 'LTC')] });
    const quote = expectSuccess(await org.test.post('/pay/quote', { currency: 'DOGE', items: [intent('1', 'LTC')] }));
    expect(quote.currency).toBe('DOGECOIN');
    expect((await readInvoice(org.test, id, { currency: 'BTC' })).summary.currency).toBe('BITCOIN');
    const list = expectSuccess(await org.test.post('/invoices/list', { currency: ['LTC'] }));
    expect(list.items.map((i: { id: string }) => i.id)).toEqual([id]);
  });

  it('reads currency codes in any letter case, and answers with the canonical code', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test, { items: [intent('12.5', 'usd')], currency: 'Usdt' });
    const invoice = await readInvoice(org.test, id, { expand: ['items'] });
    expect(invoice.currency).toBe('USDT');
    expect(invoice.items[0].currency).toBe('USD');
    expect((await readInvoice(org.test, id, { currency: 'eur' })).summary.currency).toBe('EUR');
    const quote = expectSuccess(await org.test.post('/pay/quote', { currency: 'btc', items: [intent('1', 'eth')] }));
    expect(quote.currency).toBe('BITCOIN');
    const list = expectSuccess(await org.test.post('/invoices/list', { currency: ['usdt'] }));
    expect(list.items.map((i: { id: string }) => i.id)).toEqual([id]);
    const product = expectSuccess(
      await org.test.post('/products', { name: 'Lowercase', schemas: [{ name: 'Once', type: 'ONE_TIME', currency: 'usdc', base_price: '5' }] }),
    );
    const read = expectSuccess(await org.test.get(`/products/${product.id}`));
    expect(read.schemas[0].currency).toBe('USDC');
    // An unknown code in lowercase is still refused.
    expectError(await org.test.post('/invoices/create', { items: [intent('1', 'usdx')] }), 400, { field: 'items.0.currency' });
  });

  it('answers an unknown currency with every accepted value and the tickers', async () => {
    const org = await createOrg();
    const body = expectError(await org.test.post('/invoices/create', { items: [intent('1', 'BTCX')] }), 400, { field: 'items.0.currency' });
    const message: string = body.validator['items.0.currency'];
    for (const value of ['BITCOIN', 'ETHEREUM', 'USD', 'EUR', 'PEN', 'BTC (BITCOIN)', 'DOGE (DOGECOIN)']) expect(message).toContain(value);
  });
});
