import { Api, ApiResponse, baseUrl } from '../../support/api';
import { addMember, ConsoleClient, consoleOrg, sql } from '../../support/console-client';
import { csvObjects } from '../../support/csv';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg, TestOrg } from '../../support/factories';
import { r30 } from '../../support/money';

/** The cell the export should hold for a value of the API's list object (flattened by dotted path). */
function cellOf(object: unknown, path: string): string {
  let at: unknown = object;
  for (const part of path.split('.')) at = at === null || typeof at !== 'object' ? undefined : (at as Record<string, unknown>)[part];
  if (at === null || at === undefined) return '';
  const text = typeof at === 'object' ? JSON.stringify(at) : String(at);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

function expectCsv(res: ApiResponse): { header: string[]; rows: Array<Record<string, string>> } {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${res.text.slice(0, 1000)}`);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="(invoices|payments|refunds)-(test|live)[-\w]*\.csv"$/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return csvObjects(res.text);
}

async function invoice(api: Api, price: string, extra: Record<string, unknown> = {}): Promise<string> {
  return expectSuccess(await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price }], ...extra }), 201).id;
}

async function payment(api: Api, invoiceId: string, price: string, providerId = 'prov_card_usd', status = 'COMPLETED'): Promise<string> {
  return expectSuccess(await api.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: providerId, price, status }), 201).id;
}

async function setCreated(table: 'invoices' | 'payments' | 'refunds', id: string, at: string): Promise<void> {
  await sql(`UPDATE ${table} SET created_at = $2::timestamptz WHERE id = $1`, [id, at]);
}

describe('CSV exports over the API', () => {
  let org: TestOrg;
  let other: TestOrg;
  beforeAll(async () => {
    [org, other] = await Promise.all([createOrg(), createOrg()]);
  });

  it('requires a key', async () => {
    for (const kind of ['invoices', 'payments', 'refunds']) {
      expectError(await new Api(null).get(`/exports/${kind}.csv`), 401);
      expectError(await new Api('sk_test_notakeynotakeynotakeynotakeynotakey').get(`/exports/${kind}.csv`), 401);
    }
  });

  it("writes one line per invoice with the list's fields, exact amounts, and the same values as the list", async () => {
    const o = await createOrg();
    const a = await invoice(o.test, '12.345', { customer_email: 'jane+vip@example.com', metadata: { order: '=1+2', note: 'a, "quoted" one' } });
    const b = await invoice(o.test, '0.000000000000000000000000000001');
    const csv = expectCsv(await o.test.get('/exports/invoices.csv'));
    expect(csv.header).toEqual([
      'id',
      'organization_id',
      'status',
      'substatus',
      'currency',
      'price',
      'price_usd',
      'refunded_usd',
      'customer_email',
      'created_at',
      'updated_at',
      'expires_at',
      'monitoring_until',
      'redirect_url',
      'checkout_url',
      'subscription_id',
      'period_start',
      'period_end',
      'metadata',
    ]);
    // Newest first, as the list.
    expect(csv.rows.map((r) => r.id)).toEqual([b, a]);
    const first = csv.rows[1];
    expect(first.price).toBe('12.345000000000000000000000000000');
    expect(first.price_usd).toBe(r30('12.345'));
    expect(first.customer_email).toBe('jane+vip@example.com');
    expect(JSON.parse(first.metadata)).toEqual({ order: '=1+2', note: 'a, "quoted" one' });
    expect(csv.rows[0].price).toBe('0.000000000000000000000000000001');
    // Every cell is the list's value of that field.
    const list = expectSuccess(await o.test.post('/invoices/list', {})).items;
    for (const [i, item] of list.entries()) for (const h of csv.header) expect([h, csv.rows[i][h]]).toEqual([h, cellOf(item, h)]);
  });

  it('takes the period (UTC, both bounds inclusive) and the list filters', async () => {
    const o = await createOrg();
    const before = await invoice(o.test, '1');
    const start = await invoice(o.test, '2', { customer_email: 'ann@example.com' });
    const end = await invoice(o.test, '300', { currency: 'USD' });
    const after = await invoice(o.test, '4');
    await setCreated('invoices', before, '2026-10-31 23:59:59.999+00');
    await setCreated('invoices', start, '2026-11-01 00:00:00+00');
    await setCreated('invoices', end, '2026-11-30 23:59:59.5+00');
    await setCreated('invoices', after, '2026-12-01 00:00:00+00');
    const ids = async (query: string) => expectCsv(await o.test.get(`/exports/invoices.csv?${query}`)).rows.map((r) => r.id);
    expect(await ids('created_at_from=2026-11-01&created_at_to=2026-11-30')).toEqual([end, start]);
    expect(await ids('created_at_from=2026-11-01%2000:00:01')).toEqual([after, end]);
    expect(await ids('created_at_to=2026-10-31T23:59:59.999Z')).toEqual([before]);
    expect(await ids('created_at_from=2026-11-01&customer_email=ANN@example.com')).toEqual([start]);
    expect(await ids('price_usd_from=2&price_usd_to=300')).toEqual([after, end, start]);
    expect(await ids('price_usd_from=300.000000000000000000000000000001')).toEqual([]);
    expect(await ids('status=COMPLETED')).toEqual([]);
    expect(await ids('status=PENDING,COMPLETED&currency=usd')).toEqual([after, end, start, before]);
    expect(await ids('status=PENDING&status=VOIDED&created_at_from=')).toEqual([after, end, start, before]);
    await payment(o.test, start, '2');
    expect(await ids('status=COMPLETED')).toEqual([start]);
    expect(await ids('provider_id=provider_card_usd')).toEqual([start]);
  });

  it("exports payments with the list's fields, by status, provider and invoice", async () => {
    const o = await createOrg();
    const inv = await invoice(o.test, '50');
    const p1 = await payment(o.test, inv, '20.5');
    const p2 = await payment(o.test, inv, '29.5', 'prov_tron_usdt', 'PENDING');
    const other = await payment(o.test, await invoice(o.test, '5'), '5');
    const csv = expectCsv(await o.test.get('/exports/payments.csv'));
    expect(csv.rows.map((r) => r.id)).toEqual([other, p2, p1]);
    const list = expectSuccess(await o.test.post('/payments', {})).items;
    for (const [i, item] of list.entries()) for (const h of csv.header) expect([h, csv.rows[i][h]]).toEqual([h, cellOf(item, h)]);
    expect(csv.rows[2]).toMatchObject({ invoice_id: inv, provider_id: 'prov_card_usd', status: 'COMPLETED', price: r30('20.5'), currency: 'USD' });
    const ids = async (query: string) => expectCsv(await o.test.get(`/exports/payments.csv?${query}`)).rows.map((r) => r.id);
    expect(await ids(`invoice_id=${inv}`)).toEqual([p2, p1]);
    expect(await ids('status=PENDING')).toEqual([p2]);
    expect(await ids('provider_id=prov_card_usd')).toEqual([other, p1]);
    expect(await ids('provider_id=prov_card_usd,prov_tron_usdt&price_usd_to=20.5')).toEqual([other, p1]);
  });

  it('guards a formula after a line break inside a cell (a new row where a spreadsheet splits lines on ; or tabs)', async () => {
    const o = await createOrg();
    const inv = await invoice(o.test, '10');
    await payment(o.test, inv, '10');
    expectSuccess(await o.test.post(`/invoices/${inv}/refunds`, { amount: '1', reason: 'see below\r\n=1+1;\n\t@A1' }), 201);
    const raw = (await o.test.get('/exports/refunds.csv')).text;
    expect(raw).toContain(`,"see below\r\n'=1+1;\n'\t'@A1",`);
    expect(expectCsv(await o.test.get('/exports/refunds.csv')).rows[0].reason).toBe("see below\r\n'=1+1;\n'\t'@A1");
  });

  it("exports refunds with nested fields flattened, and prefixes formula-like cells with '", async () => {
    const o = await createOrg();
    const inv = await invoice(o.test, '100');
    await payment(o.test, inv, '100');
    const reasons = ['=HYPERLINK("http://evil.example","click")', '+1+2', '-3', '@SUM(A1:A2)', '\tindented', 'plain, with comma'];
    const made: string[] = [];
    for (const reason of reasons) made.push(expectSuccess<{ id: string }>(await o.test.post(`/invoices/${inv}/refunds`, { amount: '1', reason }), 201).id);
    const csv = expectCsv(await o.test.get('/exports/refunds.csv'));
    expect(csv.header).toContain('payout.amount');
    expect(csv.header).toContain('destination.address');
    expect(csv.rows.map((r) => r.id)).toEqual([...made].reverse());
    expect(csv.rows.map((r) => r.reason).reverse()).toEqual([
      `'=HYPERLINK("http://evil.example","click")`,
      "'+1+2",
      "'-3",
      "'@SUM(A1:A2)",
      "'\tindented",
      'plain, with comma',
    ]);
    // The raw text: the guarded cell is quoted only where RFC 4180 needs it (a quote or a comma; a tab is not a reason).
    const raw = (await o.test.get('/exports/refunds.csv')).text;
    expect(raw).toContain(`,"'=HYPERLINK(""http://evil.example"",""click"")",`);
    expect(raw).toMatch(/,'\+1\+2,/);
    expect(raw).toMatch(/,'\tindented,/);
    expect(raw).toContain(',"plain, with comma",');
    expect(csv.rows[0]).toMatchObject({ amount: r30(1), currency: 'USD', amount_usd: r30(1), status: 'AWAITING_DESTINATION', 'payout.amount': '' });
    const list = expectSuccess(await o.test.get('/refunds?limit=100')).items;
    for (const [i, item] of list.entries()) for (const h of csv.header) expect([h, csv.rows[i][h]]).toEqual([h, cellOf(item, h)]);
    // The period and the status filter.
    await setCreated('refunds', made[0], '2026-11-15 12:00:00+00');
    expect(expectCsv(await o.test.get('/exports/refunds.csv?created_at_from=2026-11-15&created_at_to=2026-11-15')).rows.map((r) => r.id)).toEqual([made[0]]);
    expect(expectCsv(await o.test.get('/exports/refunds.csv?status=CANCELED')).rows).toEqual([]);
    expect(expectCsv(await o.test.get(`/exports/refunds.csv?invoice_id=${inv}`)).rows).toHaveLength(6);
  });

  it("never shows another organization's rows or the other mode's, and any key may export", async () => {
    const mine = await invoice(org.test, '7');
    const theirs = await invoice(other.test, '7');
    const theirPayment = await payment(other.test, theirs, '7');
    const live = await invoice(org.live, '8');
    const readOnly = new Api(await createKey(org.id, 'test', true));
    const testIds = expectCsv(await readOnly.get('/exports/invoices.csv')).rows.map((r) => r.id);
    expect(testIds).toContain(mine);
    expect(testIds).not.toContain(theirs);
    expect(testIds).not.toContain(live);
    const liveIds = expectCsv(await org.live.get('/exports/invoices.csv')).rows.map((r) => r.id);
    expect(liveIds).toEqual([live]);
    expect(expectCsv(await org.live.get('/exports/invoices.csv')).rows[0].price).toBe(r30(8));
    // Another organization's invoice id as a filter finds nothing.
    expect(expectCsv(await org.test.get(`/exports/payments.csv?invoice_id=${theirs}`)).rows).toEqual([]);
    expect(expectCsv(await org.test.get(`/exports/refunds.csv?invoice_id=${theirs}`)).rows).toEqual([]);
    expect(expectCsv(await org.test.get('/exports/payments.csv')).rows.map((r) => r.id)).not.toContain(theirPayment);
  });

  it.each([
    ['invoices', 'created_at_from=2026-02-30', 'created_at_from'],
    ['invoices', 'created_at_to=yesterday', 'created_at_to'],
    ['invoices', 'created_at_from=2026-11-02&created_at_to=2026-11-01', 'created_at_to'],
    ['invoices', 'status=PAID', 'status'],
    ['invoices', 'currency=DOLLAR', 'currency'],
    ['invoices', 'price_usd_from=-1', 'price_usd_from'],
    ['invoices', 'price_usd_to=1e2', 'price_usd_to'],
    ['invoices', 'limit=10', 'limit'],
    ['invoices', 'provider_id=a&provider_id=b', 'provider_id'],
    ['payments', 'status=REFUNDED', 'status'],
    ['payments', 'customer_email=a@example.com', 'customer_email'],
    ['refunds', 'status=SENT,LOST', 'status'],
    ['refunds', 'currency=USD', 'currency'],
  ])('%s: %s is a 400 naming %s', async (kind, query, field) => {
    expectError(await org.test.get(`/exports/${kind}.csv?${query}`), 400, { code: 'validation_failed', field });
  });

  it('streams a large export in batches: every invoice once, newest first, sent in chunks', async () => {
    const o = await createOrg();
    const seed = await invoice(o.test, '1.5', { metadata: { batch: 'yes' } });
    const count = 2600;
    // Copies of one invoice, one second apart (inserted directly: creating 2,600 through the API takes long).
    await sql(
      `INSERT INTO invoices
       SELECT (jsonb_populate_record(i, jsonb_build_object(
                 'id', 'invoice_' || gen_random_uuid(),
                 'created_at', i.created_at - make_interval(secs => g)))).*
         FROM invoices i, generate_series(1, $2::int) g
        WHERE i.id = $1`,
      [seed, count],
    );
    const expected = (
      await sql<{ id: string }>(`SELECT id FROM invoices WHERE organization_id = $1 AND mode = 'test' ORDER BY created_at DESC, id DESC`, [o.id])
    ).map((r) => r.id);
    expect(expected).toHaveLength(count + 1);
    const res = await fetch(`${baseUrl()}/exports/invoices.csv`, { headers: { authorization: o.testKey } });
    expect(res.status).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.headers.get('content-length')).toBeNull();
    // Read as it arrives: the body comes in several chunks.
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let chunks = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks++;
      text += decoder.decode(value as Uint8Array, { stream: true });
    }
    expect(chunks).toBeGreaterThan(1);
    const csv = csvObjects(text);
    expect(csv.rows.map((r) => r.id)).toEqual(expected);
    expect(new Set(csv.rows.map((r) => r.price))).toEqual(new Set([r30('1.5')]));
    expect(csv.rows.every((r) => r.metadata === '{"batch":"yes"}')).toBe(true);
  });
});

