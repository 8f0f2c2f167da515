import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { paymentAddress, units } from '../rails/chain-helpers';
import { startTron, stopTron, tronMerchant, tronToHex, TronSetup } from '../rails/tron-helpers';
import { Browser, decodeQr, launchBrowser, openPage, see, seriousViolations } from './browser';

/**
 * The checkout page on the Tron rail (the java-tron-shaped proxy in front of Hardhat): the payer sees the
 * T deposit address, the amount, and a QR code of the address itself (Tron has no payment-URI standard, so
 * there is no wallet link); a USDT payment is seen and completes the invoice on the page.
 */
describe('hosted checkout page with a Tron address', () => {
  let setup: TronSetup;
  let service: IsolatedService;
  let browser: Browser;

  beforeAll(async () => {
    setup = await startTron({ finalizedLag: 3 });
    service = await startIsolatedService({ CHAINS_FILE: setup.chainsFile, CHAIN_LOCK_RETRY_MS: '300' });
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await stopTron(setup);
  });

  it('shows the T address, the amount and a QR code of the address, no wallet link; a USDT payment completes the invoice', async () => {
    const shop = await tronMerchant(service);
    const invoiceId = expectSuccess<{ id: string }>(
      await shop.test.post('/invoices/create', {
        items: [{ type: 'PAYMENT_INTENT', currency: 'USDT', price: '12.5' }],
        redirect_url: `${service.server.baseUrl}/health`,
      }),
      201,
    ).id;
    const { page, problems } = await openPage(browser, `${service.server.baseUrl}/checkout/${invoiceId}?poll_ms=300&redirect_ms=60000`);
    await see(page.locator('#status')).toHaveAttribute('data-state', 'waiting');

    await page.locator('[data-provider-id="prov_tron_usdt"]').click();
    await see(page.locator('#pay-address')).toBeVisible();
    const pay = await paymentAddress(shop.test, invoiceId, 'prov_tron_usdt');
    expect(pay.address).toBe(shop.at(0));
    expect(pay.uri).toBeNull();
    await see(page.locator('#pay-address')).toHaveText(pay.address);
    await see(page.locator('#pay-amount')).toHaveText('12.5 USDT');
    expect(await page.locator('#open-wallet').count()).toBe(0);
    expect(await decodeQr(browser, page, '.qr')).toBe(pay.address);
    expect(await seriousViolations(page)).toEqual([]);

    await setup.chain.sendToken(setup.usdt, 1, tronToHex(pay.address), units('12.5', 6));
    await see(page.locator('#status'), 30_000).toHaveAttribute('data-state', 'seen');
    await setup.chain.mine(3);
    await see(page.locator('#status'), 30_000).toHaveAttribute('data-state', 'paid');
    expect(problems.errors).toEqual([]);
    await page.close();
  });
});
