import Decimal from 'decimal.js';
import type { Page } from 'playwright-core';
import { anonymous, baseUrl } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { fetchOpenApi } from '../../support/openapi';
import { Browser, DESKTOP, launchBrowser, openPage, PHONE, screenshots, see, seriousViolations } from './browser';

/**
 * The hosted checkout page in a real Chromium against the shared test service: what the payer
 * sees, the live state driven by simulated payments (test helpers, with the merchant's key), the
 * currency change, accessibility (axe-core) and screenshots of each state at phone and desktop size.
 */

const TICKERS: Record<string, string> = { BITCOIN: 'BTC', ETHEREUM: 'ETH' };

/** The page's own reading of an amount: the exact decimal, trailing zeros trimmed, grouped for English, coins by ticker. */
function shown(amount: string, currency: string): string {
  const [whole, frac = ''] = amount.split('.');
  const fraction = frac.replace(/0+$/, '');
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction ? `.${fraction}` : ''} ${TICKERS[currency] ?? currency}`;
}

/** How the page reads a price or total (not an amount to send): rounded half-up to the currency's decimals first. */
function shownPrice(amount: string, currency: string): string {
  const places = currency === 'BITCOIN' ? 8 : 2;
  return shown(new Decimal(amount).toDecimalPlaces(places, Decimal.ROUND_HALF_UP).toFixed(), currency);
}

/** The page with fast polling and redirect, so tests wait on the page's state, never on sleeps. */
const pageUrl = (invoiceId: string, query = '', redirectMs = 800) => `${baseUrl()}/checkout/${invoiceId}?poll_ms=300&redirect_ms=${redirectMs}${query}`;

async function createInvoice(org: TestOrg, body: Record<string, unknown> = {}): Promise<string> {
  const res = await org.test.post('/invoices/create', {
    items: [
      { type: 'PAYMENT_INTENT', currency: 'USD', price: '12.50' },
      { type: 'PAYMENT_INTENT', currency: 'USD', price: '7.25' },
    ],
    customer_email: 'payer@example.com',
    ...body,
  });
  return expectSuccess<{ id: string }>(res, 201).id;
}

async function providerOf(invoiceId: string, providerId: string): Promise<{ price: string; currency: string; metadata: { required_confirmations: number } }> {
  const providers = expectSuccess<{ providers: any[] }>(await anonymous().get(`/providers/${invoiceId}`)).providers;
  const provider = providers.find((p) => p.id === providerId);
  if (!provider) throw new Error(`${providerId} is not offered for ${invoiceId}`);
  return provider;
}

async function expectAccessible(page: Page): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
}

async function statusText(page: Page): Promise<string> {
  return (await page.locator('#status').innerText()).replace(/\s+/g, ' ').trim();
}

describe('hosted checkout page (Chromium)', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the merchant, the items and the total; choosing USDT on Ethereum shows the amount GET /providers gives', async () => {
    const org = await createOrg('Acme Coffee Roasters');
    const invoiceId = await createInvoice(org);
    const usdt = await providerOf(invoiceId, 'prov_ethereum_usdt');
    // Without PUBLIC_BASE_URL the invoice read links the page by its path (no Host header is trusted).
    const read = expectSuccess<{ checkout_url: string }>(await org.test.post(`/invoices/${invoiceId}`, {}));
    expect(read.checkout_url).toBe(`/checkout/${invoiceId}`);
    expect(expectSuccess<{ checkout_url: string }>(await anonymous().post(`/invoices/${invoiceId}`, {})).checkout_url).toBe(read.checkout_url);
    const { page, problems } = await openPage(browser, `${baseUrl()}${read.checkout_url}?poll_ms=300`);

    await see(page.locator('#merchant-name')).toHaveText('Acme Coffee Roasters');
    await expectText(page, '#items', ['12.5 USD', '7.25 USD']);
    await see(page.locator('#total')).toHaveText('19.75 USD');
    expect(await page.locator('.test-banner').innerText()).toContain('TEST MODE');
    expect(await statusText(page)).toContain('Waiting for your payment');
    await see(page.locator('#countdown')).toContainText(/Time left to pay: \d\d:\d\d/);
    expect(await page.title()).toBe('Pay Acme Coffee Roasters');
    // the providers, grouped by network, with their images
    expect(await page.locator('.network-title').allTextContents()).toEqual(expect.arrayContaining(['Ethereum network', 'Bitcoin network']));
    await expectAccessible(page);
    await screenshots(page, '01-waiting');

    await page.locator('[data-provider-id="prov_ethereum_usdt"]').click();
    await see(page.locator('#pay-amount')).toHaveText(shown(usdt.price, 'USDT'));
    // No EVM rail on this service (has_rail false): in test mode the page offers a simulated payment instead of an address.
    await see(page.locator('#test-payment')).toContainText('Test payment');
    await see(page.locator('#no-address')).toHaveCount(0);
    await see(page.locator('#payment-heading')).toBeFocused();
    await expectAccessible(page);
    await screenshots(page, '02-provider-test-payment');

    // keyboard only: back to the methods (focus follows), Tab reaches the filters, Enter on a method chooses it
    await page.locator('button', { hasText: 'Choose another method' }).press('Enter');
    await see(page.locator('#methods-title')).toBeFocused();
    await page.keyboard.press('Tab');
    await see(page.locator('.chip', { hasText: 'All' })).toBeFocused();
    await page.locator('[data-provider-id="prov_bitcoin_bitcoin"]').focus();
    await page.keyboard.press('Enter');
    await see(page.locator('#payment-heading')).toBeFocused();
    await see(page.locator('#payment-heading')).toHaveText('Bitcoin');

    // the filter chips narrow the list to stablecoins
    await page.locator('button', { hasText: 'Choose another method' }).click();
    await page.locator('.chip', { hasText: 'Stablecoins' }).click();
    const names = await page.locator('.provider-name').allInnerTexts();
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n) => /USD|Tether|Coin/.test(n))).toBe(true);
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('pays a method without a rail with the test-payment control: half, then the rest, and the invoice completes on the page', async () => {
    const org = await createOrg('Test Card Shop');
    const invoiceId = await createInvoice(org);
    const { page, problems } = await openPage(browser, pageUrl(invoiceId, '', 60_000));
    await see(page.locator('#status')).toHaveAttribute('data-state', 'waiting');

    await page.locator('[data-provider-id="prov_card_usd"]').click();
    const control = page.locator('#test-payment');
    await see(control).toBeVisible();
    expect(await control.getAttribute('role')).toBe('group');
    await see(page.locator('#test-pay-title')).toHaveText('Test payment');
    await see(control).toContainText('no money moves');
    expect(await page.locator('#test-payment button').allInnerTexts()).toEqual(['Pay the amount due', 'Pay half', 'Pay too much']);
    // Not the chain instructions: a card has no network to send on.
    const panel = await page.locator('#payment').innerText();
    expect(panel).not.toContain('Send exactly');
    expect(panel).not.toContain('null');
    await expectAccessible(page);
    await screenshots(page, '11-test-payment-card');

    await page.locator('[data-test-kind="partial"]').click();
    await see(page.locator('#status')).toHaveAttribute('data-state', 'partial');
    const partly = expectSuccess<any>(await org.test.post(`/invoices/${invoiceId}`, { expand: ['payments'] }));
    expect(partly.payments).toHaveLength(1);
    // 19.75 USD due: half of it through the USD card.
    expect(partly.payments[0]).toMatchObject({ provider_id: 'prov_card_usd', price: '9.870000000000000000000000000000', status: 'COMPLETED' });
    await see(page.locator('#status')).toContainText(`Remaining to pay: ${shown('9.88', 'USD')}`);
    // The control stays for the rest, and keeps the keyboard focus.
    await see(page.locator('[data-test-kind="partial"]')).toBeFocused();
    await expectAccessible(page);

    await page.locator('[data-test-kind="exact"]').click();
    await see(page.locator('#status')).toHaveAttribute('data-state', 'paid');
    await see(page.locator('#status')).toContainText('Thank you! The payment was received.');
    await see(page.locator('#payment')).toBeHidden();
    const paid = expectSuccess<any>(await org.test.post(`/invoices/${invoiceId}`, { expand: ['payments'] }));
    expect(paid).toMatchObject({ status: 'COMPLETED', substatus: null });
    expect(paid.payments.map((p: any) => p.price)).toEqual(['9.870000000000000000000000000000', '9.880000000000000000000000000000']);
    await screenshots(page, '12-test-payment-paid');
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('offers the test payment for Bitcoin in German; "over" pays more than due', async () => {
    const org = await createOrg('Bitcoin Testladen');
    const invoiceId = await createInvoice(org);
    const { page, problems } = await openPage(browser, pageUrl(invoiceId, '&lang=de', 60_000), PHONE);
    await page.locator('[data-provider-id="prov_bitcoin_bitcoin"]').click();
    await see(page.locator('#test-pay-title')).toHaveText('Testzahlung');
    expect(await page.locator('#test-payment button').allInnerTexts()).toEqual(['Fälligen Betrag zahlen', 'Die Hälfte zahlen', 'Zu viel zahlen']);
    await expectAccessible(page);
    await page.locator('[data-test-kind="over"]').click();
    await see(page.locator('#status')).toHaveAttribute('data-state', 'paid');
    const paid = expectSuccess<any>(await org.test.post(`/invoices/${invoiceId}`, { expand: ['payments'] }));
    expect(paid).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_OVER' });
    expect(paid.payments[0]).toMatchObject({ provider_id: 'prov_bitcoin_bitcoin', currency: 'BITCOIN' });
    expect(new Decimal(paid.payments[0].price_usd as string).gt(paid.price_usd as string)).toBe(true);
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('follows a simulated payment: "1 of 12 confirmations", then paid, then the redirect to redirect_url', async () => {
    const org = await createOrg('Confirmations Shop');
    const redirect = `${baseUrl()}/health?back=from-checkout`;
    const invoiceId = await createInvoice(org, { redirect_url: redirect });
    const usdt = await providerOf(invoiceId, 'prov_ethereum_usdt');
    // "Paid" stays 6 s before the redirect: time for the accessibility check and the screenshots.
    const { page, problems } = await openPage(browser, pageUrl(invoiceId, '', 6000));
    await see(page.locator('#status')).toHaveAttribute('data-state', 'waiting');

    const paid = expectSuccess<{ id: string; required_confirmations: number }>(
      await org.test.post('/test_helpers/payments', {
        invoice_id: invoiceId,
        provider_id: 'prov_ethereum_usdt',
        price: usdt.price,
        confirmations: 1,
        idempotency_key: 'tx-1',
      }),
      201,
    );
    expect(paid.required_confirmations).toBe(12);
    await see(page.locator('#status')).toContainText('1 of 12 confirmations');
    await see(page.locator('#status')).toContainText('Payment seen, waiting for confirmations');
    await see(page.locator('#methods')).toBeHidden();
    await expectAccessible(page);
    await screenshots(page, '03-confirmations');

    expectSuccess(await org.test.post(`/test_helpers/payments/${paid.id}/confirmations`, { confirmations: 5 }));
    await see(page.locator('#status')).toContainText('5 of 12 confirmations');

    expectSuccess(await org.test.post(`/test_helpers/payments/${paid.id}/confirmations`, { confirmations: 12 }));
    await see(page.locator('#status')).toHaveAttribute('data-state', 'paid');
    expect(await statusText(page)).toContain('Thank you! The payment was received.');
    expect(await page.locator('#status a').getAttribute('href')).toBe(redirect);
    await expectAccessible(page);
    await screenshots(page, '04-paid');

    await page.waitForURL(redirect);
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('shows the remaining amount of a partly paid invoice', async () => {
    const org = await createOrg('Partial Shop');
    const invoiceId = await createInvoice(org);
    const usdt = await providerOf(invoiceId, 'prov_ethereum_usdt');
    const half = new Decimal(usdt.price).div(2).toDecimalPlaces(6, Decimal.ROUND_DOWN).toFixed();
    const { page, problems } = await openPage(browser, pageUrl(invoiceId));
    await see(page.locator('#status')).toHaveAttribute('data-state', 'waiting');

    const payment = expectSuccess<{ invoice: { status: string } }>(
      await org.test.post('/test_helpers/payments', {
        invoice_id: invoiceId,
        provider_id: 'prov_ethereum_usdt',
        price: half,
        status: 'COMPLETED',
      }),
      201,
    );
    expect(payment.invoice.status).toBe('PARTIALLY_PAID');
    const invoice = expectSuccess<any>(await org.test.post(`/invoices/${invoiceId}`, { expand: ['payments'] }));
    const remaining = new Decimal(invoice.price_usd).minus(invoice.payments[0].price_usd).toFixed();

    await see(page.locator('#status')).toHaveAttribute('data-state', 'partial');
    await see(page.locator('#status')).toContainText(`Remaining to pay: ${shownPrice(remaining, 'USD')}`);
    // the payer can still pay the rest; the currency can no longer change
    await see(page.locator('[data-provider-id="prov_ethereum_usdt"]')).toBeVisible();
    // GET /providers prices the whole invoice, so no method shows that price any more
    await see(page.locator('.provider-price')).toHaveCount(0);
    await see(page.locator('#currency')).toBeDisabled();
    await expectAccessible(page);
    await screenshots(page, '05-partially-paid');
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('changes the currency from the page: the total and the provider amounts follow', async () => {
    const org = await createOrg('Currency Shop');
    const invoiceId = await createInvoice(org);
    const { page, problems } = await openPage(browser, pageUrl(invoiceId));
    await see(page.locator('#total')).toHaveText('19.75 USD');
    await see(page.locator('#currency')).toBeEnabled();

    await page.locator('#currency').selectOption('EUR');
    await see(page.locator('#total')).toContainText('EUR');
    const invoice = expectSuccess<any>(await anonymous().post(`/invoices/${invoiceId}`, {}));
    expect(invoice.currency).toBe('EUR');
    await see(page.locator('#total')).toHaveText(shownPrice(invoice.price, 'EUR'));
    expect(invoice.price).not.toBe('19.750000000000000000000000000000');
    const btc = await providerOf(invoiceId, 'prov_bitcoin_bitcoin');
    await see(page.locator('[data-provider-id="prov_bitcoin_bitcoin"] .provider-price')).toHaveText(shown(btc.price, 'BITCOIN'));
    await expectAccessible(page);
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('shows catalog products by name with their quantity and their price in the invoice currency', async () => {
    const org = await createOrg('Product Shop');
    const product = expectSuccess<{ id: string }>(
      await org.test.post('/products', {
        name: 'Pro plan',
        description: 'Everything',
        metadata: { internal: 'never shown' },
        schemas: [{ name: 'Setup fee', description: 'Once', currency: 'EUR', type: 'ONE_TIME', base_price: '49.99', configurations: [] }],
      }),
    );
    const full = expectSuccess<any>(await org.test.get(`/products/${product.id}`));
    const invoiceId = await createInvoice(org, {
      items: [
        { type: 'PRODUCT', product_id: product.id, billing_schema_id: full.schemas[0].id, quantity: 2 },
        { type: 'PAYMENT_INTENT', currency: 'USD', price: '5' },
      ],
      currency: 'USD',
    });
    const invoice = expectSuccess<any>(await org.test.post(`/invoices/${invoiceId}`, { expand: ['items', 'calculations'] }));
    const productItem = invoice.items.find((i: any) => i.type === 'PRODUCT');
    const steps = invoice.calculations.filter((c: any) => c.invoice_item_id === productItem.id).sort((a: any, b: any) => a.idx - b.idx);
    const inUsd = steps[steps.length - 1];
    expect(inUsd.currency).toBe('USD');

    const { page, problems } = await openPage(browser, pageUrl(invoiceId));
    await see(page.locator('#items')).toContainText('Pro plan');
    const text = await page.locator('#items').innerText();
    expect(text).toContain('Qty 2');
    expect(text).toContain(shownPrice(inUsd.price, 'USD'));
    expect(text).toContain('5 USD');
    expect(text).not.toContain('never shown');
    await see(page.locator('#total')).toHaveText(shownPrice(invoice.price, 'USD'));
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it("shows a subscription's period line by its description: plan, quantity and period", async () => {
    const org = await createOrg('Metered Shop');
    const product = expectSuccess<any>(
      await org.test.post('/products', {
        name: 'Team plan',
        description: 'Seats for the whole team',
        metadata: {},
        schemas: [
          {
            name: 'Monthly',
            description: 'Monthly',
            currency: 'USD',
            type: 'RECURRING',
            base_price: '10',
            interval_type: 'MONTH',
            interval_count: 1,
            payment_type: 'ADVANCE',
            renew_type: 'ANNIVERSARY',
            billing_type: 'FULL',
            configurations: [],
          },
        ],
      }),
    );
    const schemaId = expectSuccess<any>(await org.test.get(`/products/${product.id}`)).schemas[0].id as string;
    const sub = expectSuccess<any>(
      await org.test.post('/subscriptions', { product_id: product.id, billing_schema_id: schemaId, customer_email: 'team@example.com', quantity: 4 }),
      201,
    );
    // ADVANCE: the first period's invoice comes at its start, on the scheduler's next pass.
    let invoiceId: string | null = null;
    for (let i = 0; i < 150 && !invoiceId; i++) {
      invoiceId = expectSuccess<any>(await org.test.get(`/subscriptions/${sub.id}`)).latest_invoice_id;
      if (!invoiceId) await new Promise((r) => setTimeout(r, 200));
    }
    expect(invoiceId).not.toBeNull();
    const line = `Team plan, Monthly × 4, ${sub.current_period_start} to ${sub.current_period_end} UTC`;

    const { page, problems } = await openPage(browser, pageUrl(invoiceId!));
    await see(page.locator('.item-name')).toHaveText(line);
    // the product's description under it, as for any product line
    await see(page.locator('.item-description')).toHaveText('Seats for the whole team');
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('speaks German when asked by ?lang=de or by Accept-Language, English otherwise', async () => {
    const org = await createOrg('Sprachladen');
    const invoiceId = await createInvoice(org);

    const byQuery = await openPage(browser, pageUrl(invoiceId, '&lang=de'), PHONE);
    await see(byQuery.page.locator('#status')).toContainText('Wir warten auf Ihre Zahlung');
    expect(await byQuery.page.getAttribute('html', 'lang')).toBe('de');
    await see(byQuery.page.locator('#total')).toHaveText('19,75 USD');
    await expectAccessible(byQuery.page);
    await screenshots(byQuery.page, '06-german');
    expect(byQuery.problems.errors).toEqual([]);
    await byQuery.page.close();

    const byHeader = await openPage(browser, pageUrl(invoiceId), DESKTOP, { 'Accept-Language': 'de-CH,de;q=0.9,en;q=0.5' });
    await see(byHeader.page.locator('#status')).toContainText('Wir warten auf Ihre Zahlung');
    await byHeader.page.close();

    const english = await openPage(browser, pageUrl(invoiceId), DESKTOP, { 'Accept-Language': 'fr-FR,fr;q=0.9' });
    await see(english.page.locator('#status')).toContainText('Waiting for your payment');
    await english.page.close();
  });

  it('shows a cancelled invoice as cancelled, with nothing left to pay', async () => {
    const org = await createOrg('Voiding Shop');
    const invoiceId = await createInvoice(org);
    expectSuccess(await org.test.put(`/invoices/${invoiceId}`, { status: 'VOIDED' }));
    const { page, problems } = await openPage(browser, pageUrl(invoiceId));
    await see(page.locator('#status')).toHaveAttribute('data-state', 'voided');
    expect(await statusText(page)).toContain('This invoice was cancelled');
    await see(page.locator('#methods')).toBeHidden();
    await expectAccessible(page);
    await screenshots(page, '07-cancelled');
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('renders a live-mode invoice without the TEST MODE banner', async () => {
    const org = await createOrg('Live Shop');
    const invoiceId = expectSuccess<{ id: string }>(
      await org.live.post('/invoices/create', {
        items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '3' }],
      }),
      201,
    ).id;
    const { page, problems } = await openPage(browser, pageUrl(invoiceId));
    await see(page.locator('#total')).toHaveText('3 USD');
    await see(page.locator('.test-banner')).toHaveCount(0);
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('renders a 404 page for an unknown id, the same page whatever the id looks like', async () => {
    const org = await createOrg('Stranger');
    const paymentLike = `payment_${'0'.repeat(8)}-0000-7000-8000-${'0'.repeat(12)}`;
    const pages = await Promise.all(
      ['invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00', paymentLike, org.id, 'x'].map(async (id) => {
        const res = await fetch(`${baseUrl()}/checkout/${id}`);
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
        return res.text();
      }),
    );
    expect(new Set(pages).size).toBe(1);
    expect(pages[0]).toContain('Invoice not found');
    expect(pages[0]).not.toContain('<script');

    const { page } = await openPage(browser, `${baseUrl()}/checkout/invoice_unknown`, PHONE);
    await see(page.locator('h1')).toHaveText('Invoice not found');
    await expectAccessible(page);
    await screenshots(page, '08-not-found');
    await page.close();
  });

  it('is served under a strict Content-Security-Policy and works under it (no console errors)', async () => {
    const org = await createOrg('CSP Shop');
    const invoiceId = await createInvoice(org);
    const res = await fetch(`${baseUrl()}/checkout/${invoiceId}`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    for (const directive of [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "object-src 'none'",
    ]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*(type="module" src=|type="application\/json"))/);
    expect(html).not.toContain(org.testKey);
    // The route answers in any letter case, and so does its policy (else the page's own script is blocked).
    const capitalised = await fetch(`${baseUrl()}/Checkout/${invoiceId}`);
    expect(capitalised.status).toBe(200);
    expect(capitalised.headers.get('content-security-policy')).toBe(csp);

    const script = await fetch(`${baseUrl()}/checkout/assets/checkout.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    const qr = await fetch(`${baseUrl()}/checkout/assets/qrcode.mjs`);
    expect(qr.status).toBe(200);
    expect((await fetch(`${baseUrl()}/checkout/assets/nope.js`)).status).toBe(404);

    const { page, problems } = await openPage(browser, pageUrl(invoiceId));
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await see(page.locator('#merchant-name')).toHaveText('CSP Shop');
    await page.locator('[data-provider-id="prov_bitcoin_bitcoin"]').click();
    await see(page.locator('#pay-amount')).toContainText('BTC');
    await page.waitForTimeout(700); // two polls under the policy
    expect(violations).toEqual([]);
    expect(problems.errors).toEqual([]);
    await page.close();
  });
});

describe('hosted checkout page in the OpenAPI document', () => {
  it("describes the page route (HTML, 404 and 429 pages, lang) and the invoice's checkout_url", async () => {
    const doc = await fetchOpenApi();
    const op = doc.paths['/checkout/{invoice_id}']?.get;
    expect(op).toBeDefined();
    expect(op.responses['200'].content['text/html']).toBeDefined();
    expect(op.responses['404'].content['text/html']).toBeDefined();
    expect(op.responses['429']).toBeDefined();
    expect(op.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['invoice_id', 'lang', 'poll_ms', 'redirect_ms']));
    expect(op.description).toContain('POST /invoices/{id}/payment_address');
    const invoice = doc.components.schemas.InvoiceDto;
    expect(invoice.properties.checkout_url.description).toContain('PUBLIC_BASE_URL');
    expect(invoice.required).toContain('checkout_url');
  });
});

async function expectText(page: Page, selector: string, parts: string[]): Promise<void> {
  await see(page.locator(selector)).toContainText(parts[0]);
  const text = await page.locator(selector).innerText();
  for (const part of parts) expect(text).toContain(part);
}