describe('CSV exports in the console', () => {
  it('the Export button downloads the rows the list shows: "created before" a day, and a currency by its ticker', async () => {
    const org = await consoleOrg();
    const made = await invoice(new Api(org.testKey), '10');
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const exported = async (pageText: string) => {
      const href = /id="export-invoices" href="([^"]+)"/.exec(pageText)![1].replace(/&amp;/g, '&');
      return csvObjects((await org.owner.get(href)).text).rows.map((r) => r.id);
    };
    // Created before today: neither the list nor its export holds today's invoice.
    const beforeToday = await org.owner.get(`/console/test/invoices?created_to=${day(0)}`);
    expect(beforeToday.text).not.toContain(made);
    expect(await exported(beforeToday.text)).toEqual([]);
    // Created before tomorrow, in usd: both hold it.
    const beforeTomorrow = await org.owner.get(`/console/test/invoices?created_to=${day(1)}&currency=usd`);
    expect(beforeTomorrow.text).toContain(made);
    expect(await exported(beforeTomorrow.text)).toEqual([made]);
    // A ticker is the currency it names, in the list's filter as in the export.
    const btc = await org.owner.get('/console/test/invoices?currency=btc');
    expect(btc.text).toContain('value="BITCOIN"');
    expect(btc.text).not.toContain(made);
    expect(await exported(btc.text)).toEqual([]);
  });

  it('the invoices page has an Export button with its filters; the exports page downloads each kind; every role may export', async () => {
    const org = await consoleOrg();
    const api = new Api(org.testKey);
    const a = await invoice(api, '10', { customer_email: 'buyer@example.com' });
    await invoice(api, '20');
    const page = await org.owner.get('/console/test/invoices?customer_email=buyer%40example.com&created_from=2026-01-01');
    expect(page.status).toBe(200);
    const href = /id="export-invoices" href="([^"]+)"/.exec(page.text)![1].replace(/&amp;/g, '&');
    expect(href).toBe('/console/test/exports/invoices.csv?customer_email=buyer%40example.com&created_at_from=2026-01-01');
    const viaConsole = await org.owner.get(href);
    expect(viaConsole.status).toBe(200);
    expect(viaConsole.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows = csvObjects(viaConsole.text).rows;
    expect(rows.map((r) => r.id)).toEqual([a]);
    // The same CSV as the API's.
    const viaApi = await api.get('/exports/invoices.csv?customer_email=buyer%40example.com&created_at_from=2026-01-01');
    expect(viaConsole.text).toBe(viaApi.text);

    const exportsPage = await org.owner.get('/console/test/exports');
    expect(exportsPage.status).toBe(200);
    for (const kind of ['invoices', 'payments', 'refunds']) expect(exportsPage.text).toContain(`action="/console/test/exports/${kind}.csv"`);
    // Live mode exports live rows only.
    expect(csvObjects((await org.owner.get('/console/live/exports/invoices.csv')).text).rows).toEqual([]);

    for (const role of ['admin', 'developer', 'analyst', 'support']) {
      const m = await addMember(org.owner, role);
      const res = await m.client.get('/console/test/exports/invoices.csv?customer_email=buyer%40example.com');
      expect([role, res.status]).toEqual([role, 200]);
      expect(csvObjects(res.text).rows.map((r) => r.id)).toEqual([a]);
      expect((await m.client.get('/console/test/invoices')).text).toContain('id="export-invoices"');
    }
  });

  it('refuses a bad filter naming it, an unknown export, and a visitor without a session', async () => {
    const org = await consoleOrg();
    const bad = await org.owner.get('/console/test/exports/payments.csv?created_at_from=nope');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('created_at_from must be a time');
    expect((await org.owner.get('/console/test/exports/members.csv')).status).toBe(404);
    expect((await org.owner.get('/console/staging/exports/invoices.csv')).status).toBe(404);
    const anonymous = await new ConsoleClient().get('/console/test/exports/invoices.csv');
    expect(anonymous.status).toBe(303);
    expect(anonymous.location).toBe('/console/sign-in');
  });

  it("another organization's invoice id as a filter exports nothing", async () => {
    const [mine, theirs] = await Promise.all([consoleOrg(), consoleOrg()]);
    const theirApi = new Api(theirs.testKey);
    const inv = await invoice(theirApi, '9');
    await payment(theirApi, inv, '9');
    const res = await mine.owner.get(`/console/test/exports/payments.csv?invoice_id=${inv}`);
    expect(res.status).toBe(200);
    expect(csvObjects(res.text).rows).toEqual([]);
    expect(csvObjects((await theirs.owner.get(`/console/test/exports/payments.csv?invoice_id=${inv}`)).text).rows).toHaveLength(1);
  });
});
