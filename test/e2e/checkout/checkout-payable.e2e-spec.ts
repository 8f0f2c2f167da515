import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { createInvoice } from '../payments/payments-helpers';
import { addressAt, freshAccount, writeChainsFile } from '../rails/rails-helpers';
import { Browser, launchBrowser, openPage, screenshots, see, seriousViolations } from './browser';

/**
 * Decisions §17 on the page: in live mode the payer sees only the methods that can take money (a rail
 * configured in CHAINS_FILE and a receiving wallet); no test control. The RPC address answers nothing:
 * listing methods and handing out addresses need no chain.
 */
describe('hosted checkout page: only payable methods in live mode (Chromium)', () => {
  let service: IsolatedService;
  let browser: Browser;

  beforeAll(async () => {
    const chainsFile = writeChainsFile({ live: { ethereum: { rpc_url: 'http://127.0.0.1:9/', chain_id: 1 } } });
    service = await startIsolatedService({ CHAINS_FILE: chainsFile });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const pageUrl = (invoiceId: string) => `${service.server.baseUrl}/checkout/${invoiceId}?poll_ms=300&redirect_ms=60000`;
  const offered = async (page: Awaited<ReturnType<typeof openPage>>['page']) =>
    (await page.locator('[data-provider-id]').evaluateAll((els) => els.map((el) => el.getAttribute('data-provider-id')))).sort();

  it('offers nothing before the merchant has a receiving wallet, then exactly the rail’s coin and tokens', async () => {
    const shop = await service.createOrg('Live Rail Shop');
    const invoiceId = await createInvoice(shop.live, '25.5');

    const before = await openPage(browser, pageUrl(invoiceId));
    await see(before.page.locator('#methods')).toContainText('No payment method is available for this invoice.');
    await see(before.page.locator('[data-provider-id]')).toHaveCount(0);
    await see(before.page.locator('.test-banner')).toHaveCount(0);
    expect(before.problems.errors).toEqual([]);
    await before.page.close();

    const { account, xpub } = freshAccount();
    expectSuccess(await shop.live.post('/wallets', { chain_family: 'evm', xpub }), 201);
    const { page, problems } = await openPage(browser, pageUrl(invoiceId));
    await see(page.locator('[data-provider-id]')).toHaveCount(3);
    expect(await offered(page)).toEqual(['prov_ethereum_ethereum', 'prov_ethereum_usdc', 'prov_ethereum_usdt']);
    // No card, no Bitcoin, no other chain; no filter for cards.
    expect(await page.locator('.network-title').allTextContents()).toEqual(['Ethereum network']);
    await see(page.locator('.chip', { hasText: 'Card' })).toHaveCount(0);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, '13-live-payable-methods');

    await page.locator('[data-provider-id="prov_ethereum_usdt"]').click();
    await see(page.locator('#pay-address')).toHaveText(addressAt(account, 0));
    await see(page.locator('#payment')).toContainText('Send exactly this amount of USDT on the Ethereum network.');
    await see(page.locator('#test-payment')).toHaveCount(0);
    await see(page.locator('#no-address')).toHaveCount(0);
    expect(problems.errors).toEqual([]);
    await page.close();
  });
});

/**
 * A partly paid invoice is never voided by the clock, but its addresses are watched only until its monitoring
 * window ends: past it the page shows it as expired and offers nothing to pay (payment_address would refuse it).
 */
describe('hosted checkout page: a partly paid invoice past its payment window (Chromium, moved test clock)', () => {
  let service: IsolatedService;
  let browser: Browser;

  beforeAll(async () => {
    service = await startIsolatedService({ CLOCK_CONTROL: 'true', INVOICE_SWEEP_SECONDS: '0', INVOICE_MONITORING_MINUTES: '60' });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('offers the rest until the window closes, then shows the invoice expired with nothing to pay', async () => {
    const shop = await service.createOrg('Window Shop');
    const invoiceId = await createInvoice(shop.test, '20');
    expectSuccess(
      await shop.test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '5', status: 'COMPLETED' }),
      201,
    );
    const url = `${service.server.baseUrl}/checkout/${invoiceId}?poll_ms=300&redirect_ms=60000`;

    const open = await openPage(browser, url);
    await see(open.page.locator('#status')).toHaveAttribute('data-state', 'partial');
    expect(await open.page.locator('[data-provider-id]').count()).toBeGreaterThan(0);
    await open.page.close();

    // 15 minutes to expiry and the 60-minute window, on the organization's test clock.
    expectSuccess(await shop.test.post('/test_helpers/clock', { advance_seconds: 76 * 60 }));
    const { page, problems } = await openPage(browser, url);
    await see(page.locator('#status')).toHaveAttribute('data-state', 'expired');
    await see(page.locator('[data-provider-id]')).toHaveCount(0);
    expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {})).status).toBe('PARTIALLY_PAID');
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('keeps following a payment being confirmed past the window: confirming, not expired', async () => {
    const shop = await service.createOrg('Confirming Shop');
    const invoiceId = await createInvoice(shop.test, '20');
    const usdt = (await shop.test.get(`/providers/${invoiceId}`)).body.data.providers.find((p: { id: string }) => p.id === 'prov_ethereum_usdt');
    expectSuccess(
      await shop.test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_ethereum_usdt', price: usdt.price, status: 'PENDING' }),
      201,
    );
    expectSuccess(await shop.test.post('/test_helpers/clock', { advance_seconds: 76 * 60 }));
    const { page, problems } = await openPage(browser, `${service.server.baseUrl}/checkout/${invoiceId}?poll_ms=300&redirect_ms=60000`);
    await see(page.locator('#status')).toHaveAttribute('data-state', 'seen');
    expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {})).status).toBe('WAITING_FOR_CONFIRMATIONS');
    expect(problems.errors).toEqual([]);
    await page.close();
  });
});
