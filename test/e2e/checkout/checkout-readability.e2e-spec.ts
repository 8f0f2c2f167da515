import Decimal from 'decimal.js';
import { anonymous, baseUrl } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { Browser, DESKTOP, launchBrowser, openPage, PHONE, screenshots, see, seriousViolations } from './browser';

/**
 * What a payer reads on the hosted checkout page, in Chromium: badges that need no font, amounts at the
 * decimals that matter, payment-intent lines by what they ask, and a currency choice grouped as payers
 * look for it.
 */

const pageUrl = (invoiceId: string, query = '') => `${baseUrl()}/checkout/${invoiceId}?poll_ms=300${query}`;

async function createInvoice(org: TestOrg, body: Record<string, unknown>): Promise<string> {
  return expectSuccess<{ id: string }>(await org.test.post('/invoices/create', { customer_email: 'payer@example.com', ...body }), 201).id;
}

/** The exact decimal with its trailing zeros trimmed and grouped for English: how the page reads an amount to send. */
function trimmed(amount: string): string {
  const [whole, frac = ''] = amount.split('.');
  const fraction = frac.replace(/0+$/, '');
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction ? `.${fraction}` : ''}`;
}

describe('hosted checkout page: what the payer reads (Chromium)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('draws every provider badge without a font glyph: the Bitcoin sign is paths, not text', async () => {
    for (const file of ['bitcoin.svg', 'ethereum.svg', 'usdt.svg', 'litecoin.svg', 'dogecoin.svg', 'usdc.svg', 'tron.svg', 'card.svg']) {
      const res = await anonymous().get(`/assets/providers/${file}`);
      expect(res.status).toBe(200);
      // Only ASCII: no currency sign a system font may lack (and show as an empty box).
      expect({ file, nonAscii: /[^\x20-\x7e\n]/.test(res.text) }).toEqual({ file, nonAscii: false });
    }
    const org = await createOrg('Badge Shop');
    const invoiceId = await createInvoice(org, { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }] });
    const { page, problems } = await openPage(browser, pageUrl(invoiceId));
    const badge = page.locator('[data-provider-id="prov_bitcoin_bitcoin"] img.provider-image');
    await see(badge).toBeVisible();
    // The image Chromium shows is the served badge, fully loaded.
    expect(await badge.evaluate((img: any) => img.complete && img.naturalWidth)).toBe(64);
    const svg = await page.evaluate(
      async (src: string) => {
        const doc = new (globalThis as any).DOMParser().parseFromString(await (await fetch(src)).text(), 'image/svg+xml');
        return {
          texts: doc.querySelectorAll('text').length,
          paths: doc.querySelectorAll('path').length,
          label: doc.documentElement.getAttribute('aria-label'),
        };
      },
      (await badge.getAttribute('src')) ?? '',
    );
    expect(svg).toEqual({ texts: 0, paths: 2, label: 'BTC' });
    await screenshots(page, '20-badges');
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('shows prices and totals at the currency decimals, and the amount to send exactly as the API gives it', async () => {
    const org = await createOrg('Decimals Shop');
    const invoiceId = await createInvoice(org, { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '12.345678' }] });
    const { page, problems } = await openPage(browser, pageUrl(invoiceId));
    // USD: cents, half-up.
    await see(page.locator('#items .item-price')).toHaveText('12.35 USD');
    await see(page.locator('#total')).toHaveText('12.35 USD');
    // An amount to send in Ether (18 decimals in the API): rounded UP to 8 places, so sending it covers the invoice.
    const providers = expectSuccess<{ providers: any[] }>(await anonymous().get(`/providers/${invoiceId}`)).providers;
    const ether = providers.find((p) => p.id === 'prov_ethereum_ethereum');
    expect(ether.price.split('.')[1].replace(/0+$/, '').length).toBeGreaterThan(8);
    const etherShown = `${trimmed(new Decimal(ether.price).toDecimalPlaces(8, Decimal.ROUND_UP).toFixed(8))} ETH`;
    expect(new Decimal(etherShown.split(' ')[0]).gte(ether.price)).toBe(true);
    await see(page.locator('[data-provider-id="prov_ethereum_ethereum"] .provider-price')).toHaveText(etherShown);
    // A coin with 8 decimals or fewer: exactly the API's amount.
    const bitcoin = providers.find((p) => p.id === 'prov_bitcoin_bitcoin');
    await see(page.locator('[data-provider-id="prov_bitcoin_bitcoin"] .provider-price')).toHaveText(`${trimmed(bitcoin.price)} BTC`);
    await page.locator('[data-provider-id="prov_ethereum_ethereum"]').click();
    await see(page.locator('#pay-amount')).toHaveText(etherShown);
    await page.locator('button', { hasText: 'Choose another method' }).click();

    // In Bitcoin, the total (30 digits in the API) reads at the coin's 8 places.
    await page.locator('#currency').selectOption('BITCOIN');
    await see(page.locator('#total')).toContainText('BTC');
    const invoice = expectSuccess<any>(await anonymous().post(`/invoices/${invoiceId}`, {}));
    expect(invoice.currency).toBe('BITCOIN');
    const [, fraction] = invoice.price.split('.');
    expect(fraction.replace(/0+$/, '').length).toBeGreaterThan(8);
    const expected = `${trimmed(new Decimal(invoice.price).toDecimalPlaces(8, Decimal.ROUND_HALF_UP).toFixed(8))} BTC`;
    await see(page.locator('#total')).toHaveText(expected);
    expect(await page.locator('#total').innerText()).toMatch(/^\d+\.\d{1,8} BTC$/);
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('reads a payment-intent line by what it asks, in English and German, and a product line with its description', async () => {
    const org = await createOrg('Intent Shop');
    const product = expectSuccess<{ id: string }>(
      await org.test.post('/products', {
        name: 'Roasted beans',
        description: 'One kilogram, whole',
        schemas: [{ name: 'Once', description: 'Once', currency: 'USD', type: 'ONE_TIME', base_price: '20', configurations: [] }],
      }),
    );
    const full = expectSuccess<any>(await org.test.get(`/products/${product.id}`));
    const invoiceId = await createInvoice(org, {
      items: [
        { type: 'PAYMENT_INTENT', currency: 'USDT', price: '25' },
        { type: 'PRODUCT', product_id: product.id, billing_schema_id: full.schemas[0].id, quantity: 1 },
      ],
      currency: 'USD',
    });
    const { page, problems } = await openPage(browser, pageUrl(invoiceId));
    await see(page.locator('#items')).toContainText('Roasted beans');
    expect(await page.locator('#items .item-name').allInnerTexts()).toEqual(['Payment of 25 USDT', 'Roasted beans']);
    expect(await page.locator('#items .item-description').allInnerTexts()).toEqual(['One kilogram, whole']);
    expect(await page.locator('#items').innerText()).not.toMatch(/^Item$/m);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, '21-item-names');
    await page.close();

    const german = await openPage(browser, pageUrl(invoiceId, '&lang=de'));
    await see(german.page.locator('#items')).toContainText('Roasted beans');
    expect(await german.page.locator('#items .item-name').allInnerTexts()).toEqual(['Zahlung über 25 USDT', 'Roasted beans']);
    expect(problems.errors).toEqual([]);
    expect(german.problems.errors).toEqual([]);
    await german.page.close();
  });

  it('groups the currency choice: the invoice currency and the common ones first, then coins, then other currencies by name', async () => {
    const org = await createOrg('Currency Choice Shop');
    const invoiceId = await createInvoice(org, { items: [{ type: 'PAYMENT_INTENT', currency: 'CHF', price: '30' }], currency: 'CHF' });
    const { page, problems } = await openPage(browser, pageUrl(invoiceId));
    const select = page.locator('#currency');
    await see(select).toBeEnabled();
    const groups = await select.evaluate((el: any) =>
      [...el.querySelectorAll('optgroup')].map((g) => ({ label: g.label, values: [...g.querySelectorAll('option')].map((o) => o.value) })),
    );
    expect(groups.map((g) => g.label)).toEqual(['Common', 'Cryptocurrencies', 'Other currencies']);
    expect(groups[0].values).toEqual(['CHF', 'USD', 'EUR', 'GBP', 'BITCOIN', 'ETHEREUM', 'USDT', 'USDC']);
    expect(groups[1].values).toEqual(expect.arrayContaining(['LITECOIN', 'SOLANA', 'DOGECOIN']));
    // Every currency the API accepts, once.
    const all = groups.flatMap((g) => g.values);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(49);
    // Options read by name (Chromium's own names, capitalised); the other currencies are in alphabetical order of those names.
    const labels = await select.evaluate((el: any) => Object.fromEntries([...el.options].map((o) => [o.value, o.text])));
    expect(labels).toMatchObject({ CHF: 'Swiss Franc (CHF)', BITCOIN: 'Bitcoin (BTC)', USDT: 'Tether USD (USDT)', JPY: 'Japanese Yen (JPY)' });
    const otherNames = groups[2].values.map((v) => labels[v]);
    expect(otherNames).toEqual([...otherNames].sort((a, b) => a.localeCompare(b, 'en')));
    expect(await select.inputValue()).toBe('CHF');
    // Long names do not widen the page on a phone.
    await page.setViewportSize(PHONE);
    await see(select).toBeVisible();
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number)).toBeLessThanOrEqual(PHONE.width);
    await page.setViewportSize(DESKTOP);
    await select.selectOption('JPY');
    // Yen have no minor unit.
    await see(page.locator('#total')).toContainText(/^[\d,]+ JPY$/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();

    const german = await openPage(browser, pageUrl(invoiceId, '&lang=de'));
    await see(german.page.locator('#currency')).toBeEnabled();
    expect(await german.page.locator('#currency optgroup').evaluateAll((gs) => gs.map((g) => (g as any).label as string))).toEqual([
      'Häufig',
      'Kryptowährungen',
      'Weitere Währungen',
    ]);
    expect(await german.page.locator('#currency option[value="JPY"]').innerText()).toBe('Japanischer Yen (JPY)');
    expect(problems.errors).toEqual([]);
    expect(german.problems.errors).toEqual([]);
    await german.page.close();
  });
});
