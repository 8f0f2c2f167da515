import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { createDatabase, dropDatabase } from '../../support/pg';
import { ADMIN_TOKEN, freePort, RunningServer, startServer } from '../../support/server';
import { Browser, launchBrowser, openPage, screenshots, see, seriousViolations } from './browser';

/**
 * The checkout page on a service of its own: a movable clock (expiry), PUBLIC_BASE_URL for the
 * page's links and checkout_url, and CHECKOUT_FRAME_ANCESTORS for merchants who embed the page.
 */
describe('hosted checkout page: settings and expiry (own service)', () => {
  let server: RunningServer;
  let databaseUrl: string | null = null;
  let browser: Browser;
  let publicBase: string;
  let merchant: Api;

  beforeAll(async () => {
    const port = await freePort();
    publicBase = `http://127.0.0.1:${port}`;
    const env = { CLOCK_CONTROL: 'true', PUBLIC_BASE_URL: `${publicBase}/`, CHECKOUT_FRAME_ANCESTORS: "'self' https://shop.example.com" };
    const pgServer = process.env.TEST_PG_SERVER_URL;
    if (pgServer) {
      databaseUrl = await createDatabase(pgServer);
      server = await startServer({ databaseUrl, env, port });
    } else {
      server = await startServer({ dataDir: mkdtempSync(join(tmpdir(), 'ipa-checkout-')), env, port });
    }
    const res = await new Api(null, server.baseUrl).post('/admin/organizations', { name: 'Clockwork Goods' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
    merchant = new Api(res.body.data.test_key, server.baseUrl);
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (databaseUrl && process.env.TEST_PG_SERVER_URL) await dropDatabase(process.env.TEST_PG_SERVER_URL, databaseUrl);
  });

  const createInvoice = async () =>
    expectSuccess<{ id: string }>(
      await merchant.post('/invoices/create', {
        items: [{ type: 'PAYMENT_INTENT', currency: 'EUR', price: '49.90' }],
      }),
      201,
    ).id;

  it("builds checkout_url and the page's links on PUBLIC_BASE_URL, and lets the configured origins frame the page", async () => {
    const invoiceId = await createInvoice();
    const invoice = expectSuccess<{ checkout_url: string }>(await merchant.post(`/invoices/${invoiceId}`, {}));
    expect(invoice.checkout_url).toBe(`${publicBase}/checkout/${invoiceId}`);
    const listed = expectSuccess<{ items: Array<{ id: string; checkout_url: string }> }>(await merchant.post('/invoices/list', {}));
    expect(listed.items.find((i) => i.id === invoiceId)?.checkout_url).toBe(invoice.checkout_url);

    // A forged Host header changes nothing in the page's links.
    const res = await fetch(invoice.checkout_url, { headers: { Host: 'evil.example.com' } });
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'self' https://shop.example.com");
    expect(csp).toContain(`script-src 'self' ${publicBase}`);
    expect(res.headers.get('x-frame-options')).toBeNull();
    const html = await res.text();
    expect(html).toContain(`<script type="module" src="${publicBase}/checkout/assets/checkout.js?v=`);
    expect(html).toContain(`data-api-base="${publicBase}"`);
    expect(html).not.toContain('evil.example.com');

    const { page, problems } = await openPage(browser, `${invoice.checkout_url}?poll_ms=300`);
    await see(page.locator('#total')).toHaveText('49.9 EUR');
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('moves the open page to "expired" when the invoice expires', async () => {
    const invoiceId = await createInvoice();
    const { page, problems } = await openPage(browser, `${publicBase}/checkout/${invoiceId}?poll_ms=300`);
    await see(page.locator('#status')).toHaveAttribute('data-state', 'waiting');
    await see(page.locator('#countdown')).toBeVisible();

    expectSuccess(await merchant.post('/test_helpers/clock', { advance_seconds: 16 * 60 }));
    await see(page.locator('#status')).toHaveAttribute('data-state', 'expired');
    await see(page.locator('#status')).toContainText('This invoice has expired');
    await see(page.locator('#methods')).toBeHidden();
    await see(page.locator('#countdown')).toBeHidden();
    await see(page.locator('#currency')).toBeDisabled();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, '09-expired');
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it("counts down on the organization's moved test clock, not on the browser's", async () => {
    const invoiceId = expectSuccess<{ id: string }>(
      await merchant.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'EUR', price: '12' }], expires_in_minutes: 240 }),
      201,
    ).id;
    // Three of its four hours pass on the test clock: one hour is left, whatever the browser's clock says.
    expectSuccess(await merchant.post('/test_helpers/clock', { advance_seconds: 3 * 3600 }));
    const { page, problems } = await openPage(browser, `${publicBase}/checkout/${invoiceId}?poll_ms=300`);
    await see(page.locator('#status')).toHaveAttribute('data-state', 'waiting');
    await see(page.locator('#countdown')).toContainText(/^Time left to pay: 59:[0-5]\d$/);
    const first = await page.locator('#countdown').innerText();
    // It goes on counting down, once a second.
    await new Promise((r) => setTimeout(r, 2_100));
    const later = await page.locator('#countdown').innerText();
    expect(later).toMatch(/^Time left to pay: (59|58):[0-5]\d$/);
    expect(later).not.toBe(first);
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('is off with PUBLIC_PAYER_ACCESS=false (a 404 page for every id) and answers over the anonymous budget with a 429 page', async () => {
    const port = await freePort();
    const pgServer = process.env.TEST_PG_SERVER_URL;
    const db = pgServer ? await createDatabase(pgServer) : null;
    const env = { PUBLIC_PAYER_ACCESS: 'false', RATE_LIMIT_ANONYMOUS: '2', RATE_LIMIT_WINDOW_MS: '60000' };
    const closed = db
      ? await startServer({ databaseUrl: db, env, port })
      : await startServer({ dataDir: mkdtempSync(join(tmpdir(), 'ipa-checkout-')), env, port });
    try {
      const res = await new Api(null, closed.baseUrl).post('/admin/organizations', { name: 'Closed Shop' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
      const shop = new Api(res.body.data.test_key, closed.baseUrl);
      const invoiceId = expectSuccess<{ id: string }>(
        await shop.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '1' }] }),
        201,
      ).id;
      const first = await fetch(`${closed.baseUrl}/checkout/${invoiceId}`);
      expect(first.status).toBe(404);
      expect(await first.text()).toContain('Invoice not found');
      expect(first.headers.get('ratelimit-limit')).toBe('2');
      expect((await fetch(`${closed.baseUrl}/checkout/${invoiceId}`)).status).toBe(404);
      const over = await fetch(`${closed.baseUrl}/checkout/${invoiceId}?lang=de`);
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(over.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await over.text()).toContain('Zu viele Anfragen');
    } finally {
      await closed.stop();
      if (db && pgServer) await dropDatabase(pgServer, db);
    }
  }, 120_000);
});
