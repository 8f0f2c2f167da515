import type { Page } from 'playwright-core';
import { anonymous, Api, baseUrl } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { addMember, ConsoleOrg, consoleOrg, PASSWORD } from '../../support/console-client';
import { Browser, launchBrowser, openPage, seriousViolations } from '../checkout/browser';
import { recurringProduct } from '../subscriptions/subscription-helpers';

const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

async function paidInvoice(api: Api, email: string, price = '80'): Promise<string> {
  const invoice = expectSuccess(await api.post('/invoices/create', { customer_email: email, items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price }] }), 201)
    .id as string;
  expectSuccess(await api.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_card_usd', price, status: 'COMPLETED' }), 201);
  return invoice;
}

/** Presses Tab until the element matching `selector` has focus (a keyboard user's way there). */
async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 80; i++) {
    if (await page.evaluate((sel) => (globalThis as any).document.activeElement?.matches(sel) === true, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** The page fits 390 px: no horizontal scroll of the document. */
const scrollWidth = (page: Page) => page.evaluate(() => (globalThis as any).document.scrollingElement.scrollWidth as number);

async function signIn(page: Page, email: string): Promise<void> {
  await page.context().clearCookies();
  await page.goto(`${baseUrl()}/console/sign-in`);
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL(/\/console\/test$/);
}

/** Submits a form the page does not show, with the session's CSRF token (what a forged click would do), and answers the status. */
async function forcePost(page: Page, path: string, form: Record<string, string> = {}): Promise<number> {
  const csrf = await page.locator('input[name=_csrf]').first().getAttribute('value');
  const res = await page.request.post(`${baseUrl()}${path}`, { form: { _csrf: csrf!, ...form }, maxRedirects: 0 });
  return res.status();
}

describe('management console in Chromium: invoices, payments and refunds', () => {
  let browser: Browser;
  let org: ConsoleOrg;
  beforeAll(async () => {
    [browser, org] = await Promise.all([launchBrowser(), consoleOrg()]);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('creates an invoice from the invoices page, lands on its page with the checkout link, and the payer can open it (390 px, axe)', async () => {
    const email = `new-${Date.now()}@example.com`;
    const { page, problems } = await openPage(browser, `${baseUrl()}/console/sign-in`, { width: 390, height: 844 });
    await signIn(page, org.ownerEmail);
    await page.goto(`${baseUrl()}/console/test/invoices`);
    await page.getByRole('link', { name: 'New invoice' }).click();
    await page.waitForURL(/\/console\/test\/invoices\/new$/);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
    await page.getByLabel('Amount').fill('64.10');
    await page.getByLabel('Currency').fill('USD');
    await page.getByLabel('Customer email (optional)').fill(email);
    await page.getByRole('button', { name: 'Create invoice' }).click();
    await page.waitForURL(/\/console\/test\/invoices\/invoice_[^/]+$/);
    const id = page.url().split('/').pop()!;
    const read = expectSuccess(await new Api(org.testKey).get(`/invoices/${id}`));
    expect(read).toMatchObject({ status: 'PENDING', customer_email: email, price: '64.100000000000000000000000000000' });
    const checkout = await page.locator('#checkout-link').getAttribute('href');
    expect(checkout).toBeTruthy();
    expect((await anonymous().get(new URL(checkout!, baseUrl()).pathname)).status).toBe(200);
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('finds an invoice by customer email with the keyboard alone, refunds it, and sees the refund complete (390 px, axe, CSP)', async () => {
    const email = `buyer-${Date.now()}@example.com`;
    const api = new Api(org.testKey);
    const invoice = await paidInvoice(api, email);
    await paidInvoice(api, `someone-else-${Date.now()}@example.com`);

    const { page, problems } = await openPage(browser, `${baseUrl()}/console/sign-in`, { width: 390, height: 844 });
    await signIn(page, org.ownerEmail);

    // Keyboard only: from the overview, Tab to "Invoices", Enter; Tab to the customer field, type, Enter; Tab to the invoice, Enter.
    await tabTo(page, 'nav a[href="/console/test/invoices"]');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/console\/test\/invoices$/);
    expect(await seriousViolations(page)).toEqual([]);
    await tabTo(page, '#f-email');
    await page.keyboard.type(email);
    await page.keyboard.press('Enter');
    await page.waitForURL(/customer_email=/);
    expect(await page.locator('a[href^="/console/test/invoices/invoice_"]').count()).toBe(1);
    await tabTo(page, `a[href="/console/test/invoices/${invoice}"]`);
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/console/test/invoices/${invoice}$`));
    expect(await seriousViolations(page)).toEqual([]);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
    expect(await page.locator('.badge').textContent()).toBe('Test mode');

    // A currency the service does not know is refused on the page, naming the field; nothing is refunded.
    await page.fill('#refund-amount', '30');
    await page.fill('#refund-currency', 'FOO');
    await page.getByRole('button', { name: 'Refund' }).click();
    await page.waitForSelector('[role=alert]');
    expect(await page.locator('[role=alert]').textContent()).toContain('currency must be one of');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
    expect(expectSuccess(await api.get(`/refunds?invoice_id=${invoice}`)).items).toHaveLength(0);

    // Refund 30 of it, in the invoice's currency (the field left empty).
    await page.fill('#refund-currency', '');
    await page.fill('#refund-amount', '30');
    await page.fill('#refund-reason', 'Returned');
    await page.getByRole('button', { name: 'Refund' }).click();
    await page.waitForURL(/\/console\/test\/refunds\/refund_/);
    const refundId = page.url().split('/').pop()!;
    expect(await page.locator('#refund-status').textContent()).toBe('AWAITING_DESTINATION');
    const claimUrl = (await page.locator('#claim-url').textContent())!;
    expect(await seriousViolations(page)).toEqual([]);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390);

    // The payer names an address on the claim page's API; the test-mode payout finishes it.
    const token = new URL(claimUrl, 'http://x').pathname.split('/').pop()!;
    expectSuccess(await anonymous().post(`/refund_claims/${token}`, { provider_id: 'prov_ethereum_usdt', address: ADDRESS }));
    await page.reload();
    expect(await page.locator('#refund-status').textContent()).toBe('AWAITING_PAYOUT');
    // The page follows the refund by itself (htmx, every 5 s): no reload.
    await page.evaluate(() => ((globalThis as any).document.body.dataset.kept = 'yes'));
    expectSuccess(await api.post(`/test_helpers/refunds/${refundId}/payout`, { result: 'paid' }));
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#refund-status')?.textContent === 'COMPLETED', null, { timeout: 20_000 });
    expect(await page.evaluate(() => (globalThis as any).document.body.dataset.kept)).toBe('yes');
    expect(await page.getByRole('button', { name: 'Cancel the refund' }).count()).toBe(0);
    expect(await page.locator('main').textContent()).toContain(`simulated:${refundId}`);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
    expect(await seriousViolations(page)).toEqual([]);

    // The invoice shows the completed refund and its events.
    await page.getByRole('link', { name: invoice }).click();
    await page.waitForURL(new RegExp(`/console/test/invoices/${invoice}$`));
    expect(await page.locator(`a[href="/console/test/refunds/${refundId}"]`).count()).toBe(1);
    expect(await page.locator('#events-h + p + .scroll').textContent()).toContain('refund.completed');
    // The one problem the browser saw: the refused refund's answer (400).
    expect(problems.errors).toEqual([expect.stringContaining(`status of 400 (Bad Request) (${baseUrl()}/console/test/invoices/${invoice}/refunds)`)]);
    await page.close();
  });

  it('overview, payments, refunds, subscriptions, customer, product and wallet pages fit 390 px with no serious axe violation (English and German); the status filter swaps only the list (htmx)', async () => {
    const api = new Api(org.testKey);
    await paidInvoice(api, `list-${Date.now()}@example.com`);
    const { page, problems } = await openPage(browser, `${baseUrl()}/console/sign-in`, { width: 390, height: 844 });
    await signIn(page, org.ownerEmail);
    const email = `sub-browser-${Date.now()}@example.com`;
    const plan = await recurringProduct(api, { payment_type: 'ADVANCE', renew_type: 'CALENDAR', billing_type: 'FULL' });
    const sub = expectSuccess(await api.post('/subscriptions', { product_id: plan.productId, billing_schema_id: plan.schemaId, customer_email: email }), 201)
      .id as string;
    await paidInvoice(api, email);
    for (const path of [
      '/console/test',
      '/console/test/payments',
      '/console/test/refunds',
      '/console/live/payments',
      '/console/live/refunds',
      '/console/test/subscriptions',
      `/console/test/subscriptions/${sub}`,
      '/console/test/customers',
      `/console/test/customers?email=${encodeURIComponent(email)}`,
      `/console/test/customers?email=${encodeURIComponent(email)}&lang=de`,
      '/console/test/products',
      `/console/test/products/${plan.productId}`,
      '/console/test/wallets',
      '/console/live/wallets?lang=de',
      '/console/test/refunds?lang=en',
    ]) {
      await page.goto(`${baseUrl()}${path}`);
      expect({ path, violations: await seriousViolations(page) }).toEqual({ path, violations: [] });
      expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
      expect(await page.locator('.badge').count()).toBe(1);
    }
    await page.goto(`${baseUrl()}/console/test/payments`);
    await page.waitForFunction(() => typeof (globalThis as any).htmx !== 'undefined');
    expect(await page.locator('a[href^="/console/test/payments/payment_"]').count()).toBeGreaterThan(0);
    // A mark on the document survives the filter: the page was not reloaded, only #list was swapped.
    await page.evaluate(() => ((globalThis as any).document.body.dataset.kept = 'yes'));
    await page.selectOption('#f-status', 'FAILED');
    await page.waitForURL(/status=FAILED/);
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('a[href^="/console/test/payments/payment_"]').length === 0);
    expect(await page.evaluate(() => (globalThis as any).document.body.dataset.kept)).toBe('yes');
    expect(await page.locator('#list').count()).toBe(1);
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it.each([
    ['admin', { void: true, markPaid: true, refund: true, cancel: true }],
    ['developer', { void: true, markPaid: true, refund: true, cancel: true }],
    ['support', { void: true, markPaid: false, refund: true, cancel: true }],
    ['analyst', { void: false, markPaid: false, refund: false, cancel: false }],
  ] as const)('%s in test mode: the actions the role may not take are absent from the pages and refused by the server', async (role, allowed) => {
    const api = new Api(org.testKey);
    const { email } = await addMember(org.owner, role);
    const pending = expectSuccess(await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '9' }] }), 201).id as string;
    const paid = await paidInvoice(api, `${role}-${Date.now()}@example.com`);
    const refund = expectSuccess(await api.post(`/invoices/${paid}/refunds`, { amount: '1' }), 201).id as string;
    const { page, problems } = await openPage(browser, `${baseUrl()}/console/sign-in`);
    await signIn(page, email);

    await page.goto(`${baseUrl()}/console/test/invoices/${pending}`);
    expect(await page.getByRole('button', { name: 'Void the invoice' }).count()).toBe(allowed.void ? 1 : 0);
    expect(await page.getByRole('button', { name: 'Mark as paid' }).count()).toBe(allowed.markPaid ? 1 : 0);
    if (!allowed.void) expect(await forcePost(page, `/console/test/invoices/${pending}/void`)).toBe(403);
    if (!allowed.markPaid) expect(await forcePost(page, `/console/test/invoices/${pending}/mark-paid`)).toBe(403);
    await page.goto(`${baseUrl()}/console/test/invoices/${paid}`);
    expect(await page.getByRole('button', { name: 'Refund', exact: true }).count()).toBe(allowed.refund ? 1 : 0);
    if (!allowed.refund) expect(await forcePost(page, `/console/test/invoices/${paid}/refunds`, { amount: '1' })).toBe(403);
    await page.goto(`${baseUrl()}/console/test/refunds/${refund}`);
    expect(await page.getByRole('button', { name: 'Cancel the refund' }).count()).toBe(allowed.cancel ? 1 : 0);
    if (!allowed.cancel) expect(await forcePost(page, `/console/test/refunds/${refund}/cancel`)).toBe(403);
    // Nothing a refusal touched has changed.
    expect(expectSuccess(await api.get(`/invoices/${pending}`)).status).toBe('PENDING');
    expect(expectSuccess(await api.get(`/refunds/${refund}`)).status).toBe('AWAITING_DESTINATION');
    expect(expectSuccess(await api.get(`/refunds?invoice_id=${paid}`)).items).toHaveLength(1);
    // A developer has none of them in live mode.
    if (role === 'developer') {
      const live = new Api(org.liveKey);
      const livePending = expectSuccess(await live.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '9' }] }), 201)
        .id as string;
      await page.goto(`${baseUrl()}/console/live/invoices/${livePending}`);
      expect(await page.getByRole('button', { name: 'Void the invoice' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Mark as paid' }).count()).toBe(0);
      expect(await forcePost(page, `/console/live/invoices/${livePending}/void`)).toBe(403);
      expect(await forcePost(page, `/console/live/invoices/${livePending}/mark-paid`)).toBe(403);
      expect(expectSuccess(await live.get(`/invoices/${livePending}`)).status).toBe('PENDING');
    }
    expect(problems.errors).toEqual([]);
    await page.close();
  });
});
