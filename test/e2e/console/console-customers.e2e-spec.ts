import { anonymous, Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { addMember, ConsoleClient, ConsoleOrg, consoleOrg, sql } from '../../support/console-client';
import { readSubscription, recurringProduct, schedulerPass, waitFor } from '../subscriptions/subscription-helpers';

const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

async function subscribe(api: Api, email: string): Promise<string> {
  const plan = await recurringProduct(api, { payment_type: 'ADVANCE', renew_type: 'CALENDAR', billing_type: 'FULL', base_price: 10 });
  return expectSuccess(await api.post('/subscriptions', { product_id: plan.productId, billing_schema_id: plan.schemaId, customer_email: email }), 201)
    .id as string;
}

async function paidInvoice(api: Api, email: string, price: string): Promise<string> {
  const invoice = expectSuccess(await api.post('/invoices/create', { customer_email: email, items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price }] }), 201)
    .id as string;
  expectSuccess(await api.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_card_usd', price, status: 'COMPLETED' }), 201);
  return invoice;
}

const subStatus = async (api: Api, id: string) => expectSuccess<{ status: string; cancel_at_period_end: boolean }>(await api.get(`/subscriptions/${id}`));

describe('management console: subscriptions and customers', () => {
  let org: ConsoleOrg;
  let test: Api;
  beforeAll(async () => {
    org = await consoleOrg();
    test = new Api(org.testKey);
  });

  it('a subscription page shows its terms, the periods billed and the usage so far; cancel at the period end, then now', async () => {
    const email = `sub-${Date.now()}@example.com`;
    const id = await subscribe(test, email);
    const list = await org.owner.get(`/console/test/subscriptions?customer_email=${encodeURIComponent(email)}`);
    expect(list.status).toBe(200);
    expect(list.text).toContain(`href="/console/test/subscriptions/${id}"`);
    expect((await org.owner.get('/console/test/subscriptions?status=CANCELED')).text).not.toContain(id);

    // The scheduler issues the first (ADVANCE) period's invoice.
    await waitFor(
      () => readSubscription(test, id),
      (s: { latest_invoice_id: string | null }) => !!s.latest_invoice_id,
      30_000,
      schedulerPass(test),
    );
    const page = await org.owner.get(`/console/test/subscriptions/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<span id="subscription-status">ACTIVE</span>');
    expect(page.text).toContain(email);
    // The period invoice of an ADVANCE subscription is its first period.
    const sub = expectSuccess(await test.get(`/subscriptions/${id}`));
    expect(sub.latest_invoice_id).toMatch(/^invoice_/);
    expect(page.text).toContain(`href="/console/test/invoices/${sub.latest_invoice_id}"`);
    expect(page.text).toContain('id="upcoming-total"');

    const later = await org.owner.submit(`/console/test/subscriptions/${id}`, `/console/test/subscriptions/${id}/cancel`, { when: 'period_end' });
    expect(later.status).toBe(200);
    expect(await subStatus(test, id)).toMatchObject({ status: 'ACTIVE', cancel_at_period_end: true });
    const now = await org.owner.submit(`/console/test/subscriptions/${id}`, `/console/test/subscriptions/${id}/cancel`, { when: 'now' });
    expect(now.status).toBe(200);
    expect(now.text).toContain('<span id="subscription-status">CANCELED</span>');
    expect(now.text).not.toContain('Cancel now');
    expect((await subStatus(test, id)).status).toBe('CANCELED');
    const audit = await sql<{ action: string }>(`SELECT action FROM console_audit_log WHERE organization_id = $1 AND target = $2 ORDER BY created_at`, [
      org.organizationId,
      id,
    ]);
    expect(audit.map((a) => a.action)).toEqual(['subscription.cancel_at_period_end', 'subscription.cancel']);
    // Canceling again is refused by the subscription's state.
    expect((await org.owner.post(`/console/test/subscriptions/${id}/cancel`, { _csrf: ConsoleClient.csrfOf(now.text), when: 'now' })).status).toBe(400);
  });

  it('a customer by email: totals in exact USD (paid, refunded, net), invoices and subscriptions', async () => {
    const email = `cust-${Date.now()}@example.com`;
    const a = await paidInvoice(test, email, '100');
    const b = await paidInvoice(test, email, '50.25');
    const pending = expectSuccess(
      await test.post('/invoices/create', { customer_email: email, items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '7' }] }),
      201,
    ).id;
    await paidInvoice(test, `someone-${Date.now()}@example.com`, '999');
    const refund = expectSuccess(await test.post(`/invoices/${a}/refunds`, { amount: '30' }), 201);
    const token = new URL(refund.claim_url as string, 'http://x').pathname.split('/').pop()!;
    expectSuccess(await anonymous().post(`/refund_claims/${token}`, { provider_id: 'prov_ethereum_usdt', address: ADDRESS }));
    expectSuccess(await test.post(`/test_helpers/refunds/${refund.id}/payout`, { result: 'paid' }));
    const sub = await subscribe(test, email);

    const page = await org.owner.get(`/console/test/customers?email=${encodeURIComponent(email)}`);
    expect(page.status).toBe(200);
    for (const id of [a, b, pending]) expect(page.text).toContain(`href="/console/test/invoices/${id}"`);
    expect(page.text).toContain(`href="/console/test/subscriptions/${sub}"`);
    const figure = (id: string) => new RegExp(`id="${id}">([^<]+)<`).exec(page.text)![1];
    expect(figure('paid-usd')).toBe(`150.25${'0'.repeat(28)}`);
    expect(figure('refunded-usd')).toMatch(/^30\.0+$/);
    expect(figure('net-usd')).toBe(`120.25${'0'.repeat(28)}`);
    // The empty search is a form only; the live mode has none of it.
    expect((await org.owner.get('/console/test/customers')).status).toBe(200);
    const live = await org.owner.get(`/console/live/customers?email=${encodeURIComponent(email)}`);
    expect(live.text).not.toContain(a);
  });

  it("answers 404 for another organization's subscription, on the page and the cancel", async () => {
    const other = await consoleOrg();
    const id = await subscribe(new Api(other.testKey), 'foreign-sub@example.com');
    expect((await org.owner.get(`/console/test/subscriptions/${id}`)).status).toBe(404);
    expect((await org.owner.submit('/console/test/subscriptions', `/console/test/subscriptions/${id}/cancel`, { when: 'now' })).status).toBe(404);
    expect((await subStatus(new Api(other.testKey), id)).status).toBe('ACTIVE');
    // Its customer is not this organization's.
    expect((await org.owner.get('/console/test/customers?email=foreign-sub%40example.com')).text).not.toContain(id);
  });

  it.each([
    ['analyst', false, false],
    ['support', true, true],
    ['developer', true, false],
  ] as const)('%s: cancel allowed in test mode %s, in live mode %s (absent from the page and refused otherwise)', async (role, inTest, inLive) => {
    const { client } = await addMember(org.owner, role);
    for (const [mode, key, allowed] of [
      ['test', org.testKey, inTest],
      ['live', org.liveKey, inLive],
    ] as const) {
      const api = new Api(key);
      const id = await subscribe(api, `${role}-${mode}-${Date.now()}@example.com`);
      const page = await client.get(`/console/${mode}/subscriptions/${id}`);
      expect(page.status).toBe(200);
      expect({ mode, shown: page.text.includes('Cancel now') }).toEqual({ mode, shown: allowed });
      const res = await client.submit(`/console/${mode}/subscriptions/${id}`, `/console/${mode}/subscriptions/${id}/cancel`, { when: 'now' });
      expect({ mode, status: res.status }).toEqual({ mode, status: allowed ? 200 : 403 });
      expect((await subStatus(api, id)).status).toBe(allowed ? 'CANCELED' : 'ACTIVE');
    }
  });
  it("overview: refunds netted, payment methods by volume and top customers, the dashboard's own figures", async () => {
    const email = `top-${Date.now()}@example.com`;
    await paidInvoice(test, email, '310.25');
    const page = await org.owner.get('/console/test?period=last_30_days');
    expect(page.status).toBe(200);
    const dashboard = expectSuccess(await test.post('/analytics/dashboard', { period: 'last_30_days' }));
    // The same exact figures as the API's dashboard, as decimal strings.
    expect(page.text).toContain(`<dd>${dashboard.refunds.refunded_usd}</dd>`);
    expect(page.text).toContain(`<dd>${dashboard.net_volume_usd}</dd>`);
    const card = dashboard.providers.find((p: { provider_id: string }) => p.provider_id === 'prov_card_usd');
    expect(card).toBeDefined();
    expect(page.text).toContain(`<td class="num">${card.volume_usd}</td>`);
    expect(page.text).toContain('id="chart-providers"');
    const top = dashboard.customers.top.find((t: { customer_email: string }) => t.customer_email === email);
    expect(top).toMatchObject({ paid_volume_usd: '310.250000000000000000000000000000' });
    expect(page.text).toContain(`href="/console/test/customers?email=${encodeURIComponent(email)}">${email}</a>`);
    expect(page.text).toContain(`<td class="num">${top.paid_volume_usd}</td>`);
  });
});
