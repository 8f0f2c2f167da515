import { Api, anonymous } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg } from '../../support/factories';
import { createInvoice, intent, readInvoice } from './invoice-helpers';

/** A read-only key has at least a payer's rights: what a payer may do without a key, it may do too. */
describe('PUT /invoices/{id} with a read-only key', () => {
  it('changes the currency as a payer without a key can', async () => {
    const org = await createOrg();
    const readOnly = new Api(await createKey(org.id, 'test', true));
    const id = await createInvoice(org.test, { items: [intent('100', 'EUR')], currency: 'EUR' });

    expectError(await anonymous().put(`/invoices/${id}`, { status: 'VOIDED' }), 401);
    expect(expectSuccess(await anonymous().put(`/invoices/${id}`, { currency: 'GBP' }))).toEqual({ id, message: 'Invoice currency changed to GBP' });

    expect(expectSuccess(await readOnly.put(`/invoices/${id}`, { currency: 'USD' }))).toEqual({ id, message: 'Invoice currency changed to USD' });
    expect(await readInvoice(org.test, id)).toMatchObject({ status: 'PENDING', currency: 'USD' });
  });

  it('still refuses a status change (403 read_only_key) and keeps to its own organization', async () => {
    const org = await createOrg();
    const other = await createOrg();
    const readOnly = new Api(await createKey(org.id, 'test', true));
    const id = await createInvoice(org.test, { items: [intent('100', 'EUR')], currency: 'EUR' });
    const foreign = await createInvoice(other.test, { items: [intent('5', 'EUR')], currency: 'EUR' });

    expectError(await readOnly.put(`/invoices/${id}`, { status: 'VOIDED' }), 403, { code: 'read_only_key' });
    expectError(await readOnly.put(`/invoices/${id}`, { status: 'COMPLETED', currency: 'USD' }), 403, { code: 'read_only_key' });
    expect(await readInvoice(org.test, id)).toMatchObject({ status: 'PENDING', currency: 'EUR' });

    // a key acts within its organization and mode: another one's invoice is not found
    expectError(await readOnly.put(`/invoices/${foreign}`, { currency: 'USD' }), 404, { code: 'invoice_not_found' });
    expect((await readInvoice(other.test, foreign)).currency).toBe('EUR');

    // the payer's rights stop at the payer's writes: other writes stay refused
    expectError(await readOnly.post('/invoices/create', { items: [intent('1')], currency: 'USD', customer_email: 'jane@example.com' }), 403, {
      code: 'read_only_key',
    });
    // bad input is still a 400 naming the field
    expectError(await readOnly.put(`/invoices/${id}`, { currency: 'NOT_A_CURRENCY' }), 400, { field: 'currency' });
  });
});
