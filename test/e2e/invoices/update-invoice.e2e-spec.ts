import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg } from '../../support/factories';
import { convert, createInvoice, intent, r30, readInvoice } from './invoice-helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PUT /invoices/{id}', () => {
  it('answers 401 for an unknown key and 403 for a read-only key changing the status', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    expectError(await new Api('sk_test_unknownunknownunknownunknown12').put(`/invoices/${id}`, { status: 'VOIDED' }), 401);
    const readOnly = new Api(await createKey(org.id, 'test', true));
    expectError(await readOnly.put(`/invoices/${id}`, { status: 'VOIDED' }), 403, { code: 'read_only_key' });
    expect((await readInvoice(org.test, id)).status).toBe('PENDING');
  });

  it('answers 404 for another organization, the other mode and an unknown id, changing nothing', async () => {
    const org = await createOrg();
    const other = await createOrg();
    const testId = await createInvoice(org.test);
    const liveId = await createInvoice(org.live);
    expectError(await other.test.put(`/invoices/${testId}`, { status: 'VOIDED' }), 404, { code: 'invoice_not_found' });
    expectError(await org.live.put(`/invoices/${testId}`, { status: 'VOIDED' }), 404, { code: 'invoice_not_found' });
    expectError(await org.test.put(`/invoices/${liveId}`, { status: 'VOIDED' }), 404, { code: 'invoice_not_found' });
    expectError(await org.live.put(`/invoices/${testId}`, { currency: 'EUR' }), 404, { code: 'invoice_not_found' });
    expectError(await org.test.put('/invoices/invoice_nope', { currency: 'EUR' }), 404);
    expect((await readInvoice(org.test, testId)).status).toBe('PENDING');
    expect((await readInvoice(org.live, liveId)).status).toBe('PENDING');
  });

  it('voids a PENDING invoice', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    const before = await readInvoice(org.test, id);
    await sleep(1100);
    const res = await org.test.put(`/invoices/${id}`, { status: 'VOIDED' });
    expect(expectSuccess(res)).toEqual({ id, message: 'Invoice status changed to VOIDED' });
    expect(res.body.message).toBe('Invoice status changed to VOIDED');
    const after = await readInvoice(org.test, id);
    expect(after).toMatchObject({ status: 'VOIDED', substatus: null });
    expect(after.updated_at > before.updated_at).toBe(true);
  });

  it('marks a PENDING invoice paid (COMPLETED, MARKED_PAID)', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    expectSuccess(await org.test.put(`/invoices/${id}`, { status: 'COMPLETED' }));
    expect(await readInvoice(org.test, id)).toMatchObject({ status: 'COMPLETED', substatus: 'MARKED_PAID' });
  });

  it.each([
    ['PENDING', 'PENDING', 'VOIDED, COMPLETED'],
    ['PENDING', 'PROCESSING', 'VOIDED, COMPLETED'],
    ['PENDING', 'WAITING_FOR_CONFIRMATIONS', 'VOIDED, COMPLETED'],
    ['PENDING', 'PARTIALLY_PAID', 'VOIDED, COMPLETED'],
    ['VOIDED', 'COMPLETED', 'final'],
    ['VOIDED', 'PENDING', 'final'],
    ['COMPLETED', 'VOIDED', 'final'],
    ['COMPLETED', 'PENDING', 'final'],
  ])('refuses %s -> %s with 400 invalid_state_transition naming the allowed targets', async (from, to, allowed) => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    if (from !== 'PENDING') expectSuccess(await org.test.put(`/invoices/${id}`, { status: from }));
    const body = expectError(await org.test.put(`/invoices/${id}`, { status: to }), 400, { code: 'invalid_state_transition', field: 'status' });
    expect(body.validator.status).toContain(allowed);
    expect((await readInvoice(org.test, id)).status).toBe(from);
  });

  it('lets exactly one of two concurrent status changes win', async () => {
    const org = await createOrg();
    for (let round = 0; round < 5; round++) {
      const id = await createInvoice(org.test);
      const [voiding, completing] = await Promise.all([
        org.test.put(`/invoices/${id}`, { status: 'VOIDED' }),
        org.test.put(`/invoices/${id}`, { status: 'COMPLETED' }),
      ]);
      const statuses = [voiding.status, completing.status].sort();
      expect(statuses).toEqual([200, 400]);
      const loser = voiding.status === 400 ? voiding : completing;
      expect(loser.body.code).toBe('invalid_state_transition');
      const final = await readInvoice(org.test, id);
      expect(final.status).toBe(voiding.status === 200 ? 'VOIDED' : 'COMPLETED');
      expect(final.substatus).toBe(voiding.status === 200 ? null : 'MARKED_PAID');
    }
  });

  it('changes the currency of a PENDING invoice and rewrites its calculations at current rates', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test, { items: [intent('100', 'EUR'), intent('0.25', 'ETHEREUM')], currency: 'EUR' });
    const before = await readInvoice(org.test, id, { expand: ['calculations', 'items'] });
    const res = await org.test.put(`/invoices/${id}`, { currency: 'GBP' });
    expect(expectSuccess(res)).toEqual({ id, message: 'Invoice currency changed to GBP' });
    const after = await readInvoice(org.test, id, { expand: ['calculations', 'items'] });
    const gbp = convert(100, 'EUR', 'GBP').add(convert('0.25', 'ETHEREUM', 'GBP'));
    expect(after).toMatchObject({ status: 'PENDING', currency: 'GBP', price: r30(gbp), price_usd: before.price_usd });
    expect(after.items).toEqual(before.items);
    expect(after.calculations.map((c: any) => [c.calculation_type, c.currency])).toEqual([
      ['PAYMENT_INTENT', 'EUR'],
      ['CURRENCY_CHANGE', 'GBP'],
      ['PAYMENT_INTENT', 'ETHEREUM'],
      ['CURRENCY_CHANGE', 'GBP'],
      ['TOTAL', 'GBP'],
      ['TOTAL_USD', 'USD'],
    ]);
    const oldIds = new Set(before.calculations.map((c: any) => c.id));
    expect(after.calculations.some((c: any) => oldIds.has(c.id))).toBe(false);
    expect(after.calculations[0].details.payment_intent_id).toBe(after.items[0].payment_intent_id);
  });

  it('refuses a currency change once the invoice is no longer PENDING', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    expectSuccess(await org.test.put(`/invoices/${id}`, { status: 'VOIDED' }));
    const body = expectError(await org.test.put(`/invoices/${id}`, { currency: 'EUR' }), 400, { code: 'invalid_state_transition', field: 'currency' });
    expect(body.validator.currency).toMatch(/PENDING/);
    expect((await readInvoice(org.test, id)).currency).toBe('USD');
  });

  it.each([
    ['empty body', {}, 'status'],
    ['unknown status', { status: 'PAID' }, 'status'],
    ['status not a string', { status: 1 }, 'status'],
    ['unknown currency', { currency: 'XYZ' }, 'currency'],
    ['null currency', { currency: null }, 'currency'],
    ['null status', { status: null }, 'status'],
    ['both status and currency', { status: 'VOIDED', currency: 'EUR' }, 'status'],
  ])('%s -> 400 on %s', async (_name, body, field) => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    expectError(await org.test.put(`/invoices/${id}`, body), 400, { code: 'validation_failed', field });
    expect(await readInvoice(org.test, id)).toMatchObject({ status: 'PENDING', currency: 'USD' });
  });
});

