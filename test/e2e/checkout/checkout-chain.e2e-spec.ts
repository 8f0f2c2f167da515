import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import type { IsolatedService } from '../../support/isolated';
import { runCli } from '../../support/server';
import { ChainSetup, merchant, paymentAddress, startChain, startWatchingService, units, waitForPayments } from '../rails/chain-helpers';
import { Browser, decodeQr, launchBrowser, openPage, screenshots, see, seriousViolations } from './browser';

/**
 * The checkout page with the EVM rail configured: a local Hardhat node with a 6-decimal USDT, the
 * chain watcher, and a merchant with a receiving wallet. The payer's page shows the deposit
 * address, a QR code that decodes to the EIP-681 URI and an "Open in wallet" link to it; a real
 * token transfer to that address then completes the invoice on the page.
 */
describe('hosted checkout page on a real local chain', () => {
  let setup: ChainSetup;
  let service: IsolatedService;
  let browser: Browser;

  beforeAll(async () => {
    setup = await startChain();
    service = await startWatchingService(setup);
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await setup?.chain.stop();
  });

  const trimmed = (amount: string) => amount.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');

  /** A USD invoice whose redirect_url is the service's own health check (the page may leave for it). */
  const createInvoice = async (shop: Awaited<ReturnType<typeof merchant>>, price: string): Promise<string> =>
    expectSuccess<{ id: string }>(
      await shop.test.post('/invoices/create', {
        items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price }],
        redirect_url: `${service.server.baseUrl}/health`,
      }),
      201,
    ).id;

  it('shows the address, a QR code of the payment URI and the wallet link; a transfer on chain completes the invoice', async () => {
    const shop = await merchant(service);
    const invoiceId = await createInvoice(shop, '25.50');
    const { page, problems } = await openPage(browser, `${service.server.baseUrl}/checkout/${invoiceId}?poll_ms=300&redirect_ms=60000`);
    await see(page.locator('#status')).toHaveAttribute('data-state', 'waiting');

    await page.locator('[data-provider-id="prov_ethereum_usdt"]').click();
    await see(page.locator('#pay-address')).toBeVisible();
    // the same invoice and provider always get the same address: the page's is the API's
    const pay = await paymentAddress(shop.test, invoiceId);
    expect(pay.address).toBe(shop.at(0));
    await see(page.locator('#pay-address')).toHaveText(pay.address);
    await see(page.locator('#pay-amount')).toHaveText(`${trimmed(pay.amount)} USDT`);
    expect(pay.uri.toLowerCase()).toBe(`ethereum:${setup.usdt}@31337/transfer?address=${pay.address}&uint256=${units(trimmed(pay.amount), 6)}`.toLowerCase());
    expect(await page.locator('#open-wallet').getAttribute('href')).toBe(pay.uri);
    expect(await decodeQr(browser, page, '.qr')).toBe(pay.uri);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, '10-address-qr');

    // The payer's wallet sends exactly the asked amount.
    const txHash = await setup.chain.sendToken(setup.usdt, 1, pay.address, units(trimmed(pay.amount), 6));
    await see(page.locator('#status'), 30_000).toHaveAttribute('data-state', 'seen');
    await see(page.locator('#status')).toContainText(/\d+ of 12 confirmations/);
    // The transaction that paid, shortened and copyable whole; the payer's own read of the invoice has it too.
    await see(page.locator('#tx-hash')).toHaveText(`${txHash.slice(0, 6)}…${txHash.slice(-4)}`);
    expect(await page.locator('#tx-hash').getAttribute('data-hash')).toBe(txHash);
    expect(await page.locator('#tx-hash').getAttribute('title')).toBe(txHash);
    await see(page.locator('#transaction button.copy')).toHaveAttribute('aria-label', 'Copy the transaction ID');
    const payerRead = expectSuccess<{ payments: { tx_hash: string | null }[] }>(
      await new Api(null, service.server.baseUrl).post(`/invoices/${invoiceId}`, { expand: ['payments'] }),
    );
    expect(payerRead.payments.map((p) => p.tx_hash)).toEqual([txHash]);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, '11-payment-seen');
    await see(page.locator('#payment')).toBeHidden();
    await setup.chain.mine(12);
    await see(page.locator('#status'), 30_000).toHaveAttribute('data-state', 'paid');
    await see(page.locator('#status')).toContainText('Thank you! The payment was received.');
    expect(problems.errors).toEqual([]);
    await page.close();
  });

  it('says so when a reorg reverses the payment of a paid invoice, sends the payer to the merchant, and shows it paid again when the transaction returns', async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    expect(
      (await runCli(['provider:confirmations', '--org', shop.id, '--provider', 'prov_ethereum_usdt', '--count', '2', '--mode', 'test'], service.cliEnv)).code,
    ).toBe(0);
    const invoiceId = await createInvoice(shop, '10');
    const pay = await paymentAddress(shop.test, invoiceId);
    const { page, problems } = await openPage(browser, `${service.server.baseUrl}/checkout/${invoiceId}?poll_ms=300&redirect_ms=600000`);
    await see(page.locator('#status')).toHaveAttribute('data-state', 'waiting');

    // Paid, two confirmations deep.
    const raw = await chain.signTokenTransfer(usdt, 1, pay.address, units(trimmed(pay.amount), 6));
    const beforePayment = await chain.test.snapshot();
    const hash = await chain.sendRaw(raw);
    await chain.receipt(hash);
    await chain.mine(1);
    await waitForPayments(shop.test, invoiceId, (p) => p[0]?.status === 'COMPLETED');
    await see(page.locator('#status'), 30_000).toHaveAttribute('data-state', 'paid');

    // A longer fork without the transaction: the merchant's invoice stays COMPLETED with PAYMENT_REVERSED.
    await chain.test.revert({ id: beforePayment });
    await chain.mine(5);
    await waitForPayments(shop.test, invoiceId, (p) => p[0]?.status === 'CANCELLED');
    // A paid page stops polling; the payer who comes back to it (or reloads it) sees the reversal.
    await page.reload();
    await see(page.locator('#status'), 30_000).toHaveAttribute('data-state', 'reversed');
    await see(page.locator('#status-title')).toHaveText('Payment reversed');
    await see(page.locator('#status-text')).toContainText('contact the merchant');
    // Not "paid": no redirect to the merchant's order page, and no thank-you.
    await see(page.locator('#redirect-note')).toHaveCount(0);
    expect(await page.locator('#status').textContent()).not.toContain('Thank you');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, '11-payment-reversed');

    // The same signed transaction mined again on the new chain: the page keeps watching and shows it paid.
    expect(await chain.sendRaw(raw)).toBe(hash);
    await chain.receipt(hash);
    await chain.mine(2);
    await see(page.locator('#status'), 30_000).toHaveAttribute('data-state', 'paid');
    expect(problems.errors).toEqual([]);
    await page.close();
  });
});
