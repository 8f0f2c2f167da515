import { anonymous } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { createInvoice, pay } from './payments-helpers';

const list = async (org: TestOrg, body: unknown) => expectSuccess(await org.test.post('/payments', body));
const ids = (page: { items: Array<{ id: string }> }) => page.items.map((i) => i.id);

describe('POST /payments with starting_after (cursor pagination)', () => {
  let org: TestOrg;
  let newest: string[];

  beforeAll(async () => {
    org = await createOrg();
    const invoice = await createInvoice(org.test, '1000', 'USD');
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push((await pay(org.test, { invoice_id: invoice, provider_id: i % 2 ? 'prov_tron_usdt' : 'prov_ethereum_usdt', price: `${i + 1}` })).id);
    }
    newest = [...made].reverse();
  });

  it('walks every payment once, newest first, page after page', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    const more: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      const page = await list(org, cursor ? { limit: 2, starting_after: cursor } : { limit: 2 });
      expect(page.total).toBe(5);
      seen.push(...ids(page));
      more.push(page.has_more);
      if (!page.has_more) break;
      cursor = page.items[page.items.length - 1].id;
    }
    expect(seen).toEqual(newest);
    expect(more).toEqual([true, true, false]);
  });

  it('matches the offset page and combines with filters and offset', async () => {
    expect(ids(await list(org, { limit: 2, starting_after: newest[1] }))).toEqual(ids(await list(org, { limit: 2, offset: 2 })));
    expect(ids(await list(org, { starting_after: newest[0], offset: 1, limit: 2 }))).toEqual(newest.slice(2, 4));
    // newest[0] and newest[2] and newest[4] are Ethereum USDT (made 5th, 3rd, 1st)
    const filtered = await list(org, { provider_id: ['prov_ethereum_usdt'], starting_after: newest[0] });
    expect(ids(filtered)).toEqual([newest[2], newest[4]]);
    expect(filtered.total).toBe(3);
  });

  it("answers 400 naming starting_after for another organization's or mode's payment, an unknown id, or a bad value", async () => {
    const other = await createOrg();
    const foreign = (await pay(other.test, { invoice_id: await createInvoice(other.test), provider_id: 'prov_ethereum_usdt', price: '1' })).id;
    for (const cursor of [foreign, 'payment_00000000-0000-7000-8000-000000000000']) {
      expectError(await org.test.post('/payments', { starting_after: cursor }), 400, { code: 'validation_failed', field: 'starting_after' });
    }
    // the same payment is no cursor for the other mode of its own organization
    expectError(await org.live.post('/payments', { starting_after: newest[0] }), 400, { field: 'starting_after' });
    for (const cursor of [7, '', {}]) expectError(await org.test.post('/payments', { starting_after: cursor }), 400, { field: 'starting_after' });
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await anonymous().get('/openapi.json')).body;
    const field = doc.components.schemas.ListPaymentsRequestDto.properties.starting_after;
    expect(field).toMatchObject({ type: 'string' });
    expect(field.description).toMatch(/after this/);
    expect(field.example).toEqual(expect.any(String));
  });
});
