import { anonymous, Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { createInvoice, intent, readInvoice } from './invoice-helpers';

/** GET /invoices/{id}: the POST read's answer, with expand and currency in the query string. */
describe('GET /invoices/{id}', () => {
  it('answers 401 for an unknown key, like the POST read', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    expectError(await new Api('sk_test_unknownunknownunknownunknown12').get(`/invoices/${id}`), 401);
  });

  it('gives the same answer as the POST read, plain and expanded, comma-separated or repeated', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test, { items: [intent('12.5')], metadata: { order: '7' } });
    expect(expectSuccess(await org.test.get(`/invoices/${id}`))).toEqual(await readInvoice(org.test, id));
    const expanded = await readInvoice(org.test, id, { expand: ['items', 'payments'], currency: 'BITCOIN' });
    expect(expanded.items).toHaveLength(1);
    expect(expanded.summary).toBeDefined();
    expect(expectSuccess(await org.test.get(`/invoices/${id}?expand=items,payments&currency=BITCOIN`))).toEqual(expanded);
    expect(expectSuccess(await org.test.get(`/invoices/${id}?expand=items&expand=payments&currency=BITCOIN`))).toEqual(expanded);
  });

  it('follows the payer rules without a key', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test, { metadata: { secret: 'x' } });
    const payer = expectSuccess(await anonymous().get(`/invoices/${id}?expand=items`));
    expect(payer).toEqual(expectSuccess(await anonymous().post(`/invoices/${id}`, { expand: ['items'] })));
    expect(payer.metadata).toBeUndefined();
    expectError(await anonymous().get(`/invoices/${id}?expand=organization.secret`), 400, { field: 'expand' });
  });

  it('refuses an unknown expansion or currency, naming the parameter', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    expectError(await org.test.get(`/invoices/${id}?expand=itemz`), 400, { field: 'expand' });
    expectError(await org.test.get(`/invoices/${id}?currency=NOPE`), 400, { field: 'currency' });
  });

  it("answers 404 for another organization's invoice and for the other mode's key", async () => {
    const owner = await createOrg();
    const other = await createOrg();
    const id = await createInvoice(owner.test);
    expectError(await other.test.get(`/invoices/${id}`), 404);
    expectError(await owner.live.get(`/invoices/${id}`), 404);
    expectError(await owner.test.get('/invoices/invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00'), 404);
  });
});
