import { anonymous } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { runWorkerPass } from '../../support/workers';
import { convert, createInvoice, intent, r30, readInvoice } from './invoice-helpers';

/**
 * Payer currency toggles: a change to the currency already set is a no-op, and a payer may change
 * an invoice's currency at most 5 times an hour (then 429), so toggling cannot flood the merchant
 * with invoice.updated events, webhook deliveries and re-quotes.
 */
describe('currency changes: no-op and the payer cap', () => {
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });

  afterEach(async () => {
    await receiver.stop();
  });

  const updatedEventsOf = async (api: any, id: string) =>
    expectSuccess(await api.post('/events', { type: 'invoice.updated', limit: 100 })).items.filter((e: any) => e.data.object.id === id);

  it('six anonymous toggles give five changes, five events and five deliveries; the sixth is 429 and the amounts stay right', async () => {
    const org = await createOrg();
    expectSuccess(await org.test.post('/webhooks', { url: receiver.url(), event_types: ['invoice.updated'] }), 201);
    const id = await createInvoice(org.test, { items: [intent('100', 'EUR')], currency: 'EUR' });
    const payer = anonymous();

    const toggles = ['USD', 'EUR', 'USD', 'EUR', 'USD', 'EUR'];
    const statuses: number[] = [];
    for (const currency of toggles) {
      const res = await payer.put(`/invoices/${id}`, { currency });
      statuses.push(res.status);
      if (res.status === 429) {
        const body = expectError(res, 429, { code: 'rate_limited' });
        expect(body.error).toMatch(/Too many/);
        const retryAfter = Number(res.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(3500);
        expect(retryAfter).toBeLessThanOrEqual(3600);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);

    // the invoice is at the fifth toggle's currency, quoted at current rates
    const invoice = await readInvoice(org.test, id, { expand: ['calculations'] });
    expect(invoice).toMatchObject({ status: 'PENDING', currency: 'USD', price: r30(convert(100, 'EUR', 'USD')) });
    expect(invoice.calculations.map((c: any) => [c.calculation_type, c.currency])).toEqual([
      ['PAYMENT_INTENT', 'EUR'],
      ['CURRENCY_CHANGE', 'USD'],
      ['TOTAL', 'USD'],
      ['TOTAL_USD', 'USD'],
    ]);

    expect(await updatedEventsOf(org.test, id)).toHaveLength(5);
    await receiver.waitFor((r) => r.length >= 5);
    // One dispatcher pass sends whatever else is due: nothing more arrives.
    await runWorkerPass(org.test, 'webhook-dispatcher');
    expect(receiver.received).toHaveLength(5);

    // the merchant's key is not capped by the payers' count
    expect(expectSuccess(await org.test.put(`/invoices/${id}`, { currency: 'GBP' }))).toEqual({ id, message: 'Invoice currency changed to GBP' });
    expect((await readInvoice(org.test, id)).price).toBe(r30(convert(100, 'EUR', 'GBP')));
    expectError(await payer.put(`/invoices/${id}`, { currency: 'EUR' }), 429, { code: 'rate_limited' });
  });

  it('a change to the currency already set writes nothing: no event, no delivery, no re-quote, and it is not counted', async () => {
    const org = await createOrg();
    expectSuccess(await org.test.post('/webhooks', { url: receiver.url(), event_types: ['invoice.updated'] }), 201);
    const id = await createInvoice(org.test, { items: [intent('100', 'EUR')], currency: 'EUR' });
    const before = await readInvoice(org.test, id, { expand: ['calculations'] });

    for (let i = 0; i < 6; i++) {
      expect(expectSuccess(await anonymous().put(`/invoices/${id}`, { currency: 'EUR' }))).toEqual({
        id,
        message: 'Invoice currency is already EUR; nothing changed',
      });
    }
    expect(expectSuccess(await org.test.put(`/invoices/${id}`, { currency: 'EUR' }))).toEqual({
      id,
      message: 'Invoice currency is already EUR; nothing changed',
    });
    expect(await readInvoice(org.test, id, { expand: ['calculations'] })).toEqual(before);
    expect(await updatedEventsOf(org.test, id)).toHaveLength(0);

    // the no-ops did not use up the payer's changes
    expectSuccess(await anonymous().put(`/invoices/${id}`, { currency: 'USD' }));
    await receiver.waitFor((r) => r.length >= 1);
    // One dispatcher pass sends whatever else is due: nothing more arrives.
    await runWorkerPass(org.test, 'webhook-dispatcher');
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0].json.data.previous_attributes).toMatchObject({ currency: 'EUR' });
  });

  it('counts per invoice: another invoice of the same merchant is not capped', async () => {
    const org = await createOrg();
    const first = await createInvoice(org.test, { items: [intent('100', 'EUR')], currency: 'EUR' });
    const second = await createInvoice(org.test, { items: [intent('100', 'EUR')], currency: 'EUR' });
    for (const currency of ['USD', 'EUR', 'USD', 'EUR', 'USD']) expectSuccess(await anonymous().put(`/invoices/${first}`, { currency }));
    expectError(await anonymous().put(`/invoices/${first}`, { currency: 'GBP' }), 429);
    expectSuccess(await anonymous().put(`/invoices/${second}`, { currency: 'GBP' }));
  });

  it('refuses, naming the field, amounts that each fit but whose conversion or sum no amount can hold (400, nothing stored, never a 500)', async () => {
    const org = await createOrg();
    const big = (zeros: number) => `1${'0'.repeat(zeros)}`;
    // 10^47 BTC is worth about 10^52 USD.
    const btc = expectError(await org.test.post('/invoices/create', { items: [intent(big(47), 'BITCOIN')] }), 400, { field: 'items.0.price' });
    expect(btc.validator['items.0.price']).toContain('of USD');
    // Three prices of 48 nines: the total has 49 digits.
    const nines = '9'.repeat(48);
    expectError(await org.test.post('/invoices/create', { items: [intent(nines, 'USD'), intent(nines, 'USD'), intent(nines, 'USD')] }), 400, {
      field: 'items',
    });
    // A payer moving a 10^46 USD invoice to JPY (about 1.6 x 10^48 yen): the currency is refused, the invoice unchanged.
    const id = await createInvoice(org.test, { items: [intent(big(46), 'USD')], currency: 'USD' });
    const moved = expectError(await anonymous().put(`/invoices/${id}`, { currency: 'JPY' }), 400, { field: 'currency' });
    expect(moved.validator.currency).toContain('in JPY');
    expect((await readInvoice(org.test, id)).currency).toBe('USD');
    // A payment whose euros are worth more USD than an amount holds.
    const paid = expectError(
      await org.test.post('/test_helpers/payments', { invoice_id: id, provider_id: 'prov_card_eur', price: nines, status: 'COMPLETED' }),
      400,
      { field: 'price' },
    );
    expect(paid.validator.price).toContain('of USD');
  });
});
