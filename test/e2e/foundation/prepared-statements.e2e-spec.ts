import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { createInvoice, intent, readInvoice } from '../invoices/invoice-helpers';

/**
 * The hot statements go as prepared statements by default (the whole suite runs that way);
 * DB_PREPARED_STATEMENTS=false, for poolers that cannot keep them, sends the same statements
 * unnamed with the same answers.
 */
describe.each([
  ['off', 'false'],
  ['on', 'true'],
])('prepared statements %s', (_label, setting) => {
  let service: IsolatedService;

  beforeAll(async () => {
    service = await startIsolatedService({ DB_PREPARED_STATEMENTS: setting });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
  });

  it('creates, reads and lists invoices, and refuses a foreign cursor, the same way', async () => {
    const { test } = await service.createOrg();
    const ids: string[] = [];
    for (const price of ['10.5', '20.25', '30']) ids.push(await createInvoice(test, { items: [intent(price)] }));
    // the same statements again and again on the same connections
    for (let i = 0; i < 8; i++) {
      const invoice = await readInvoice(test, ids[i % 3], { expand: ['items', 'calculations'] });
      expect(invoice.id).toBe(ids[i % 3]);
      expect(invoice.calculations.length).toBeGreaterThan(0);
    }
    const page = expectSuccess<{ items: Array<{ id: string }>; total: number }>(await test.post('/invoices/list', { limit: 2, status: ['PENDING'] }));
    expect(page.total).toBe(3);
    expect(page.items.map((i) => i.id)).toEqual([ids[2], ids[1]]);
    const next = expectSuccess<{ items: Array<{ id: string }> }>(await test.post('/invoices/list', { limit: 2, status: ['PENDING'], starting_after: ids[1] }));
    expect(next.items.map((i) => i.id)).toEqual([ids[0]]);
    expectError(await test.post('/invoices/list', { limit: 2, starting_after: 'invoice_not_there' }), 400);
  });
});
