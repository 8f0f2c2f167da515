import { anonymous } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { convert, createInvoice, intent, r30, readInvoice } from './invoice-helpers';

const list = async (org: TestOrg, body: unknown = {}) => expectSuccess(await org.test.post('/invoices/list', body));
const ids = (page: { items: Array<{ id: string }> }) => page.items.map((i) => i.id);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('POST /invoices/list', () => {
  it('requires an API key', async () => {
    expectError(await anonymous().post('/invoices/list', {}), 401);
  });

  it("lists the organization's invoices of the key's mode, newest first, in the plain read form", async () => {
    const org = await createOrg();
    const other = await createOrg();
    const a = await createInvoice(org.test, { metadata: { n: '1' } });
    const b = await createInvoice(org.test);
    const c = await createInvoice(org.test);
    const live = await createInvoice(org.live);
    await createInvoice(other.test);
    const page = await list(org);
    expect(page).toMatchObject({ total: 3, limit: 20, offset: 0, has_more: false });
    expect(ids(page)).toEqual([c, b, a]);
    expect(page.items[2]).toEqual(await readInvoice(org.test, a));
    expect(page.items[2].metadata).toEqual({ n: '1' });
    expect(page.items[2]).not.toHaveProperty('items');
    const livePage = expectSuccess(await org.live.post('/invoices/list', {}));
    expect(ids(livePage)).toEqual([live]);
  });

  it('pages with limit and offset and reports has_more', async () => {
    const org = await createOrg();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push(await createInvoice(org.test));
    const newest = [...made].reverse();
    const first = await list(org, { limit: 2 });
    expect(first).toMatchObject({ total: 5, limit: 2, offset: 0, has_more: true });
    expect(ids(first)).toEqual(newest.slice(0, 2));
    const last = await list(org, { limit: 2, offset: 4 });
    expect(ids(last)).toEqual(newest.slice(4));
    expect(last.has_more).toBe(false);
    const none = await list(org, { limit: 0 });
    expect(none).toMatchObject({ items: [], total: 5, limit: 0, has_more: true });
    const max = await list(org, { limit: 100 });
    expect(ids(max)).toEqual(newest);
    const beyond = await list(org, { offset: 50 });
    expect(beyond).toMatchObject({ items: [], total: 5, offset: 50, has_more: false });
    const asText = await list(org, { limit: '1', offset: '1' });
    expect(ids(asText)).toEqual([newest[1]]);
  });

  it('filters by status (values OR-ed)', async () => {
    const org = await createOrg();
    const pending = await createInvoice(org.test);
    const voided = await createInvoice(org.test);
    const completed = await createInvoice(org.test);
    expectSuccess(await org.test.put(`/invoices/${voided}`, { status: 'VOIDED' }));
    expectSuccess(await org.test.put(`/invoices/${completed}`, { status: 'COMPLETED' }));
    expect(ids(await list(org, { status: ['VOIDED'] }))).toEqual([voided]);
    expect(ids(await list(org, { status: ['PENDING', 'COMPLETED'] }))).toEqual([completed, pending]);
    expect(ids(await list(org, { status: ['PARTIALLY_PAID'] }))).toEqual([]);
    expect(ids(await list(org, { status: [] }))).toEqual([completed, voided, pending]);
  });

  it('filters by currency', async () => {
    const org = await createOrg();
    const usd = await createInvoice(org.test, { items: [intent('1', 'USD')] });
    const eur = await createInvoice(org.test, { items: [intent('1', 'EUR')] });
    const btc = await createInvoice(org.test, { items: [intent('1', 'USD')], currency: 'BITCOIN' });
    expect(ids(await list(org, { currency: ['EUR'] }))).toEqual([eur]);
    expect(ids(await list(org, { currency: ['USD', 'BITCOIN'] }))).toEqual([btc, usd]);
  });

  it('filters by price_usd with inclusive bounds, exactly', async () => {
    const org = await createOrg();
    const ten = await createInvoice(org.test, { items: [intent('10')] });
    const tenAndABit = await createInvoice(org.test, { items: [intent('10.000000000000000000000000000001')] });
    const twenty = await createInvoice(org.test, { items: [intent('20')] });
    const eur = await createInvoice(org.test, { items: [intent('10', 'EUR')] });
    const eurUsd = convert('10', 'EUR', 'USD');
    expect(ids(await list(org, { price_usd_from: '10', price_usd_to: '10' }))).toEqual([ten]);
    expect(ids(await list(org, { price_usd_from: 10, price_usd_to: 20 }))).toEqual(
      [eur, twenty, tenAndABit, ten].filter((id) => id !== eur || (eurUsd.gte(10) && eurUsd.lte(20))),
    );
    expect(ids(await list(org, { price_usd_from: '10.000000000000000000000000000001' }))).toEqual(
      [eur, twenty, tenAndABit].filter((id) => id !== eur || eurUsd.gt(10)),
    );
    expect(ids(await list(org, { price_usd_to: '19.999999999999999999999999999999' }))).toEqual(
      [eur, tenAndABit, ten].filter((id) => id !== eur || eurUsd.lt(20)),
    );
    expect((await readInvoice(org.test, eur)).price_usd).toBe(r30(eurUsd));
  });

  it('filters by customer_email exactly, ignoring case', async () => {
    const org = await createOrg();
    const jane = await createInvoice(org.test, { customer_email: 'Jane.Doe@Example.com' });
    await createInvoice(org.test, { customer_email: 'jane.doe@example.org' });
    await createInvoice(org.test, { customer_email: 'john@example.com' });
    expect(ids(await list(org, { customer_email: 'jane.doe@example.com' }))).toEqual([jane]);
    expect(ids(await list(org, { customer_email: 'JANE.DOE@EXAMPLE.COM' }))).toEqual([jane]);
    expect(ids(await list(org, { customer_email: 'jane' }))).toEqual([]);
  });

  it('filters by created_at bounds in every accepted form, inclusive', async () => {
    const org = await createOrg();
    const first = await createInvoice(org.test);
    await sleep(1100);
    const second = await createInvoice(org.test);
    const a = await readInvoice(org.test, first);
    const b = await readInvoice(org.test, second);
    expect(a.created_at < b.created_at).toBe(true);
    expect(ids(await list(org, { created_at_to: a.created_at }))).toEqual([first]);
    expect(ids(await list(org, { created_at_from: b.created_at }))).toEqual([second]);
    expect(ids(await list(org, { created_at_from: a.created_at, created_at_to: b.created_at }))).toEqual([second, first]);
    const isoB = `${b.created_at.replace(' ', 'T')}Z`;
    expect(ids(await list(org, { created_at_from: isoB }))).toEqual([second]);
    const day = a.created_at.slice(0, 10);
    if (b.created_at.slice(0, 10) === day) {
      expect(ids(await list(org, { created_at_from: day, created_at_to: day }))).toEqual([second, first]);
    }
    expect(ids(await list(org, { created_at_to: '2000-01-01' }))).toEqual([]);
    expect(ids(await list(org, { created_at_from: '2999-01-01' }))).toEqual([]);
  });

  it('accepts provider_id and matches only invoices paid through that provider (none without payments)', async () => {
    const org = await createOrg();
    await createInvoice(org.test);
    const page = await list(org, { provider_id: 'prov_ethereum_usdt' });
    expect(page).toMatchObject({ items: [], total: 0 });
  });

  it('combines filters with AND', async () => {
    const org = await createOrg();
    const match = await createInvoice(org.test, { items: [intent('50', 'EUR')], customer_email: 'a@example.com' });
    await createInvoice(org.test, { items: [intent('50', 'EUR')], customer_email: 'b@example.com' });
    await createInvoice(org.test, { items: [intent('50', 'USD')], customer_email: 'a@example.com' });
    await createInvoice(org.test, { items: [intent('5000', 'EUR')], customer_email: 'a@example.com' });
    const voided = await createInvoice(org.test, { items: [intent('50', 'EUR')], customer_email: 'a@example.com' });
    expectSuccess(await org.test.put(`/invoices/${voided}`, { status: 'VOIDED' }));
    const page = await list(org, {
      status: ['PENDING'],
      currency: ['EUR'],
      customer_email: 'A@example.com',
      price_usd_from: '1',
      price_usd_to: '1000',
      created_at_from: '2000-01-01',
      created_at_to: '2999-12-31',
    });
    expect(ids(page)).toEqual([match]);
    expect(page.total).toBe(1);
  });

  it.each([
    ['status not an array', { status: 'PENDING' }, 'status'],
    ['unknown status', { status: ['PENDING', 'LOST'] }, 'status'],
    ['unknown currency', { currency: ['XYZ'] }, 'currency'],
    ['currency not an array', { currency: 'USD' }, 'currency'],
    ['negative price_usd_from', { price_usd_from: '-1' }, 'price_usd_from'],
    ['price_usd_to not a number', { price_usd_to: 'abc' }, 'price_usd_to'],
    ['price_usd_to with exponent', { price_usd_to: '1e3' }, 'price_usd_to'],
    ['created_at_from not a time', { created_at_from: 'yesterday' }, 'created_at_from'],
    ['created_at_to impossible date', { created_at_to: '2026-13-01' }, 'created_at_to'],
    ['customer_email not a string', { customer_email: 5 }, 'customer_email'],
    ['provider_id not a string', { provider_id: 5 }, 'provider_id'],
    ['limit above 100', { limit: 101 }, 'limit'],
    ['limit negative', { limit: -1 }, 'limit'],
    ['limit fractional', { limit: 1.5 }, 'limit'],
    ['limit text', { limit: 'ten' }, 'limit'],
    ['offset negative', { offset: -1 }, 'offset'],
  ])('%s -> 400 on %s', async (_name, body, field) => {
    const org = await createOrg();
    expectError(await org.test.post('/invoices/list', body), 400, { code: 'validation_failed', field });
  });
});
