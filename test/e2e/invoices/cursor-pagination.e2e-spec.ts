import { anonymous } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { createInvoice } from './invoice-helpers';

const list = async (org: TestOrg, body: unknown) => expectSuccess(await org.test.post('/invoices/list', body));
const ids = (page: { items: Array<{ id: string }> }) => page.items.map((i) => i.id);

describe('POST /invoices/list with starting_after (cursor pagination)', () => {
  let org: TestOrg;
  let newest: string[];

  beforeAll(async () => {
    org = await createOrg();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push(await createInvoice(org.test));
    newest = [...made].reverse();
  });

  it("walks every invoice once, newest first, each page starting after the previous page's last id", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    const pages: Array<{ total: number; has_more: boolean; offset: number }> = [];
    for (let i = 0; i < 5; i++) {
      const page = await list(org, cursor ? { limit: 2, starting_after: cursor } : { limit: 2 });
      pages.push(page);
      seen.push(...ids(page));
      if (!page.has_more) break;
      cursor = page.items[page.items.length - 1].id;
    }
    expect(seen).toEqual(newest);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
    // total counts every match of the filters, whatever the cursor
    expect(pages.every((p) => p.total === 5 && p.offset === 0)).toBe(true);
  });

  it('gives the same page as the matching offset', async () => {
    const byOffset = await list(org, { limit: 2, offset: 2 });
    const byCursor = await list(org, { limit: 2, starting_after: newest[1] });
    expect(ids(byCursor)).toEqual(ids(byOffset));
    expect(byCursor.has_more).toBe(byOffset.has_more);
  });

  it('applies offset after the cursor, and answers an empty page after the last invoice', async () => {
    expect(ids(await list(org, { limit: 2, starting_after: newest[0], offset: 2 }))).toEqual(newest.slice(3, 5));
    const after = await list(org, { starting_after: newest[4] });
    expect(after).toMatchObject({ items: [], total: 5, has_more: false });
  });

  it('combines with the filters', async () => {
    expectSuccess(await org.test.put(`/invoices/${newest[1]}`, { status: 'VOIDED' }));
    expectSuccess(await org.test.put(`/invoices/${newest[3]}`, { status: 'VOIDED' }));
    const page = await list(org, { status: ['PENDING'], starting_after: newest[0] });
    expect(ids(page)).toEqual([newest[2], newest[4]]);
    expect(page.total).toBe(3);
    const voided = await list(org, { status: ['VOIDED'], starting_after: newest[1], limit: 1 });
    expect(ids(voided)).toEqual([newest[3]]);
    expect(voided.has_more).toBe(false);
    // offset applies within the matches after the cursor; a page past the last match still counts them all
    expect(ids(await list(org, { status: ['PENDING'], starting_after: newest[0], offset: 1 }))).toEqual([newest[4]]);
    expect(await list(org, { status: ['PENDING'], starting_after: newest[4] })).toMatchObject({ items: [], total: 3, has_more: false });
    expect(await list(org, { status: ['PENDING'], offset: 3 })).toMatchObject({ items: [], total: 3, has_more: false });
  });

  it("answers 400 naming starting_after for an id outside the caller's organization and mode, or unknown", async () => {
    const other = await createOrg();
    const foreign = await createInvoice(other.test);
    const live = await createInvoice(org.live);
    for (const cursor of [foreign, live, 'invoice_00000000-0000-7000-8000-000000000000', 'nonsense']) {
      expectError(await org.test.post('/invoices/list', { starting_after: cursor }), 400, { code: 'validation_failed', field: 'starting_after' });
    }
    // the live key sees its own invoice as a cursor
    expect(expectSuccess(await org.live.post('/invoices/list', { starting_after: live })).items).toEqual([]);
  });

  it('answers 400 for a starting_after that is not a non-empty string', async () => {
    for (const cursor of [42, '', ['x'], null]) {
      expectError(await org.test.post('/invoices/list', { starting_after: cursor }), 400, { field: 'starting_after' });
    }
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await anonymous().get('/openapi.json')).body;
    const field = doc.components.schemas.ListInvoicesRequestDto.properties.starting_after;
    expect(field).toMatchObject({ type: 'string' });
    expect(field.description).toMatch(/after this/);
    expect(field.example).toEqual(expect.any(String));
  });
});
