import { anonymous, Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg } from '../../support/factories';
import { rate } from '../../support/money';
import { createInvoice, D, r30 } from '../payments/payments-helpers';

interface TestPayment {
  id: string;
  kind: string;
  provider_id: string;
  currency: string;
  price: string;
  status: string;
  created: boolean;
  invoice: { id: string; status: string; substatus: string | null };
}

const testPayment = async (api: Api, invoiceId: string, body: Record<string, unknown>): Promise<TestPayment> =>
  expectSuccess<TestPayment>(await api.post(`/invoices/${invoiceId}/test_payment`, body), 201);

const paymentsOf = async (invoiceId: string) =>
  expectSuccess<{ status: string; substatus: string | null; price_usd: string; payments: any[] }>(
    await anonymous().post(`/invoices/${invoiceId}`, { expand: ['payments'] }),
  );

/** Decisions §17: the checkout's test-payment control, a keyless payer call on test-mode invoices only. */
describe('POST /invoices/{id}/test_payment', () => {
  it('exact pays what is due through a provider without a rail and completes the invoice (no key needed)', async () => {
    const org = await createOrg();
    const invoiceId = await createInvoice(org.test, '19.75');
    const paid = await testPayment(anonymous(), invoiceId, { provider_id: 'prov_card_usd', kind: 'exact' });
    expect(paid).toEqual({
      id: expect.stringMatching(/^payment_/),
      kind: 'exact',
      provider_id: 'prov_card_usd',
      currency: 'USD',
      price: r30('19.75'),
      status: 'COMPLETED',
      created: true,
      invoice: { id: invoiceId, status: 'COMPLETED', substatus: null },
    });
    const invoice = await paymentsOf(invoiceId);
    expect(invoice).toMatchObject({ status: 'COMPLETED', substatus: null });
    expect(invoice.payments).toHaveLength(1);
    expect(invoice.payments[0]).toMatchObject({ id: paid.id, provider_id: 'prov_card_usd', price: r30('19.75'), price_usd: r30('19.75'), status: 'COMPLETED' });
    // A paid invoice takes no more.
    expectError(await anonymous().post(`/invoices/${invoiceId}/test_payment`, { provider_id: 'prov_card_usd', kind: 'exact' }), 400, {
      code: 'invoice_final',
      field: 'id',
    });
  });

  it('partial pays half of what is due (PARTIALLY_PAID), then exact pays the rest in another currency (COMPLETED)', async () => {
    const org = await createOrg();
    const invoiceId = await createInvoice(org.test, '100');
    const half = await testPayment(anonymous(), invoiceId, { provider_id: 'prov_bitcoin_bitcoin', kind: 'partial' });
    // 100 USD at 91250.42 USD per BTC, halved and rounded down to satoshis.
    expect(half).toMatchObject({ currency: 'BITCOIN', status: 'COMPLETED', invoice: { status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' } });
    expect(half.price).toBe(r30(new D(100).div(rate('BITCOIN')).div(2).toDecimalPlaces(8, D.ROUND_DOWN)));

    const afterHalf = await paymentsOf(invoiceId);
    const dueUsd = new D(afterHalf.price_usd).minus(afterHalf.payments[0].price_usd as string);
    const rest = await testPayment(org.test, invoiceId, { provider_id: 'prov_ethereum_usdt', kind: 'exact' });
    expect(rest.price).toBe(r30(dueUsd.div(rate('USDT')).toDecimalPlaces(6, D.ROUND_UP)));
    expect(rest.invoice).toEqual({ id: invoiceId, status: 'COMPLETED', substatus: null });
    const done = await paymentsOf(invoiceId);
    expect(done.payments.map((p) => p.provider_id)).toEqual(['prov_bitcoin_bitcoin', 'prov_ethereum_usdt']);
    const paidUsd = done.payments.reduce((sum, p) => sum.plus(p.price_usd as string), new D(0));
    expect(paidUsd.gte(done.price_usd)).toBe(true);
  });

  it('over pays a tenth more than what is due: COMPLETED, PAID_OVER', async () => {
    const org = await createOrg();
    const invoiceId = await createInvoice(org.test, '10');
    const over = await testPayment(anonymous(), invoiceId, { provider_id: 'prov_ethereum_usdt', kind: 'over' });
    expect(over.price).toBe(r30(new D(10).div(rate('USDT')).mul('1.1').toDecimalPlaces(6, D.ROUND_UP)));
    expect(over.invoice).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_OVER' });
  });

  it('pays once for one idempotency_key, also when the same click arrives twice at once', async () => {
    const org = await createOrg();
    const invoiceId = await createInvoice(org.test, '40');
    const first = await testPayment(anonymous(), invoiceId, { provider_id: 'prov_card_eur', kind: 'partial', idempotency_key: 'click-1' });
    expect(first.created).toBe(true);
    const again = await testPayment(anonymous(), invoiceId, { provider_id: 'prov_card_eur', kind: 'partial', idempotency_key: 'click-1' });
    expect(again).toEqual({ ...first, created: false });

    const twice = await Promise.all(
      [1, 2].map(() => anonymous().post(`/invoices/${invoiceId}/test_payment`, { provider_id: 'prov_card_eur', kind: 'partial', idempotency_key: 'click-2' })),
    );
    const answers = twice.map((res) => expectSuccess<TestPayment>(res, 201));
    expect(answers[0].id).toBe(answers[1].id);
    expect(answers.map((a) => a.created).sort()).toEqual([false, true]);
    expect((await paymentsOf(invoiceId)).payments).toHaveLength(2);
  });

  it('pays an invoice once when payments are sent at once, as if sent one after the other', async () => {
    const org = await createOrg();
    // Five exact payments at once, no key (five tabs): one pays, the others find the invoice paid.
    const invoiceId = await createInvoice(org.test, '25');
    const five = await Promise.all(
      [1, 2, 3, 4, 5].map(() => anonymous().post(`/invoices/${invoiceId}/test_payment`, { provider_id: 'prov_card_usd', kind: 'exact' })),
    );
    expect(five.filter((res) => res.status === 201)).toHaveLength(1);
    // invoice_final, or nothing_due when its reads fell on either side of the first one's commit.
    for (const res of five.filter((r) => r.status !== 201)) expect([400, res.body.code]).toEqual([400, expect.stringMatching(/^(invoice_final|nothing_due)$/)]);
    const paid = await paymentsOf(invoiceId);
    expect(paid).toMatchObject({ status: 'COMPLETED', substatus: null });
    expect(paid.payments).toHaveLength(1);

    // A partial and an exact one at once: whichever comes second is judged on what the first left.
    const both = await createInvoice(org.test, '40');
    const [partial, exact] = await Promise.all([
      anonymous().post(`/invoices/${both}/test_payment`, { provider_id: 'prov_card_usd', kind: 'partial' }),
      anonymous().post(`/invoices/${both}/test_payment`, { provider_id: 'prov_card_usd', kind: 'exact' }),
    ]);
    expect([exact.status, exact.body.code]).toEqual([201, undefined]);
    const settled = await paymentsOf(both);
    expect(settled).toMatchObject({ status: 'COMPLETED', substatus: null });
    const paidUsd = settled.payments.reduce((sum, p) => sum.plus(p.price_usd as string), new D(0));
    expect(paidUsd.toFixed()).toBe('40');
    if (partial.status === 201) expect(settled.payments).toHaveLength(2);
    else expect([partial.status, partial.body.code]).toEqual([400, expect.stringMatching(/^(invoice_final|nothing_due)$/)]);
  });

  it('answers 404 for a live-mode invoice (as for an unknown one), whoever asks', async () => {
    const org = await createOrg();
    const live = await createInvoice(org.live, '10');
    const body = { provider_id: 'prov_card_usd', kind: 'exact' };
    expectError(await anonymous().post(`/invoices/${live}/test_payment`, body), 404, { code: 'invoice_not_found' });
    expectError(await org.live.post(`/invoices/${live}/test_payment`, body), 404, { code: 'invoice_not_found' });
    expectError(await anonymous().post('/invoices/invoice_00000000-0000-7000-8000-000000000000/test_payment', body), 404, { code: 'invoice_not_found' });
    expectError(await anonymous().post('/invoices/whatever/test_payment', body), 404, { code: 'invoice_not_found' });
    // A test invoice asked with a live key (the other mode) or another organization's key: 404 too.
    const test = await createInvoice(org.test, '10');
    expectError(await org.live.post(`/invoices/${test}/test_payment`, body), 404, { code: 'invoice_not_found' });
    expectError(await (await createOrg()).test.post(`/invoices/${test}/test_payment`, body), 404, { code: 'invoice_not_found' });
    expect((await paymentsOf(live)).payments).toEqual([]);
  });

  it('answers 400 naming the field for a bad kind, provider or key, and 401 for a bad key', async () => {
    const org = await createOrg();
    const invoiceId = await createInvoice(org.test, '10');
    const post = (body: unknown) => anonymous().post(`/invoices/${invoiceId}/test_payment`, body);
    expectError(await post({ provider_id: 'prov_card_usd', kind: 'everything' }), 400, { code: 'validation_failed', field: 'kind' });
    expectError(await post({ provider_id: 'prov_card_usd' }), 400, { field: 'kind' });
    expectError(await post({ provider_id: 'prov_card_usd', kind: 7 }), 400, { field: 'kind' });
    expectError(await post({ kind: 'exact' }), 400, { field: 'provider_id' });
    expectError(await post({ provider_id: 'prov_moon_cheese', kind: 'exact' }), 400, { code: 'unknown_provider', field: 'provider_id' });
    expectError(await post({ provider_id: 'prov_card_usd', kind: 'exact', idempotency_key: 'has space' }), 400, { field: 'idempotency_key' });
    expectError(await post({ provider_id: 'prov_card_usd', kind: 'exact', idempotency_key: 'x'.repeat(101) }), 400, { field: 'idempotency_key' });
    expectError(
      await new Api('sk_test_doesnotexistdoesnotexist0001').post(`/invoices/${invoiceId}/test_payment`, { provider_id: 'prov_card_usd', kind: 'exact' }),
      401,
    );
    // A read-only test key has a payer's rights.
    const readOnly = new Api(await createKey(org.id, 'test', true));
    expect((await testPayment(readOnly, invoiceId, { provider_id: 'prov_card_usd', kind: 'partial' })).invoice.status).toBe('PARTIALLY_PAID');
    // Nothing was paid by the refused calls.
    expect((await paymentsOf(invoiceId)).payments).toHaveLength(1);
  });

  it('refuses a voided invoice', async () => {
    const org = await createOrg();
    const invoiceId = await createInvoice(org.test, '10');
    expectSuccess(await org.test.put(`/invoices/${invoiceId}`, { status: 'VOIDED' }));
    expectError(await anonymous().post(`/invoices/${invoiceId}/test_payment`, { provider_id: 'prov_card_usd', kind: 'exact' }), 400, {
      code: 'invoice_final',
      field: 'id',
    });
  });
});
