import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { CLI } from '../../support/server';
import { createInvoice, pay, r30, shortState } from '../payments/payments-helpers';

const exec = promisify(execFile);
import { advance, databaseOf, MINUTE, parseTime, readInvoice, storedState } from './timing-helpers';

/**
 * Expiry and the monitoring window, read back while the sweeper is off (INVOICE_SWEEP_SECONDS=0):
 * every state here is computed by the reads and writes themselves from the stored state and now.
 */
describe('invoice expiry and monitoring window (no sweeper: reads compute the state)', () => {
  let service: IsolatedService;
  let test: Api;
  let payer: Api;
  let db: string;

  beforeAll(async () => {
    service = await startIsolatedService({ CLOCK_CONTROL: 'true', INVOICE_SWEEP_SECONDS: '0', INVOICE_MONITORING_MINUTES: '60' });
    const org = await service.createOrg();
    test = org.test;
    payer = new Api(null, service.server.baseUrl);
    db = databaseOf(service);
  });
  afterAll(async () => service?.stop());

  const short = (id: string, api: Api = test) => shortState(api, id);

  it('gives every invoice expires_at (INVOICE_EXPIRY_MINUTES, 15 by default) and monitoring_until', async () => {
    const id = await createInvoice(test);
    const invoice = await readInvoice(test, id);
    expect(parseTime(invoice.expires_at).getTime() - parseTime(invoice.created_at).getTime()).toBe(15 * MINUTE * 1000);
    expect(parseTime(invoice.monitoring_until).getTime() - parseTime(invoice.expires_at).getTime()).toBe(60 * MINUTE * 1000);
    const custom = await createInvoice(test, '100', 'USD', { expires_in_minutes: 90 });
    const read = await readInvoice(test, custom);
    expect(parseTime(read.expires_at).getTime() - parseTime(read.created_at).getTime()).toBe(90 * MINUTE * 1000);
    // The payer sees the clocks too.
    expect(expectSuccess(await payer.post(`/invoices/${custom}`, {}))).toMatchObject({ expires_at: read.expires_at, monitoring_until: read.monitoring_until });
  });

  it.each([
    [4, 'at least 5'],
    [43_201, 'at most 43200'],
    [1.5, 'whole number'],
    ['30', 'whole number'],
    [0, 'at least 5'],
  ])('refuses expires_in_minutes %p (400, validator.expires_in_minutes)', async (value, message) => {
    const res = await test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }], expires_in_minutes: value });
    const body = expectError(res, 400, { field: 'expires_in_minutes' });
    expect(body.validator.expires_in_minutes).toContain(message);
  });

  it('accepts the bounds 5 and 43200', async () => {
    for (const minutes of [5, 43_200]) {
      const id = await createInvoice(test, '10', 'USD', { expires_in_minutes: minutes });
      const read = await readInvoice(test, id);
      expect(parseTime(read.expires_at).getTime() - parseTime(read.created_at).getTime()).toBe(minutes * MINUTE * 1000);
    }
  });

  it('keeps an unpaid invoice PENDING but marks it EXPIRED at expires_at, in every read', async () => {
    const id = await createInvoice(test, '100', 'USD', { expires_in_minutes: 5 });
    await advance(test, 4 * MINUTE + 50);
    expect(await short(id)).toMatchObject({ status: 'PENDING', substatus: null });
    await advance(test, 15);
    expect(await short(id)).toMatchObject({ status: 'PENDING', substatus: 'EXPIRED' });
    expect(await readInvoice(test, id)).toMatchObject({ status: 'PENDING', substatus: 'EXPIRED' });
    expect(expectSuccess(await payer.post(`/invoices/${id}`, {}))).toMatchObject({ status: 'PENDING', substatus: 'EXPIRED' });
    expect(await short(id, payer)).toMatchObject({ status: 'PENDING', substatus: 'EXPIRED' });
    const listed = expectSuccess(await test.post('/invoices/list', { status: ['PENDING'] })).items.find((i: any) => i.id === id);
    expect(listed).toMatchObject({ status: 'PENDING', substatus: 'EXPIRED' });
    // Nothing was written: the sweeper is off, and reads compute the state.
    expect(await storedState(db, id)).toEqual({ status: 'PENDING', substatus: null });
  });

  it('refuses a currency change after expiry (payer and merchant: 400), and allows it before', async () => {
    const id = await createInvoice(test, '20', 'USD', { expires_in_minutes: 5 });
    expectSuccess(await payer.put(`/invoices/${id}`, { currency: 'EUR' }));
    await advance(test, 5 * MINUTE);
    const body = expectError(await payer.put(`/invoices/${id}`, { currency: 'USD' }), 400, { code: 'invoice_expired', field: 'currency' });
    expect(body.validator.currency).toMatch(/expired/);
    expectError(await test.put(`/invoices/${id}`, { currency: 'USD' }), 400, { code: 'invoice_expired', field: 'currency' });
    expect(await readInvoice(test, id)).toMatchObject({ currency: 'EUR', status: 'PENDING', substatus: 'EXPIRED' });
  });

  it('completes an expired invoice paid late in full: COMPLETED / PAID_LATE', async () => {
    const id = await createInvoice(test, '100', 'USD', { expires_in_minutes: 5 });
    await advance(test, 10 * MINUTE);
    const paid = await pay(test, { invoice_id: id, provider_id: 'prov_card_usd', price: '100', status: 'COMPLETED' });
    expect(paid.invoice).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_LATE', previous_status: 'PENDING' });
    expect(await short(id)).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_LATE' });
    expect(await storedState(db, id)).toEqual({ status: 'COMPLETED', substatus: 'PAID_LATE' });
    // The late payment's transaction wrote the expiry first (invoice.expired), then the payment and the
    // completion: the payment's write, otherwise sent right behind the invoice's lock, waits for the move.
    const events = expectSuccess(await test.post('/events', { type: ['invoice.expired', 'payment.created', 'invoice.completed'], limit: 100 }))
      .items.filter((e: any) => e.data.object.id === id || e.data.object.id === paid.id)
      .reverse();
    expect(events.map((e: any) => e.type)).toEqual(['invoice.expired', 'payment.created', 'invoice.completed']);
    expect(events[2].data.object).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_LATE' });
    const payments = expectSuccess(await test.post('/payments', { invoice_id: id }));
    expect(payments.items.map((p: any) => p.id)).toEqual([paid.id]);
    // Completed stays completed when the window closes.
    await advance(test, 61 * MINUTE);
    expect(await short(id)).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_LATE' });
  });

  it('makes a late partial payment PARTIALLY_PAID, and the late rest completes it as PAID_LATE', async () => {
    const id = await createInvoice(test, '100', 'USD', { expires_in_minutes: 5 });
    await advance(test, 6 * MINUTE);
    const part = await pay(test, { invoice_id: id, provider_id: 'prov_card_usd', price: '40', status: 'COMPLETED' });
    expect(part.invoice).toMatchObject({ status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' });
    // Partly paid: the window's end does not void it.
    await advance(test, 61 * MINUTE);
    expect(await short(id)).toMatchObject({ status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' });
    const rest = await pay(test, { invoice_id: id, provider_id: 'prov_card_usd', price: '60', status: 'COMPLETED' });
    expect(rest.invoice).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_LATE' });
  });

  it('an on-time payment completes without PAID_LATE', async () => {
    const id = await createInvoice(test, '100', 'USD', { expires_in_minutes: 5 });
    await advance(test, 4 * MINUTE);
    expect((await pay(test, { invoice_id: id, provider_id: 'prov_card_usd', price: '100', status: 'COMPLETED' })).invoice).toMatchObject({
      status: 'COMPLETED',
      substatus: null,
    });
  });

  it('voids an unpaid invoice when the monitoring window closes: VOIDED / EXPIRED; a payment after that leaves it VOIDED', async () => {
    const id = await createInvoice(test, '100', 'USD', { expires_in_minutes: 5 });
    await advance(test, 5 * MINUTE + 59 * MINUTE);
    expect(await short(id)).toMatchObject({ status: 'PENDING', substatus: 'EXPIRED' });
    await advance(test, 2 * MINUTE);
    expect(await short(id)).toMatchObject({ status: 'VOIDED', substatus: 'EXPIRED' });
    expect(await short(id, payer)).toMatchObject({ status: 'VOIDED', substatus: 'EXPIRED' });
    // The list's status filter sees the state as of now, before anything is written.
    const voided = expectSuccess(await test.post('/invoices/list', { status: ['VOIDED'] })).items.map((i: any) => i.id);
    expect(voided).toContain(id);
    const pending = expectSuccess(await test.post('/invoices/list', { status: ['PENDING'] })).items.map((i: any) => i.id);
    expect(pending).not.toContain(id);
    expect(await storedState(db, id)).toEqual({ status: 'PENDING', substatus: null });
    // A payment after the window: recorded, the invoice stays VOIDED (and the move is now written).
    const late = await pay(test, { invoice_id: id, provider_id: 'prov_card_usd', price: '100', status: 'COMPLETED' });
    expect(late.invoice).toMatchObject({ status: 'VOIDED', substatus: 'EXPIRED' });
    expect(await storedState(db, id)).toEqual({ status: 'VOIDED', substatus: 'EXPIRED' });
    // Writing the move recorded its events: invoice.expired, invoice.updated, invoice.voided.
    const events = expectSuccess(await test.post('/events', { type: ['invoice.expired', 'invoice.updated', 'invoice.voided'], limit: 100 }))
      .items.filter((e: any) => e.data.object.id === id)
      .reverse();
    expect(events.map((e: any) => e.type)).toEqual(['invoice.expired', 'invoice.updated', 'invoice.voided']);
    expect(events[0].data.object).toMatchObject({ status: 'VOIDED', substatus: 'EXPIRED' });
    expect(events[1].data.previous_attributes).toMatchObject({ status: 'PENDING', substatus: null });
    // A merchant cannot move it any more either.
    expectError(await test.put(`/invoices/${id}`, { status: 'COMPLETED' }), 400, { field: 'status' });
  });

  it('lets the merchant void an expired invoice (substatus EXPIRED kept) or mark it paid', async () => {
    const a = await createInvoice(test, '100', 'USD', { expires_in_minutes: 5 });
    const b = await createInvoice(test, '100', 'USD', { expires_in_minutes: 5 });
    await advance(test, 6 * MINUTE);
    expectSuccess(await test.put(`/invoices/${a}`, { status: 'VOIDED' }));
    expect(await short(a)).toMatchObject({ status: 'VOIDED', substatus: 'EXPIRED' });
    expectSuccess(await test.put(`/invoices/${b}`, { status: 'COMPLETED' }));
    expect(await short(b)).toMatchObject({ status: 'COMPLETED', substatus: 'MARKED_PAID' });
  });

  it('keeps an invoice with a crypto payment in flight WAITING_FOR_CONFIRMATIONS past its window; if that payment fails it is voided at once', async () => {
    const id = await createInvoice(test, '100', 'USD', { expires_in_minutes: 5 });
    const seen = await pay(test, { invoice_id: id, provider_id: 'prov_ethereum_usdt', price: '99.980004' });
    await advance(test, 70 * MINUTE);
    expect(await short(id)).toMatchObject({ status: 'WAITING_FOR_CONFIRMATIONS', substatus: null });
    const failed = expectSuccess(await test.post(`/test_helpers/payments/${seen.id}/status`, { status: 'FAILED' }));
    expect(failed.invoice).toMatchObject({ status: 'VOIDED', substatus: 'EXPIRED' });
  });

  it("holds the invoice's rates for the amounts to send until expires_at (GET /providers/{invoice_id}), then follows current rates", async () => {
    const id = await createInvoice(test, '100', 'USD', { expires_in_minutes: 5 });
    const usdt = async (invoiceId: string) => {
      const data = expectSuccess(await payer.get(`/providers/${invoiceId}`));
      return { price: data.providers.find((p: any) => p.id === 'prov_ethereum_usdt').price, at: data.exchange_rate_timestamp };
    };
    const quoted = await usdt(id);
    const dir = mkdtempSync(join(tmpdir(), 'rates-'));
    const file = join(dir, 'rates.json');
    writeFileSync(file, JSON.stringify({ taken_at: '2026-11-20 12:00:00', rates: { USDT: '0.5' } }));
    await exec(process.execPath, [CLI, 'rates:import', file], { env: service.cliEnv });
    // New rates are in force, but this invoice's rate lock holds.
    expect(await usdt(id)).toEqual(quoted);
    const fresh = await createInvoice(test, '100', 'USD', { expires_in_minutes: 5 });
    expect(await usdt(fresh)).toEqual({ price: r30('200'), at: '2026-11-20 12:00:00' });
    await advance(test, 5 * MINUTE);
    expect(await usdt(id)).toEqual({ price: r30('200'), at: '2026-11-20 12:00:00' });
  });
});
