import { tokenTransfer } from '../../chain/solana-wallet';
import { expectSuccess } from '../../support/envelope';
import type { IsolatedService } from '../../support/isolated';
import { paymentAddress, units } from '../rails/chain-helpers';
import { type SolanaService, type SolanaSetup, solanaMerchant, solanaPayer, startSolanaService } from '../rails/solana-helpers';
import { Browser, decodeQr, launchBrowser, openPage, see, seriousViolations } from './browser';

/**
 * The checkout page on the Solana rail (the litesvm node): the payer sees the merchant's wallet address, the
 * amount, a QR code of the Solana Pay transfer request (with the invoice's reference) and a wallet link to
 * it; a USDC payment made as a wallet makes it from that request is seen and completes the invoice.
 */
describe('hosted checkout page with a Solana Pay request', () => {
  let setup: SolanaSetup;
  let service: IsolatedService;
  let stop: SolanaService['stop'] | undefined;
  let browser: Browser;

  beforeAll(async () => {
    ({ setup, service, stop } = await startSolanaService({ finalizedLag: 2 }, { CHAIN_LOCK_RETRY_MS: '300' }));
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await stop?.();
  });

  it('shows the wallet address, the amount, a QR code and a wallet link of the Solana Pay uri; a USDC payment with the reference completes the invoice', async () => {
    const { bed, usdc } = setup;
    const shop = await solanaMerchant(service);
    const invoiceId = expectSuccess<{ id: string }>(
      await shop.test.post('/invoices/create', {
        items: [{ type: 'PAYMENT_INTENT', currency: 'USDC', price: '12.5' }],
        redirect_url: `${service.server.baseUrl}/health`,
      }),
      201,
    ).id;
    const { page, problems } = await openPage(browser, `${service.server.baseUrl}/checkout/${invoiceId}?poll_ms=300&redirect_ms=60000`);
    await see(page.locator('#status')).toHaveAttribute('data-state', 'waiting');

    await page.locator('[data-provider-id="prov_solana_usdc"]').click();
    await see(page.locator('#pay-address')).toBeVisible();
    const pay = await paymentAddress(shop.test, invoiceId, 'prov_solana_usdc');
    expect(pay.address).toBe(shop.wallet);
    expect(pay.uri).toBe(`solana:${shop.wallet}?amount=12.5&spl-token=${usdc}&reference=${pay.reference}&message=Invoice%20${invoiceId}`);
    await see(page.locator('#pay-address')).toHaveText(shop.wallet);
    await see(page.locator('#pay-amount')).toHaveText('12.5 USDC');
    await see(page.locator('#open-wallet')).toHaveAttribute('href', pay.uri);
    expect(await decodeQr(browser, page, '.qr')).toBe(pay.uri);
    expect(await seriousViolations(page)).toEqual([]);

    const payer = await solanaPayer(bed, { mint: usdc, amount: '100' });
    bed.submit(await tokenTransfer(bed, payer, pay.address, usdc, units('12.5', 6), [pay.reference]));
    await see(page.locator('#status'), 30_000).toHaveAttribute('data-state', 'seen');
    bed.advance(2);
    await see(page.locator('#status'), 30_000).toHaveAttribute('data-state', 'paid');
    expect(problems.errors).toEqual([]);
    await page.close();
  });
});
