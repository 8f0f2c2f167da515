import { Api, anonymous } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { addMember, ConsoleClient, ConsoleOrg, consoleOrg, sql } from '../../support/console-client';

const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** A USD invoice for `email`, paid in full by a test payment (COMPLETED). */
async function paidInvoice(api: Api, email: string, price = '100'): Promise<{ invoice: string; payment: string }> {
  const invoice = expectSuccess(await api.post('/invoices/create', { customer_email: email, items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price }] }), 201)
    .id as string;
  const payment = expectSuccess(
    await api.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_card_usd', price, status: 'COMPLETED' }),
    201,
  ).id as string;
  return { invoice, payment };
}

async function pendingInvoice(api: Api, price = '25'): Promise<string> {
  return expectSuccess(await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price }] }), 201).id as string;
}

const invoiceStatus = async (api: Api, id: string) => expectSuccess(await api.get(`/invoices/${id}`)).status as string;

/** Posts a console form of `page` (its CSRF token read from it) and answers the result. */
const act = (c: ConsoleClient, page: string, action: string, form: Record<string, string> = {}) => c.submit(page, action, form);

describe('management console: invoices, payments and refunds', () => {
  let org: ConsoleOrg;
  let other: ConsoleOrg;
  let test: Api;
  beforeAll(async () => {
    [org, other] = await Promise.all([consoleOrg(), consoleOrg()]);
    test = new Api(org.testKey);
  });

  it("an invoice's page shows its items, payments with their transactions, refunds, events and checkout link; the list finds it by customer email", async () => {
    const email = `payer-${Date.now()}@example.com`;
    const { invoice, payment } = await paidInvoice(test, email);
    const refund = expectSuccess(await test.post(`/invoices/${invoice}/refunds`, { amount: '10' }), 201);

    const list = await org.owner.get(`/console/test/invoices?customer_email=${encodeURIComponent(email)}`);
    expect(list.status).toBe(200);
    expect(list.text).toContain(`href="/console/test/invoices/${invoice}"`);
    expect(list.text.match(/href="\/console\/test\/invoices\/invoice_/g)).toHaveLength(1);

    const page = await org.owner.get(`/console/test/invoices/${invoice}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.text).toContain('PAYMENT_INTENT');
    expect(page.text).toContain(email);
    expect(page.text).toContain(`href="/console/test/payments/${payment}"`);
    expect(page.text).toContain('prov_card_usd');
    expect(page.text).toContain(`href="/console/test/refunds/${refund.id}"`);
    expect(page.text).toContain('AWAITING_DESTINATION');
    expect(page.text).toMatch(/invoice\.created/);
    expect(page.text).toMatch(/payment\.created/);
    expect(page.text).toMatch(/refund\.created/);
    expect(page.text).toMatch(/id="checkout-link"/);
    expect(page.text).toContain('Refund</button>');
    // A paid invoice cannot be voided or marked paid: no such buttons.
    expect(page.text).not.toContain('Void the invoice');
    expect(page.text).not.toContain('Mark as paid');

    const de = await org.owner.get(`/console/test/invoices/${invoice}?lang=de`);
    expect(de.text).toContain('Zahlungen');
    expect(de.text).toContain('Erstattungen');
    await org.owner.get('/console/test?lang=en');
  });

  it("an invoice's page finds its events wherever they stand in the mode's history, and pages through more than a page of them", async () => {
    const o = await consoleOrg();
    const api = new Api(o.testKey);
    const old = await pendingInvoice(api);
    /** `count` events of `objectId` (or of other objects when null), each a second apart after `from`. */
    const addEvents = (count: number, objectId: string | null, from: string) =>
      sql(
        `INSERT INTO events (id, organization_id, mode, type, data, created_at)
         SELECT 'event_' || gen_random_uuid(), $1, 'test', 'invoice.updated',
                jsonb_build_object('object', jsonb_build_object('id', coalesce($2, 'invoice_other_' || g))), $3::timestamptz + g * interval '1 second'
           FROM generate_series(1, $4) AS g`,
        [o.organizationId, objectId, from, count],
      );
    // 120 newer events of other invoices: the old invoice's own is no longer among the mode's latest 100.
    await addEvents(120, null, new Date(Date.now() + 60_000).toISOString());
    const oldPage = await o.owner.get(`/console/test/invoices/${old}`);
    expect(oldPage.status).toBe(200);
    expect(oldPage.text).toMatch(new RegExp(`<td>invoice\\.created</td>\\s*<td>${old}</td>`));
    expect(oldPage.text).not.toContain('invoice_other_');
    expect(oldPage.text).not.toContain('id="events-range"');

    // An invoice with 105 events besides its invoice.created: the first 100 (newest first), then the other 6.
    const busy = await pendingInvoice(api);
    await addEvents(105, busy, new Date(Date.now() + 600_000).toISOString());
    const rows = (text: string) => text.slice(text.indexOf('id="events-h"')).match(new RegExp(`<td>${busy}</td>`, 'g'))?.length ?? 0;
    const first = await o.owner.get(`/console/test/invoices/${busy}`);
    expect(rows(first.text)).toBe(100);
    expect(first.text).toMatch(/id="events-range">\s*1–100 of 106/);
    expect(first.text).toContain(`href="/console/test/invoices/${busy}?events_offset=100#events-h" rel="next">Older events</a>`);
    expect(first.text).not.toContain('Newer events');
    const second = await o.owner.get(`/console/test/invoices/${busy}?events_offset=100`);
    expect(rows(second.text)).toBe(6);
    expect(second.text).toMatch(/id="events-range">\s*101–106 of 106/);
    expect(second.text).toMatch(new RegExp(`<td>invoice\\.created</td>\\s*<td>${busy}</td>`));
    expect(second.text).toContain(`href="/console/test/invoices/${busy}?events_offset=0#events-h" rel="prev">Newer events</a>`);
    expect(second.text).not.toContain('Older events');
    // A bad offset is the first page; another organization's member sees no events of it (404).
    expect(rows((await o.owner.get(`/console/test/invoices/${busy}?events_offset=-5`)).text)).toBe(100);
    expect((await other.owner.get(`/console/test/invoices/${busy}?events_offset=100`)).status).toBe(404);
  });

  it('voids a pending invoice and marks another paid through the invoices commands, and records both in the audit log', async () => {
    const a = await pendingInvoice(test);
    const b = await pendingInvoice(test);
    const page = await org.owner.get(`/console/test/invoices/${a}`);
    expect(page.text).toContain('Void the invoice');
    expect(page.text).toContain('Mark as paid');
    const voided = await act(org.owner, `/console/test/invoices/${a}`, `/console/test/invoices/${a}/void`);
    expect(voided.status).toBe(200);
    expect(voided.text).toContain('The invoice is voided.');
    expect(await invoiceStatus(test, a)).toBe('VOIDED');
    // Voiding again is refused by the invoice's state machine, with its message.
    const again = await org.owner.post(`/console/test/invoices/${a}/void`, { _csrf: ConsoleClient.csrfOf(voided.text) });
    expect(again.status).toBe(400);
    expect(again.text).toContain('role="alert"');

    const marked = await act(org.owner, `/console/test/invoices/${b}`, `/console/test/invoices/${b}/mark-paid`);
    expect(marked.status).toBe(200);
    const read = expectSuccess(await test.get(`/invoices/${b}`));
    expect(read).toMatchObject({ status: 'COMPLETED', substatus: 'MARKED_PAID' });
    const audit = await sql<{ action: string; target: string; mode: string }>(
      `SELECT action, target, mode FROM console_audit_log WHERE organization_id = $1 AND action LIKE 'invoice.%' ORDER BY created_at`,
      [org.organizationId],
    );
    expect(audit).toEqual([
      { action: 'invoice.void', target: a, mode: 'test' },
      { action: 'invoice.mark_paid', target: b, mode: 'test' },
    ]);
  });

  it('answers a done action with its page when its audit entry cannot be written (the entry is lost, not the change)', async () => {
    const o = await consoleOrg();
    const api = new Api(o.testKey);
    const id = await pendingInvoice(api);
    // The audit log refuses this organization's entries (a trigger standing in for a failing write).
    const fn = `refuse_audit_${o.organizationId.replace(/\W/g, '_')}`;
    await sql(
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN IF NEW.organization_id = '${o.organizationId}' THEN RAISE EXCEPTION 'audit store unavailable'; END IF; RETURN NEW; END $$`,
    );
    await sql(`CREATE TRIGGER ${fn} BEFORE INSERT ON console_audit_log FOR EACH ROW EXECUTE FUNCTION ${fn}()`);
    try {
      const voided = await act(o.owner, `/console/test/invoices/${id}`, `/console/test/invoices/${id}/void`);
      expect(voided.status).toBe(200);
      expect(voided.text).toContain('The invoice is voided.');
      expect(await invoiceStatus(api, id)).toBe('VOIDED');
      expect(await sql(`SELECT 1 FROM console_audit_log WHERE organization_id = $1 AND action = 'invoice.void'`, [o.organizationId])).toEqual([]);
    } finally {
      await sql(`DROP TRIGGER ${fn} ON console_audit_log`);
      await sql(`DROP FUNCTION ${fn}()`);
    }
  });

  it('refunds an invoice: the refund page shows the claim link, follows the claim and payout to COMPLETED; another refund is canceled', async () => {
    const { invoice } = await paidInvoice(test, `r-${Date.now()}@example.com`);
    const created = await act(org.owner, `/console/test/invoices/${invoice}`, `/console/test/invoices/${invoice}/refunds`, {
      amount: '40',
      reason: 'Order cancelled',
    });
    expect(created.status).toBe(303);
    const refundId = /\/console\/test\/refunds\/(refund_[^/]+)$/.exec(created.location!)![1];
    const refund = expectSuccess<{ claim_url: string; amount: string }>(await test.get(`/refunds/${refundId}`));
    expect(refund).toMatchObject({ invoice_id: invoice, status: 'AWAITING_DESTINATION', reason: 'Order cancelled' });
    expect(refund.amount).toMatch(/^40\.0+$/);

    let page = await org.owner.get(created.location!);
    expect(page.status).toBe(200);
    expect(page.text).toContain(refund.claim_url);
    expect(page.text).toContain('Cancel the refund');

    // The payer claims, the payout is simulated (test mode): the page follows.
    const token = new URL(refund.claim_url, 'http://x').pathname.split('/').pop()!;
    expectSuccess(await anonymous().post(`/refund_claims/${token}`, { provider_id: 'prov_ethereum_usdt', address: ADDRESS }));
    page = await org.owner.get(created.location!);
    expect(page.text).toContain('AWAITING_PAYOUT');
    expect(page.text).toContain(ADDRESS);
    expectSuccess(await test.post(`/test_helpers/refunds/${refundId}/payout`, { result: 'paid' }));
    page = await org.owner.get(created.location!);
    expect(page.text).toContain('<span id="refund-status" role="status">COMPLETED</span>');
    expect(page.text).toContain(`simulated:${refundId}`);
    expect(page.text).not.toContain('Cancel the refund');

    // A second refund, canceled from its page; canceling a completed one is refused with the refund's message.
    const second = await act(org.owner, `/console/test/invoices/${invoice}`, `/console/test/invoices/${invoice}/refunds`, { amount: '5' });
    const secondId = second.location!.split('/').pop()!;
    const canceled = await act(org.owner, second.location!, `/console/test/refunds/${secondId}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.text).toContain('<span id="refund-status" role="status">CANCELED</span>');
    expect(expectSuccess(await test.get(`/refunds/${secondId}`)).status).toBe('CANCELED');
    const refused = await org.owner.post(`/console/test/refunds/${refundId}/cancel`, { _csrf: ConsoleClient.csrfOf(page.text) });
    expect(refused.status).toBe(400);

    // More than is refundable: the invoice page again, naming the problem.
    const tooMuch = await act(org.owner, `/console/test/invoices/${invoice}`, `/console/test/invoices/${invoice}/refunds`, { amount: '1000' });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.text).toContain('role="alert"');
    const bad = await act(org.owner, `/console/test/invoices/${invoice}`, `/console/test/invoices/${invoice}/refunds`, { amount: 'ten' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('amount must be a decimal number');
  });

  it("a refund page's own refresh does not keep an idle session alive; the member's own requests do", async () => {
    const { client, id: member } = await addMember(org.owner, 'support');
    const { invoice } = await paidInvoice(test, 'poll@example.com');
    const refund = expectSuccess(await test.post(`/invoices/${invoice}/refunds`, { amount: '1' }), 201).id as string;
    const path = `/console/test/refunds/${refund}`;
    const page = await client.get(path);
    expect(page.text).toContain(`hx-trigger="every 5s" hx-headers='{"X-Console-Poll": "1"}'`);
    const poll = () => client.request('GET', path, undefined, { 'HX-Request': 'true', 'X-Console-Poll': '1' });
    const idleHours = async () =>
      (await sql<{ h: number }>(`SELECT extract(epoch FROM now() - last_seen_at) / 3600 AS h FROM console_sessions WHERE member_id = $1`, [member])).map((r) =>
        Number(r.h),
      );

    await sql(`UPDATE console_sessions SET last_seen_at = now() - interval '11 hours' WHERE member_id = $1`, [member]);
    expect((await poll()).status).toBe(200);
    expect((await idleHours())[0]).toBeGreaterThan(10.9);
    // Twelve hours after the member's last own request, the next refresh finds the session ended.
    await sql(`UPDATE console_sessions SET last_seen_at = now() - interval '12 hours 1 minute' WHERE member_id = $1`, [member]);
    const ended = await poll();
    expect([ended.status, ended.headers.get('hx-redirect')]).toEqual([401, '/console/sign-in']);

    // A request of the member's own (no poll header) moves the idle limit on.
    const again = await addMember(org.owner, 'support');
    await sql(`UPDATE console_sessions SET last_seen_at = now() - interval '11 hours' WHERE member_id = $1`, [again.id]);
    expect((await again.client.get(path)).status).toBe(200);
    const [hours] = (
      await sql<{ h: number }>(`SELECT extract(epoch FROM now() - last_seen_at) / 3600 AS h FROM console_sessions WHERE member_id = $1`, [again.id])
    ).map((r) => Number(r.h));
    expect(hours).toBeLessThan(0.1);
  });

  it('refuses a refund in a currency it does not know with the invoice page naming the field; reads tickers as the API does', async () => {
    const { invoice } = await paidInvoice(test, `rc-${Date.now()}@example.com`);
    const page = `/console/test/invoices/${invoice}`;
    for (const currency of ['FOO', 'usdd', '1']) {
      const bad = await act(org.owner, page, `${page}/refunds`, { amount: '1', currency });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('role="alert"');
      expect(bad.text).toContain('currency must be one of');
    }
    expect(expectSuccess<{ items: unknown[] }>(await test.get(`/refunds?invoice_id=${invoice}`)).items).toHaveLength(0);
    // A ticker is the currency it names, as in POST /invoices/{id}/refunds.
    const btc = await act(org.owner, page, `${page}/refunds`, { amount: '0.00001', currency: 'btc' });
    expect(btc.status).toBe(303);
    const refund = expectSuccess<{ currency: string }>(await test.get(`/refunds/${btc.location!.split('/').pop()}`));
    expect(refund.currency).toBe('BITCOIN');
  });

  it('refuses a day that does not exist in the invoice list filter, naming the field', async () => {
    for (const [query, field] of [
      ['created_from=2024-13-45', 'Created from'],
      ['created_to=2024-02-30', 'Created before'],
      ['created_from=2024-01-01&created_to=yesterday', 'Created before'],
    ]) {
      const list = await org.owner.get(`/console/test/invoices?${query}`);
      expect(list.status).toBe(400);
      expect(list.text).toContain('role="alert"');
      expect(list.text).toContain(`${field}: must be a date as YYYY-MM-DD`);
    }
    const ok = await org.owner.get('/console/test/invoices?created_from=2024-02-29&created_to=2099-12-31');
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('href="/console/test/invoices/invoice_');
  });

  it('lists payments and refunds with a status filter and a next page', async () => {
    const o = await consoleOrg();
    const api = new Api(o.testKey);
    const ids: string[] = [];
    for (let i = 0; i < 27; i++) ids.push((await paidInvoice(api, `p${i}@example.com`, '3')).payment);
    const first = await o.owner.get('/console/test/payments');
    expect(first.status).toBe(200);
    expect(first.text.match(/href="\/console\/test\/payments\/payment_/g)).toHaveLength(25);
    const next = /href="(\/console\/test\/payments\?[^"]+)" hx-get/.exec(first.text)![1].replace(/&amp;/g, '&');
    const second = await o.owner.get(next);
    expect(second.text.match(/href="\/console\/test\/payments\/payment_/g)).toHaveLength(2);
    expect(second.text).not.toContain('rel="next"');
    expect((await o.owner.get('/console/test/payments?status=FAILED')).text).not.toContain('href="/console/test/payments/payment_');
    const one = await o.owner.get(`/console/test/payments/${ids[0]}`);
    expect(one.status).toBe(200);
    expect(one.text).toContain('prov_card_usd');
    // The live mode has none of the test mode's payments.
    expect((await o.owner.get('/console/live/payments')).text).not.toContain('href="/console/live/payments/payment_');
    expect((await o.owner.get(`/console/live/payments/${ids[0]}`)).status).toBe(404);

    const { invoice } = await paidInvoice(api, 'refund-list@example.com');
    const refund = expectSuccess(await api.post(`/invoices/${invoice}/refunds`, { amount: '1' }), 201);
    const refunds = await o.owner.get('/console/test/refunds?status=AWAITING_DESTINATION');
    expect(refunds.text).toContain(`href="/console/test/refunds/${refund.id}"`);
    expect((await o.owner.get('/console/test/refunds?status=COMPLETED')).text).not.toContain(refund.id);
  });

  it('says how many payments an invoice has when it has more than its page lists (100), in English and German, and offers a refund for a completed payment it does not list', async () => {
    const o = await consoleOrg();
    const api = new Api(o.testKey);
    const invoice = await pendingInvoice(api, '1000');
    const pay = () => api.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_card_usd', price: '1' });
    // The oldest payment completed; the 100 after it are pending.
    expectSuccess(await api.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_card_usd', price: '1', status: 'COMPLETED' }), 201);
    for (let i = 0; i < 90; i += 10) {
      for (const r of await Promise.all(Array.from({ length: 10 }, pay))) expectSuccess(r, 201);
    }
    for (const r of await Promise.all(Array.from({ length: 9 }, pay))) expectSuccess(r, 201);
    // Exactly as many as the page lists: no such sentence; the completed payment is listed, and refundable.
    const all = await o.owner.get(`/console/test/invoices/${invoice}`);
    expect(all.text.match(/href="\/console\/test\/payments\/payment_/g)).toHaveLength(100);
    expect(all.text).not.toContain('id="payments-more"');
    expect(all.text).toContain('id="refund-form"');

    expectSuccess(await pay(), 201);
    const page = await o.owner.get(`/console/test/invoices/${invoice}`);
    expect(page.status).toBe(200);
    expect(page.text.match(/href="\/console\/test\/payments\/payment_/g)).toHaveLength(100);
    expect(page.text).toMatch(/<p class="muted" id="payments-more">Showing the first 100 of 101 payments\.<\/p>/);
    expect(page.text).not.toContain('id="refunds-more"');
    // The completed payment is the 101st, past the list: a refund is still offered.
    expect(page.text).toContain('id="refund-form"');
    const de = await o.owner.get(`/console/test/invoices/${invoice}?lang=de`);
    expect(de.text).toContain('Gezeigt werden die ersten 100 von 101 Zahlungen.');
    await o.owner.get('/console/test?lang=en');
  });

  it("answers 404 for another organization's invoice, payment and refund on every page and action", async () => {
    const { invoice, payment } = await paidInvoice(new Api(other.testKey), 'foreign@example.com');
    const refund = expectSuccess(await new Api(other.testKey).post(`/invoices/${invoice}/refunds`, { amount: '5' }), 201).id as string;
    const pending = await pendingInvoice(new Api(other.testKey));
    for (const path of [`/console/test/invoices/${invoice}`, `/console/test/payments/${payment}`, `/console/test/refunds/${refund}`]) {
      expect({ path, status: (await org.owner.get(path)).status }).toEqual({ path, status: 404 });
    }
    for (const [path, form] of [
      [`/console/test/invoices/${pending}/void`, {}],
      [`/console/test/invoices/${pending}/mark-paid`, {}],
      [`/console/test/invoices/${invoice}/refunds`, { amount: '1' }],
      [`/console/test/refunds/${refund}/cancel`, {}],
    ] as const) {
      expect({ path, status: (await act(org.owner, '/console/test/refunds', path, form)).status }).toEqual({ path, status: 404 });
    }
    expect(await invoiceStatus(new Api(other.testKey), pending)).toBe('PENDING');
    expect(expectSuccess(await new Api(other.testKey).get(`/refunds/${refund}`)).status).toBe('AWAITING_DESTINATION');
    // Another organization's id as a list's cursor: the list from its first page (filters kept), not the API's JSON error.
    for (const [list, id] of [
      ['invoices', invoice],
      ['payments', payment],
      ['refunds', refund],
    ] as const) {
      const answer = await org.owner.get(`/console/test/${list}?status=COMPLETED&starting_after=${id}`);
      expect({ list, status: answer.status, location: answer.location }).toEqual({ list, status: 303, location: `/console/test/${list}?status=COMPLETED` });
    }
  });

  it('refuses a post without the CSRF token and sends a signed-out visitor to sign in', async () => {
    const id = await pendingInvoice(test);
    expect((await org.owner.post(`/console/test/invoices/${id}/void`, {})).status).toBe(403);
    expect(await invoiceStatus(test, id)).toBe('PENDING');
    const stranger = new ConsoleClient();
    expect((await stranger.get(`/console/test/invoices/${id}`)).status).toBe(303);
    expect((await stranger.post(`/console/test/invoices/${id}/void`, {})).status).toBe(401);
  });

  describe('role limits on the server, and the actions absent from the page', () => {
    it('analyst: reads, but may not void, mark paid, refund or cancel (403, nothing changes, no buttons)', async () => {
      const { client } = await addMember(org.owner, 'analyst');
      const pending = await pendingInvoice(test);
      const { invoice } = await paidInvoice(test, 'an@example.com');
      const refund = expectSuccess(await test.post(`/invoices/${invoice}/refunds`, { amount: '2' }), 201).id as string;
      const page = await client.get(`/console/test/invoices/${pending}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('Void the invoice');
      expect(page.text).not.toContain('Mark as paid');
      expect((await client.get(`/console/test/invoices/${invoice}`)).text).not.toContain('Refund</button>');
      const refundPage = (await client.get(`/console/test/refunds/${refund}`)).text;
      expect(refundPage).not.toContain('Cancel the refund');
      // The claim link chooses where the money goes: not for a member who may not refund, on the page or in the export.
      const claimUrl = expectSuccess<{ claim_url: string }>(await test.get(`/refunds/${refund}`)).claim_url;
      expect(claimUrl).toContain('/refund_claims/');
      expect(refundPage).not.toContain(claimUrl);
      expect(refundPage).toContain('only members who may refund in this mode see it');
      const exported = await client.get(`/console/test/exports/refunds.csv?invoice_id=${invoice}`);
      expect(exported.status).toBe(200);
      expect(exported.text).toContain(refund);
      expect(exported.text).not.toContain(claimUrl);
      const byOwner = await org.owner.get(`/console/test/exports/refunds.csv?invoice_id=${invoice}`);
      expect(byOwner.text).toContain(claimUrl);
      expect((await org.owner.get(`/console/test/refunds/${refund}`)).text).toContain(claimUrl);
      expect((await act(client, `/console/test/invoices/${pending}`, `/console/test/invoices/${pending}/void`)).status).toBe(403);
      expect((await act(client, `/console/test/invoices/${pending}`, `/console/test/invoices/${pending}/mark-paid`)).status).toBe(403);
      expect((await act(client, `/console/test/invoices/${invoice}`, `/console/test/invoices/${invoice}/refunds`)).status).toBe(403);
      expect((await act(client, `/console/test/refunds/${refund}`, `/console/test/refunds/${refund}/cancel`)).status).toBe(403);
      expect(await invoiceStatus(test, pending)).toBe('PENDING');
      expect(expectSuccess(await test.get(`/refunds?invoice_id=${invoice}`)).items).toHaveLength(1);
      expect(expectSuccess(await test.get(`/refunds/${refund}`)).status).toBe('AWAITING_DESTINATION');
    });

    it('support: voids and refunds, but may not mark paid', async () => {
      const { client } = await addMember(org.owner, 'support');
      const pending = await pendingInvoice(test);
      const page = await client.get(`/console/test/invoices/${pending}`);
      expect(page.text).toContain('Void the invoice');
      expect(page.text).not.toContain('Mark as paid');
      expect((await act(client, `/console/test/invoices/${pending}`, `/console/test/invoices/${pending}/mark-paid`)).status).toBe(403);
      expect(await invoiceStatus(test, pending)).toBe('PENDING');
      expect((await act(client, `/console/test/invoices/${pending}`, `/console/test/invoices/${pending}/void`)).status).toBe(200);
      expect(await invoiceStatus(test, pending)).toBe('VOIDED');
      const { invoice } = await paidInvoice(test, 'sup@example.com');
      const made = await act(client, `/console/test/invoices/${invoice}`, `/console/test/invoices/${invoice}/refunds`);
      expect(made.status).toBe(303);
      const refund = expectSuccess<{ claim_url: string }>(await test.get(`/refunds/${made.location!.split('/').pop()}`));
      expect((await client.get(`/console/test/refunds/${made.location!.split('/').pop()}`)).text).toContain(refund.claim_url);
    });

    it('developer: every invoice action in test mode, none in live mode', async () => {
      const { client } = await addMember(org.owner, 'developer');
      const live = new Api(org.liveKey);
      const testInvoice = await pendingInvoice(test);
      expect((await act(client, `/console/test/invoices/${testInvoice}`, `/console/test/invoices/${testInvoice}/mark-paid`)).status).toBe(200);
      expect(await invoiceStatus(test, testInvoice)).toBe('COMPLETED');
      const liveInvoice = await pendingInvoice(live);
      const page = await client.get(`/console/live/invoices/${liveInvoice}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('Void the invoice');
      expect(page.text).not.toContain('Mark as paid');
      expect((await act(client, `/console/live/invoices/${liveInvoice}`, `/console/live/invoices/${liveInvoice}/void`)).status).toBe(403);
      expect((await act(client, `/console/live/invoices/${liveInvoice}`, `/console/live/invoices/${liveInvoice}/mark-paid`)).status).toBe(403);
      expect((await act(client, `/console/live/invoices/${liveInvoice}`, `/console/live/invoices/${liveInvoice}/refunds`)).status).toBe(403);
      expect(await invoiceStatus(live, liveInvoice)).toBe('PENDING');
      // The live invoice is not in the test mode.
      expect((await client.get(`/console/test/invoices/${liveInvoice}`)).status).toBe(404);
    });

    it('admin: every invoice action in live mode too', async () => {
      const { client } = await addMember(org.owner, 'admin');
      const live = new Api(org.liveKey);
      const liveInvoice = await pendingInvoice(live);
      expect((await client.get(`/console/live/invoices/${liveInvoice}`)).text).toContain('Mark as paid');
      expect((await act(client, `/console/live/invoices/${liveInvoice}`, `/console/live/invoices/${liveInvoice}/void`)).status).toBe(200);
      expect(await invoiceStatus(live, liveInvoice)).toBe('VOIDED');
    });
  });
});

describe('management console: a new invoice', () => {
  it('creates an invoice of one amount as the API does (exact price, customer email), audits it, and refuses a bad amount naming the field', async () => {
    const org = await consoleOrg();
    const test = new Api(org.testKey);
    const list = await org.owner.get('/console/test/invoices');
    expect(list.text).toContain('href="/console/test/invoices/new"');
    const email = `new-${Date.now()}@example.com`;
    const created = await act(org.owner, '/console/test/invoices/new', '/console/test/invoices/new', {
      price: '19.99',
      currency: 'eur',
      customer_email: email,
    });
    expect(created.status).toBe(303);
    const id = /\/console\/test\/invoices\/(invoice_[^/?]+)$/.exec(created.location ?? '')![1];
    const read = expectSuccess(await test.get(`/invoices/${id}`));
    expect(read).toMatchObject({ status: 'PENDING', currency: 'EUR', customer_email: email, price: '19.990000000000000000000000000000' });
    expect((await org.owner.get(created.location!)).status).toBe(200);
    const audit = await sql<{ action: string; target: string; mode: string }>(
      `SELECT action, target, mode FROM console_audit_log WHERE organization_id = $1 AND action = 'invoice.create'`,
      [org.organizationId],
    );
    expect(audit).toEqual([{ action: 'invoice.create', target: id, mode: 'test' }]);

    // The API's validation: a bad amount is a 400 page that names the field and keeps what was typed; nothing is created.
    const before = expectSuccess(await test.post('/invoices/list', {})).total;
    const bad = await act(org.owner, '/console/test/invoices/new', '/console/test/invoices/new', { price: '12,50', currency: 'USD', customer_email: '' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/role="alert">Invalid request: items\.0\.price [^<]+</);
    expect(bad.text).toContain('value="12,50"');
    expect(expectSuccess(await test.post('/invoices/list', {})).total).toBe(before);
  });

  it('roles: an analyst has no link and is refused; a developer creates in test mode only', async () => {
    const org = await consoleOrg();
    const analyst = (await addMember(org.owner, 'analyst')).client;
    expect((await analyst.get('/console/test/invoices')).text).not.toContain('/invoices/new"');
    expect((await analyst.get('/console/test/invoices/new')).status).toBe(403);
    const csrf = ConsoleClient.csrfOf((await analyst.get('/console/test/invoices')).text);
    expect((await analyst.post('/console/test/invoices/new', { _csrf: csrf, price: '5', currency: 'USD' })).status).toBe(403);

    const dev = (await addMember(org.owner, 'developer')).client;
    expect((await act(dev, '/console/test/invoices/new', '/console/test/invoices/new', { price: '5', currency: 'USD' })).status).toBe(303);
    expect((await dev.get('/console/live/invoices')).text).not.toContain('/invoices/new"');
    const liveCsrf = ConsoleClient.csrfOf((await dev.get('/console/live/invoices')).text);
    expect((await dev.post('/console/live/invoices/new', { _csrf: liveCsrf, price: '5', currency: 'USD' })).status).toBe(403);
    expect(expectSuccess(await new Api(org.liveKey).post('/invoices/list', {})).total).toBe(0);
  });
  it("changes a pending invoice's currency as the API does (re-quoted, audited); refuses an unknown one naming the field; not on another organization's invoice or for an analyst", async () => {
    const org = await consoleOrg();
    const test = new Api(org.testKey);
    const id = await pendingInvoice(test, '20');
    const page = await org.owner.get(`/console/test/invoices/${id}`);
    expect(page.text).toContain(`action="/console/test/invoices/${id}/currency"`);
    const changed = await act(org.owner, `/console/test/invoices/${id}`, `/console/test/invoices/${id}/currency`, { currency: 'eur' });
    expect(changed.status).toBe(200);
    expect(changed.text).toContain('role="status">The invoice is now priced in EUR.<');
    const read = expectSuccess(await test.get(`/invoices/${id}`));
    expect(read.currency).toBe('EUR');
    // The API's own change of a twin invoice gives the same quote at the same rates.
    const twin = await pendingInvoice(test, '20');
    expectSuccess(await test.put(`/invoices/${twin}`, { currency: 'EUR' }));
    expect(expectSuccess(await test.get(`/invoices/${twin}`)).price).toBe(read.price);

    const bad = await act(org.owner, `/console/test/invoices/${id}`, `/console/test/invoices/${id}/currency`, { currency: 'XYZ' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/role="alert">Invalid request: currency [^<]+</);
    expect(expectSuccess(await test.get(`/invoices/${id}`)).currency).toBe('EUR');

    const other = await consoleOrg();
    const theirs = await pendingInvoice(new Api(other.testKey));
    expect((await act(org.owner, `/console/test/invoices/${id}`, `/console/test/invoices/${theirs}/currency`, { currency: 'EUR' })).status).toBe(404);
    expect(expectSuccess(await new Api(other.testKey).get(`/invoices/${theirs}`)).currency).toBe('USD');
    const analyst = (await addMember(org.owner, 'analyst')).client;
    expect((await analyst.get(`/console/test/invoices/${id}`)).text).not.toContain('/currency"');
    expect((await act(analyst, `/console/test/invoices/${id}`, `/console/test/invoices/${id}/currency`, { currency: 'USD' })).status).toBe(403);
    const audit = await sql<{ action: string; target: string; actor_type: string }>(
      `SELECT action, target, actor_type FROM console_audit_log WHERE organization_id = $1 AND action = 'invoice.change_currency' ORDER BY created_at`,
      [org.organizationId],
    );
    // The member's change, then the key's (of the twin); the refused and forbidden ones are not recorded.
    expect(audit).toEqual([
      { action: 'invoice.change_currency', target: id, actor_type: 'member' },
      { action: 'invoice.change_currency', target: twin, actor_type: 'key' },
    ]);
  });
});