describe('GET /invoices/{id}/short_state', () => {
  it('answers HTTP 200 with the invoice state as the envelope status', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    const res = await org.test.get(`/invoices/${id}/short_state`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'PENDING', error: null, validator: null, support_id: null, env: 'development' });
    const invoice = await readInvoice(org.test, id);
    expect(res.body.data).toEqual({ id, status: 'PENDING', substatus: null, updated_at: invoice.updated_at });
    expectSuccess(await org.test.put(`/invoices/${id}`, { status: 'COMPLETED' }));
    const after = await org.test.get(`/invoices/${id}/short_state`);
    expect(after.status).toBe(200);
    expect(after.body.status).toBe('COMPLETED');
    expect(after.body.data).toMatchObject({ status: 'COMPLETED', substatus: 'MARKED_PAID' });
  });

  it('answers 401 for an unknown key and 404 across organizations and modes', async () => {
    const org = await createOrg();
    const other = await createOrg();
    const testId = await createInvoice(org.test);
    const liveId = await createInvoice(org.live);
    expectError(await new Api('sk_live_unknownunknownunknownunknown12').get(`/invoices/${testId}/short_state`), 401);
    expectError(await other.test.get(`/invoices/${testId}/short_state`), 404, { code: 'invoice_not_found' });
    expectError(await org.live.get(`/invoices/${testId}/short_state`), 404, { code: 'invoice_not_found' });
    expectError(await org.test.get(`/invoices/${liveId}/short_state`), 404, { code: 'invoice_not_found' });
    expect((await org.live.get(`/invoices/${liveId}/short_state`)).body.env).toBe('production');
  });
});
