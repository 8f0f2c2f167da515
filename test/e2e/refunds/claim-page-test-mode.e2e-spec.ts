import { anonymous, baseUrl } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { r30 } from '../../support/money';
import { Browser, launchBrowser, openPage, screenshots, see, seriousViolations } from '../checkout/browser';

const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

/**
 * The refund claim page in Chromium, in test mode on the shared service, which has no test chain
 * (no CHAINS_FILE): the payer picks a provider no rail carries and types an address, the page's
 * test control finishes the payout, and the page follows the refund to COMPLETED. The page names the
 * merchant and the invoice.
 */
describe('refund claim page in test mode without a test chain (Chromium)', () => {
  let browser: Browser;
  let org: TestOrg;
  let invoiceId: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    org = await createOrg('Bright Goods Ltd');
    const product = expectSuccess<{ id: string }>(
      await org.test.post('/products', {
        name: 'Walnut desk lamp',
        description: 'Hand made',
        schemas: [{ name: 'Once', description: 'Once', currency: 'EUR', type: 'ONE_TIME', base_price: '40', configurations: [] }],
      }),
    );
    const schema = expectSuccess<any>(await org.test.get(`/products/${product.id}`)).schemas[0].id;
    invoiceId = expectSuccess(
      await org.test.post('/invoices/create', {
        items: [{ type: 'PRODUCT', product_id: product.id, billing_schema_id: schema, quantity: 2 }],
        currency: 'EUR',
      }),
      201,
    ).id;
    expectSuccess(
      await org.test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_card_eur', price: '80', status: 'COMPLETED' }),
      201,
    );
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  const claimPage = (refund: { claim_url: string }) => `${baseUrl()}${new URL(refund.claim_url, 'http://x').pathname}?poll_ms=300`;

  it('claims to a provider without a rail, completes the payout with the test control, and shows COMPLETED', async () => {
    const refund = expectSuccess(await org.test.post(`/invoices/${invoiceId}/refunds`, { amount: '10' }), 201);
    const { page, problems } = await openPage(browser, claimPage(refund));

    // Who refunds and for what.
    await see(page.locator('#claim-merchant')).toHaveText('Bright Goods Ltd');
    await see(page.locator('#claim-invoice')).toHaveText(invoiceId);
    await see(page.locator('#claim-items')).toHaveText('Walnut desk lamp × 2');
    expect(await page.title()).toBe('Your refund from Bright Goods Ltd');
    await see(page.locator('.test-mode')).toBeVisible();

    // Every enabled provider is offered though no chain is configured; TRON has no rail of any kind.
    expect(await page.content()).not.toContain('No payout method is available');
    const offered = await page.locator('input[name="provider_id"]').evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
    expect(offered).toEqual(expect.arrayContaining(['prov_ethereum_usdt', 'prov_bitcoin_bitcoin', 'prov_tron_usdt']));
    await page.locator('input[value="prov_tron_usdt"]').check();
    // The address is still checked by the network's rules.
    await page.locator('#address').fill(`${TRON_ADDRESS.slice(0, -1)}u`);
    await page.locator('#claim-submit').click();
    await see(page.locator('#address-error')).toContainText('TRON address');
    await page.locator('#address').fill(TRON_ADDRESS);
    await page.locator('#claim-submit').click();

    // The payout fixed as usual, and the refund's progress.
    await see(page.locator('#payout-address'), 15_000).toHaveText(TRON_ADDRESS);
    await see(page.locator('#payout-network')).toHaveText('TRON');
    await see(page.locator('#payout-amount')).toContainText('USDT');
    await see(page.locator('#claim-status')).toHaveText('Waiting for the merchant to send it.');
    await see(page.locator('#claim-progress li[aria-current="step"]')).toHaveText('Waiting for the payout');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'refund-claim-test-mode');
    expect(expectSuccess(await org.test.get(`/refunds/${refund.id}`)).status).toBe('AWAITING_PAYOUT');

    // A short payout: recorded, back to waiting for the payout.
    await page.locator('#test-payout-short').click();
    await see(page.locator('#test-result')).toContainText('payout mismatch');
    await see(page.locator('#claim-status')).toHaveText('Waiting for the merchant to send it.');
    expect(expectSuccess(await org.test.get(`/refunds/${refund.id}`)).status).toBe('AWAITING_PAYOUT');

    // The payout in full: COMPLETED, on the page and for the merchant.
    await page.locator('#test-payout-paid').click();
    await see(page.locator('#claim-status')).toHaveText('Completed: the refund has arrived.');
    await see(page.locator('#claim-progress li[data-step="COMPLETED"]')).toHaveAttribute('class', 'step-done');
    await see(page.locator('#test-controls')).toBeHidden();
    await screenshots(page, 'refund-claim-test-mode-completed');
    const done = expectSuccess(await org.test.get(`/refunds/${refund.id}`));
    expect(done.status).toBe('COMPLETED');
    expect(done.payout.tx_hash).toBe(`simulated:${refund.id}`);
    expect(expectSuccess(await org.test.post(`/invoices/${invoiceId}`, {})).refunded_usd).toBe(r30(done.amount_usd));

    // Loaded again, the page shows the completed refund and no test control.
    await page.reload();
    await see(page.locator('#claim-status')).toHaveText('Completed: the refund has arrived.');
    expect(await page.locator('#test-controls').count()).toBe(0);
    // Only the refused address's answer (a 400 the page shows beside the field) is logged by Chromium.
    expect(problems.errors).toEqual([
      expect.stringMatching(/^Failed to load resource: the server responded with a status of 400 .*\/refund_claims\/rc_[^/]+\)$/),
    ]);
    await page.close();
  });

  it('follows a payout the merchant simulates with the test key (polling), as checkout follows a payment', async () => {
    const refund = expectSuccess(await org.test.post(`/invoices/${invoiceId}/refunds`, { amount: '5' }), 201);
    const token = new URL(refund.claim_url, 'http://x').pathname.split('/').pop()!;
    expectSuccess(
      await anonymous().post(`/refund_claims/${token}`, { provider_id: 'prov_ethereum_usdt', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }),
    );
    const { page, problems } = await openPage(browser, claimPage(refund));
    await see(page.locator('#claim-status')).toHaveText('Waiting for the merchant to send it.');
    expectSuccess(await org.test.post(`/test_helpers/refunds/${refund.id}/payout`, { result: 'paid' }));
    await see(page.locator('#claim-status')).toHaveText('Completed: the refund has arrived.');
    await see(page.locator('#claim-progress li[data-step="SENT"]')).toHaveAttribute('class', 'step-done');
    expect(problems.errors).toEqual([]);
    await page.close();
  });
});
