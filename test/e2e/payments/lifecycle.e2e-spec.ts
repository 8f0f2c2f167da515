import { anonymous } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { createInvoice, D, pay, r30, setStatus, shortState } from './payments-helpers';

const USDT_RATE = '1.0002';

describe('payment lifecycle driving invoices', () => {
  it('lets a merchant with only a test key take an invoice from PENDING through a simulated crypto payment to COMPLETED', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '100', 'USD');
    expect(await shortState(test, invoiceId)).toMatchObject({ status: 'PENDING', substatus: null });

    const providers = expectSuccess(await test.get(`/providers/${invoiceId}`)).providers;
    const usdt = providers.find((p: any) => p.id === 'prov_ethereum_usdt');
    // 100 USD / 1.0002 = 99.98000399920..., rounded up to USDT's 6 decimals.
    expect(usdt.price).toBe(r30('99.980004'));

    const seen = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_ethereum_usdt', price: '99.980004', idempotency_key: '0xabc:0' });
    expect(seen).toMatchObject({
      status: 'PENDING',
      created: true,
      invoice: { id: invoiceId, status: 'WAITING_FOR_CONFIRMATIONS', previous_status: 'PENDING' },
    });
    expect(await shortState(test, invoiceId)).toMatchObject({ status: 'WAITING_FOR_CONFIRMATIONS', substatus: null });

    const done = await setStatus(test, seen.id, 'COMPLETED');
    expect(done.invoice).toMatchObject({ status: 'COMPLETED', previous_status: 'WAITING_FOR_CONFIRMATIONS' });
    // 99.980004 USDT x 1.0002 = 100.0000000008 USD: a hair over the price, less than one USDT micro-unit
    // (0.0000010002 USD) that rounding the amount due up explains, so no PAID_OVER.
    expect(await shortState(test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });

    const page = expectSuccess(await test.post('/payments', { invoice_id: invoiceId, expand: ['provider'] }));
    expect(page).toMatchObject({ total: 1, limit: 20, offset: 0, has_more: false });
    const [listed] = page.items;
    expect(listed).toMatchObject({
      id: seen.id,
      idempotency_key: '0xabc:0',
      provider_id: 'prov_ethereum_usdt',
      invoice_id: invoiceId,
      currency: 'USDT',
      price: r30('99.980004'),
      price_usd: r30(new D('99.980004').mul(USDT_RATE)),
      status: 'COMPLETED',
    });
    expect(listed.provider).toMatchObject({ id: 'prov_ethereum_usdt', name: expect.any(String), slug: 'ethereum-usdt', type: 'CRYPTOCURRENCY', enabled: true });

    const read = expectSuccess(await test.post(`/payments/${seen.id}`, { expand: ['provider'] }));
    expect(read).toEqual(listed);
    expect(Object.keys(read).sort()).toEqual([
      'confirmations',
      'created_at',
      'currency',
      'happened_at',
      'id',
      'idempotency_key',
      'invoice_id',
      'organization_id',
      'price',
      'price_usd',
      'provider',
      'provider_id',
      'required_confirmations',
      'status',
      'tx_hash',
      'updated_at',
    ]);
    // A simulated payment has no chain transaction.
    expect(read.tx_hash).toBeNull();
    expect(read.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('moves PENDING -> PARTIALLY_PAID (PAID_PARTIAL) -> COMPLETED (exact cover, no substatus)', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '100', 'USD');
    const first = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '40', status: 'COMPLETED' });
    expect(first.invoice).toMatchObject({ status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' });
    expect(await shortState(test, invoiceId)).toMatchObject({ status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' });
    // A pending payment on a partly paid invoice leaves it partly paid; its failure too.
    const pending = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_tron_usdt', price: '5' });
    expect(pending.invoice.status).toBe('PARTIALLY_PAID');
    expect((await setStatus(test, pending.id, 'FAILED')).invoice.status).toBe('PARTIALLY_PAID');
    const second = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '60.00', status: 'COMPLETED' });
    expect(second.invoice).toMatchObject({ status: 'COMPLETED', substatus: null, previous_status: 'PARTIALLY_PAID' });
    const invoice = expectSuccess(await test.post(`/invoices/${invoiceId}`, { expand: ['payments'] }));
    expect(invoice).toMatchObject({ status: 'COMPLETED', substatus: null });
    expect(invoice.payments.map((p: any) => [p.status, p.price_usd])).toEqual([
      ['COMPLETED', r30(40)],
      ['FAILED', r30(new D(5).mul(USDT_RATE))],
      ['COMPLETED', r30(60)],
    ]);
  });

  it('moves a PENDING invoice to PROCESSING when a fiat payment is seen, and back to PENDING when it fails', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '50', 'EUR');
    const seen = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_eur', price: '50' });
    expect(seen.invoice).toMatchObject({ status: 'PROCESSING', previous_status: 'PENDING' });
    expect(await shortState(test, invoiceId)).toMatchObject({ status: 'PROCESSING' });
    const failed = await setStatus(test, seen.id, 'FAILED');
    expect(failed).toMatchObject({ status: 'FAILED', invoice: { status: 'PENDING', substatus: null, previous_status: 'PROCESSING' } });
    expect(await shortState(test, invoiceId)).toMatchObject({ status: 'PENDING', substatus: null });
    // Paid in full in EUR: exact cover at the same rates.
    const paid = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_eur', price: '50', status: 'COMPLETED' });
    expect(paid.invoice).toMatchObject({ status: 'COMPLETED', substatus: null });
  });

  it('moves a WAITING_FOR_CONFIRMATIONS invoice back to PENDING when the crypto payment is cancelled', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '10', 'USD');
    const seen = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_bitcoin_bitcoin', price: '0.0001096' });
    expect(seen.invoice.status).toBe('WAITING_FOR_CONFIRMATIONS');
    expect((await setStatus(test, seen.id, 'CANCELLED')).invoice).toMatchObject({ status: 'PENDING', previous_status: 'WAITING_FOR_CONFIRMATIONS' });
    expect(await shortState(test, invoiceId)).toMatchObject({ status: 'PENDING' });
  });

  it('completes with PAID_OVER when the completed payments exceed the price', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '100', 'USD');
    const over = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '150', status: 'COMPLETED' });
    expect(over.invoice).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_OVER' });
    expect(await shortState(test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_OVER' });
    // One smallest unit over is over: a card payment of 10.01 for a 10 USD invoice (nothing was rounded up).
    const cent = await createInvoice(test, '10', 'USD');
    expect((await pay(test, { invoice_id: cent, provider_id: 'prov_card_usd', price: '10.01', status: 'COMPLETED' })).invoice).toMatchObject({
      status: 'COMPLETED',
      substatus: 'PAID_OVER',
    });
  });

  it('values a payment in USD exactly at its rates and compares the invoice in USD', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '0.01', 'ETHEREUM');
    const invoice = expectSuccess(await test.post(`/invoices/${invoiceId}`, {}));
    expect(invoice.price_usd).toBe(r30('30.4618'));
    const short = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_ethereum_ethereum', price: '0.009999999999999999', status: 'COMPLETED' });
    expect(short.invoice.status).toBe('PARTIALLY_PAID');
    const rest = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_ethereum_ethereum', price: '0.000000000000000001', status: 'COMPLETED' });
    expect(rest.invoice).toMatchObject({ status: 'COMPLETED', substatus: null });
    const payment = expectSuccess(await test.post(`/payments/${rest.id}`, []));
    expect(payment.price_usd).toBe(r30('0.00000000000000304618'));
  });

  it('still records a payment for a VOIDED or COMPLETED invoice without moving it', async () => {
    const { test } = await createOrg();
    const voided = await createInvoice(test, '20', 'USD');
    expectSuccess(await test.put(`/invoices/${voided}`, { status: 'VOIDED' }));
    const late = await pay(test, { invoice_id: voided, provider_id: 'prov_card_usd', price: '20', status: 'COMPLETED' });
    expect(late).toMatchObject({ status: 'COMPLETED', invoice: { status: 'VOIDED', previous_status: 'VOIDED' } });
    expect(await shortState(test, voided)).toMatchObject({ status: 'VOIDED' });

    const marked = await createInvoice(test, '20', 'USD');
    expectSuccess(await test.put(`/invoices/${marked}`, { status: 'COMPLETED' }));
    const extra = await pay(test, { invoice_id: marked, provider_id: 'prov_solana_usdc', price: '3' });
    expect(extra.invoice).toMatchObject({ status: 'COMPLETED', substatus: 'MARKED_PAID' });
    expect(expectSuccess(await test.post('/payments', { invoice_id: marked })).total).toBe(1);
  });

  it('marks a COMPLETED invoice PAID_OVER when it is paid again (status unchanged, one invoice.updated, no second invoice.completed)', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '20', 'USD');
    await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '20', status: 'COMPLETED' });
    expect(await shortState(test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });
    // The payer pays a second time.
    const again = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '20', status: 'COMPLETED' });
    expect(again.invoice).toMatchObject({ status: 'COMPLETED', previous_status: 'COMPLETED', substatus: 'PAID_OVER' });
    expect(await shortState(test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_OVER' });
    const events = expectSuccess(await test.post('/events', { type: ['invoice.updated', 'invoice.completed'], limit: 100 })).items.filter(
      (e: any) => e.data.object.id === invoiceId,
    );
    expect(events.filter((e: any) => e.type === 'invoice.completed')).toHaveLength(1);
    const latest = events.find((e: any) => e.type === 'invoice.updated' && e.data.object.substatus === 'PAID_OVER');
    expect(latest.data.previous_attributes).toMatchObject({ substatus: null });
    expect(expectSuccess(await test.post('/payments', { invoice_id: invoiceId })).total).toBe(2);
  });

  it('refuses to change a payment in a final status (400, validator.status) and accepts the same status again', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '100', 'USD');
    const completed = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '10', status: 'COMPLETED' });
    for (const status of ['PENDING', 'FAILED', 'CANCELLED']) {
      const err = expectError(await test.post(`/test_helpers/payments/${completed.id}/status`, { status }), 400, {
        code: 'invalid_state_transition',
        field: 'status',
      });
      expect(err.validator.status).toContain('the state is final');
    }
    const again = await setStatus(test, completed.id, 'COMPLETED');
    expect(again).toMatchObject({ status: 'COMPLETED', created: false, invoice: { status: 'PARTIALLY_PAID', previous_status: 'PARTIALLY_PAID' } });

    const failed = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '10' });
    await setStatus(test, failed.id, 'FAILED');
    expectError(await test.post(`/test_helpers/payments/${failed.id}/status`, { status: 'COMPLETED' }), 400, {
      code: 'invalid_state_transition',
      field: 'status',
    });
    const cancelled = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '10' });
    await setStatus(test, cancelled.id, 'CANCELLED');
    expectError(await test.post(`/test_helpers/payments/${cancelled.id}/status`, { status: 'PENDING' }), 400, { field: 'status' });
    const stored = expectSuccess(await test.post('/payments', { invoice_id: invoiceId }));
    expect(stored.items.map((p: any) => p.status).sort()).toEqual(['CANCELLED', 'COMPLETED', 'FAILED']);
  });

  it('refuses a new payment that starts FAILED or CANCELLED', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test);
    for (const status of ['FAILED', 'CANCELLED']) {
      expectError(await test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '1', status }), 400, {
        field: 'status',
      });
    }
    expect(expectSuccess(await test.post('/payments', {})).total).toBe(0);
  });

  it('reads a payment without a key in the payer view', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test);
    const paid = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '1', idempotency_key: 'secret-ref' });
    const view = expectSuccess(await anonymous().post(`/payments/${paid.id}`, { expand: ['provider'] }));
    expect(view).toMatchObject({ id: paid.id, invoice_id: invoiceId, status: 'PENDING', provider: { id: 'prov_card_usd', type: 'FIAT' } });
    expect(view).not.toHaveProperty('idempotency_key');
    const invoice = expectSuccess(await anonymous().post(`/invoices/${invoiceId}`, { expand: ['payments.provider'] }));
    expect(invoice.payments).toHaveLength(1);
    expect(invoice.payments[0]).not.toHaveProperty('idempotency_key');
    expect(invoice.payments[0].provider.id).toBe('prov_card_usd');
    expectError(await anonymous().post('/payments/payment_00000000-0000-7000-8000-000000000000', {}), 404, { code: 'payment_not_found' });
  });
});
