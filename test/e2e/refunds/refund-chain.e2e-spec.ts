import { Webhook } from 'standardwebhooks';
import { Api } from '../../support/api';
import { D, r30 } from '../../support/money';
import { expectError, expectSuccess } from '../../support/envelope';
import type { IsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { eventually, WebhookReceiver } from '../../support/webhook-receiver';
import { Browser, launchBrowser, openPage, screenshots, see, seriousViolations } from '../checkout/browser';
import { ChainSetup, merchant, Merchant, paymentAddress, startChain, startWatchingService, units, waitForPayments } from '../rails/chain-helpers';

const trimmed = (amount: string) => amount.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
/** How the claim page shows an amount: trailing zeros cut, at least two decimals. */
const shown = (amount: string) => {
  const [int, frac = ''] = trimmed(amount).split('.');
  return `${int}.${frac.padEnd(2, '0')}`;
};

/** The address with the case of its first letter flipped: its EIP-55 checksum no longer holds. */
function flipCase(address: string): string {
  const i = address.slice(2).search(/[a-fA-F]/) + 2;
  const c = address[i];
  return address.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(i + 1);
}

/**
 * Refunds on a real local chain (decisions §19): an invoice paid in USDT on the Hardhat node, a
 * partial refund the payer claims on the claim page in Chromium, the merchant's transfer reported
 * and checked on the chain, its confirmations counted to COMPLETED with signed webhooks, the
 * invoice's refunded_usd and the dashboard net of it; then the refusals.
 */
describe('refunds on a real local chain', () => {
  let setup: ChainSetup;
  let service: IsolatedService;
  let browser: Browser;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    setup = await startChain();
    service = await startWatchingService(setup, { REFUND_CHECK_SECONDS: '1', CLOCK_CONTROL: 'true' });
    browser = await launchBrowser();
    receiver = await WebhookReceiver.start();
  }, 180_000);
  afterAll(async () => {
    await receiver?.stop();
    await browser?.close();
    await service?.stop();
    await setup?.chain.stop();
  });

  /** A USD invoice paid in full in USDT on the chain (12 confirmations). */
  async function paidOnChain(shop: Merchant, price: string): Promise<string> {
    const invoiceId = expectSuccess<{ id: string }>(
      await shop.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price }] }),
      201,
    ).id;
    const pay = await paymentAddress(shop.test, invoiceId);
    await setup.chain.sendToken(setup.usdt, 1, pay.address, units(trimmed(pay.amount), 6));
    await setup.chain.mine(12);
    await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED', 30_000);
    return invoiceId;
  }

  const PAYER = 3;
  const MERCHANT_WALLET = 2;

  it('done when: a partial refund claimed on the page, sent, confirmed to COMPLETED with signed webhooks, netted on the dashboard', async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const endpoint = expectSuccess(
      await shop.test.post('/webhooks', {
        url: receiver.url('/refunds'),
        event_types: ['refund.created', 'refund.updated', 'refund.completed', 'refund.canceled'],
      }),
      201,
    );
    const invoiceId = await paidOnChain(shop, '25.50');
    const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '10', reason: 'One item returned' }), 201);
    expect([refund.status, refund.amount_usd]).toEqual(['AWAITING_DESTINATION', '10.000000000000000000000000000000']);

    // The payer opens the claim page, picks the method they paid with and gives an address.
    const { page, problems } = await openPage(browser, `${service.server.baseUrl}${new URL(refund.claim_url, 'http://x').pathname}`);
    await see(page.locator('h1')).toHaveText('Your refund');
    await see(page.locator('#refund-amount')).toHaveText('10.00 USD');
    expect(await page.locator('input[name="provider_id"]').evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value))).toEqual([
      'prov_ethereum_usdt',
    ]);
    expect(await seriousViolations(page)).toEqual([]);
    const payer = chain.account(PAYER).address;
    // A typo in a checksummed address is caught before anything is sent.
    await page.locator('#address').fill(flipCase(payer));
    await page.locator('#claim-submit').click();
    await see(page.locator('#address-error')).toBeVisible();
    expect(await page.locator('#address').getAttribute('aria-invalid')).toBe('true');
    await page.locator('#address').fill(payer);
    await page.locator('#claim-submit').click();
    await see(page.locator('#payout-address'), 15_000).toHaveText(payer);
    const claimed = expectSuccess(await shop.test.get(`/refunds/${refund.id}`));
    expect(claimed.status).toBe('AWAITING_PAYOUT');
    expect(claimed.destination).toEqual({ provider_id: 'prov_ethereum_usdt', network: 'ETHEREUM', address: payer });
    const amountUnits = units(trimmed(claimed.payout.amount), 6);
    expect(claimed.payout).toMatchObject({ provider_id: 'prov_ethereum_usdt', network: 'ETHEREUM', currency: 'USDT', address: payer, tx_hash: null });
    expect(claimed.payout.uri).toBe(`ethereum:${usdt.toLowerCase()}@31337/transfer?address=${payer}&uint256=${amountUnits}`);
    await see(page.locator('#payout-amount')).toHaveText(`${shown(claimed.payout.amount)} USDT`);
    await see(page.locator('#claim-status')).toHaveText('Waiting for the merchant to send it.');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'refund-claimed');
    // The same page in German.
    const { page: de } = await openPage(browser, `${service.server.baseUrl}${new URL(refund.claim_url, 'http://x').pathname}?lang=de`);
    await see(de.locator('#payout-title')).toHaveText('Ihre Rückerstattung ist unterwegs');
    expect(await de.locator('html').getAttribute('lang')).toBe('de');
    await de.close();

    // The merchant first sends one unit too little: refused once the chain shows it.
    const short = await chain.sendToken(usdt, MERCHANT_WALLET, payer, amountUnits - 1n);
    await chain.receipt(short);
    expectError(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: short }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(expectSuccess(await shop.test.get(`/refunds/${refund.id}`)).status).toBe('AWAITING_PAYOUT');

    // Then the right amount.
    const before = await chain.tokenBalance(usdt, payer);
    const tx = await chain.sendToken(usdt, MERCHANT_WALLET, payer, amountUnits);
    await chain.receipt(tx);
    const sent = expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: tx }));
    expect([sent.status, sent.payout.tx_hash, sent.payout.confirmations, sent.payout.required_confirmations]).toEqual(['SENT', tx.toLowerCase(), 1, 12]);
    expect(await chain.tokenBalance(usdt, payer)).toBe(before + amountUnits);
    // Reported again: the same answer. Canceling now is refused: only the chain decides.
    expect(expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: tx })).status).toBe('SENT');
    expectError(await shop.test.post(`/refunds/${refund.id}/cancel`), 400, { code: 'invalid_state_transition', field: 'status' });

    // Confirmations are counted up to the provider's 12.
    await chain.mine(5);
    await eventually(async () => {
      const r = expectSuccess(await shop.test.get(`/refunds/${refund.id}`));
      if (r.payout.confirmations < 6) throw new Error(`confirmations ${r.payout.confirmations}`);
      expect(r.status).toBe('SENT');
    }, 20_000);
    await chain.mine(6);
    const done = await eventually(async () => {
      const r = expectSuccess(await shop.test.get(`/refunds/${refund.id}`));
      if (r.status !== 'COMPLETED') throw new Error(`status ${r.status}`);
      return r;
    }, 20_000);
    expect(done.payout.confirmations).toBeGreaterThanOrEqual(12);
    await page.reload();
    await see(page.locator('#claim-status')).toHaveText('Completed: the refund has arrived.');
    expect(problems.errors.filter((e) => !e.includes('Failed to load resource'))).toEqual([]);
    await page.close();

    // The invoice shows it; its status does not change.
    const invoice = expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {}));
    expect([invoice.status, invoice.refunded_usd]).toEqual(['COMPLETED', '10.000000000000000000000000000000']);

    // Signed webhooks: created, updated (claimed), updated (sent), updated (confirmations), completed.
    const received = await receiver.waitFor((r) => r.some((w) => w.json?.type === 'refund.completed' && w.json.data.object.id === refund.id), 20_000);
    const mine = received.filter((w) => w.json?.data?.object?.id === refund.id);
    for (const w of mine) new Webhook(endpoint.secret).verify(w.body, w.headers as Record<string, string>);
    const types = mine.map((w) => w.json.type);
    expect(types[0]).toBe('refund.created');
    expect(types.at(-1)).toBe('refund.completed');
    expect(types.filter((t) => t === 'refund.updated').length).toBeGreaterThanOrEqual(2);
    const completed = mine.at(-1)!.json.data;
    expect(completed.object.status).toBe('COMPLETED');
    expect(completed.previous_attributes.status).toBe('SENT');

    // The dashboard counts the refund and nets it out of the volume.
    const dashboard = expectSuccess(await shop.test.post('/analytics/dashboard', { period: 'last_day' }));
    expect(dashboard.refunds).toEqual({ count: 1, completed_count: 1, refunded_usd: '10.000000000000000000000000000000' });
    // The volume is the invoice's one payment at the USD value it was recorded with (its time shown beside, should they differ).
    const [payment] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(new D(payment.price_usd).gt(25)).toBe(true);
    expect([dashboard.payments.volume_usd, payment.happened_at]).toEqual([payment.price_usd, payment.happened_at]);
    expect(dashboard.net_volume_usd).toBe(r30(new D(dashboard.payments.volume_usd).sub(10)));
  });

  it('refuses a payout to another address, a reused transaction, a second destination, a wrong network and unoffered methods', async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const invoiceId = await paidOnChain(shop, '30');
    const a = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '5' }), 201);
    const b = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '5' }), 201);
    const tokenOf = (r: { claim_url: string }) => new URL(r.claim_url, 'http://x').pathname.split('/').pop()!;
    const claim = (r: { claim_url: string }, body: unknown) => new Api(null, service.server.baseUrl).post(`/refund_claims/${tokenOf(r)}`, body);
    const payer = chain.account(PAYER).address;

    expectError(await claim(a, { provider_id: 'prov_ethereum_usdt', address: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa' }), 400, { field: 'address' });
    expectError(await claim(a, { provider_id: 'prov_bitcoin_bitcoin', address: payer }), 400, { field: 'provider_id' });
    expectError(await claim(a, { provider_id: 'prov_ethereum_usdt', address: payer, amount: '1' }), 400, { field: 'amount' });
    const first = expectSuccess(await claim(a, { provider_id: 'prov_ethereum_usdt', address: payer.toLowerCase() }));
    expect(first.payout.address).toBe(payer);
    // The same destination again answers the claim; another is refused.
    expect(expectSuccess(await claim(a, { provider_id: 'prov_ethereum_usdt', address: payer })).payout).toEqual(first.payout);
    expectError(await claim(a, { provider_id: 'prov_ethereum_usdt', address: chain.account(4).address }), 400, { field: 'status' });
    expectSuccess(await claim(b, { provider_id: 'prov_ethereum_usdt', address: payer }));

    const amountUnits = units(trimmed(first.payout.amount), 6);
    // Paid to someone else: payout_mismatch.
    const elsewhere = await chain.sendToken(usdt, MERCHANT_WALLET, chain.account(5).address, amountUnits);
    await chain.receipt(elsewhere);
    expectError(await shop.test.post(`/refunds/${a.id}/sent`, { tx_hash: elsewhere }), 400, { code: 'payout_mismatch' });
    // Paid in the coin instead of the token: payout_mismatch too.
    const coin = await chain.sendNative(MERCHANT_WALLET, payer, 10n ** 18n);
    await chain.receipt(coin);
    expectError(await shop.test.post(`/refunds/${a.id}/sent`, { tx_hash: coin }), 400, { code: 'payout_mismatch' });
    expectError(await shop.test.post(`/refunds/${a.id}/sent`, { tx_hash: 'not-a-hash' }), 400, { field: 'tx_hash' });
    const tx = await chain.sendToken(usdt, MERCHANT_WALLET, payer, amountUnits);
    await chain.receipt(tx);
    expect(expectSuccess(await shop.test.post(`/refunds/${a.id}/sent`, { tx_hash: tx })).status).toBe('SENT');
    // One transaction pays one refund.
    expectError(await shop.test.post(`/refunds/${b.id}/sent`, { tx_hash: tx }), 400, { field: 'tx_hash' });
    // Also once a reorg has renumbered the block's logs: the transfer A holds no longer goes by its name (as
    // the node shows it after putting the transaction in another block), and still pays only A.
    const renamed = await withClient(service.databaseUrl!, (c) => c.query(`UPDATE refund_payout_transfers SET output = '999' WHERE refund_id = $1`, [a.id]));
    expect(renamed.rowCount).toBe(1);
    expectError(await shop.test.post(`/refunds/${b.id}/sent`, { tx_hash: tx }), 400, { field: 'tx_hash' });
    // A refund waiting for its payout can still be canceled; its amount is refundable again.
    expect(expectSuccess(await shop.test.post(`/refunds/${b.id}/cancel`)).status).toBe('CANCELED');
    const paid = expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, { expand: ['payments'] })).payments[0].price_usd;
    expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, {}), 201).amount_usd).toBe(r30(new D(paid).sub(5)));
  });

  it('takes a payout reported before it is mined, and puts the refund back to AWAITING_PAYOUT when the chain shows it short', async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const invoiceId = await paidOnChain(shop, '20');
    const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '4' }), 201);
    const token = new URL(refund.claim_url, 'http://x').pathname.split('/').pop()!;
    const payer = chain.account(PAYER).address;
    const claimed = expectSuccess(
      await new Api(null, service.server.baseUrl).post(`/refund_claims/${token}`, { provider_id: 'prov_ethereum_usdt', address: payer }),
    );
    const amountUnits = units(trimmed(claimed.payout.amount), 6);

    await chain.test.setAutomine(false);
    try {
      const pending = await chain.sendToken(usdt, MERCHANT_WALLET, payer, amountUnits - 1n);
      // Not mined yet: the report is taken as it is.
      const sent = expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: pending }));
      expect([sent.status, sent.payout.confirmations]).toEqual(['SENT', 0]);
    } finally {
      await chain.test.setAutomine(true);
    }
    await chain.mine(1);
    const back = await eventually(async () => {
      const r = expectSuccess(await shop.test.get(`/refunds/${refund.id}`));
      if (r.status !== 'AWAITING_PAYOUT') throw new Error(`status ${r.status}`);
      return r;
    }, 20_000);
    expect(back.payout.tx_hash).toBeNull();
    const updates = expectSuccess(await shop.test.post('/events', { type: ['refund.updated'] })).items;
    expect(updates[0].data.object.status).toBe('AWAITING_PAYOUT');
    expect(updates[0].data.previous_attributes).toMatchObject({ status: 'SENT' });

    // Sent again, right this time.
    const tx = await chain.sendToken(usdt, MERCHANT_WALLET, payer, amountUnits);
    await chain.receipt(tx);
    expect(expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: tx })).status).toBe('SENT');
    await chain.mine(12);
    await eventually(async () => {
      const r = expectSuccess(await shop.test.get(`/refunds/${refund.id}`));
      if (r.status !== 'COMPLETED') throw new Error(`status ${r.status}`);
    }, 20_000);
    expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {})).refunded_usd).toBe('4.000000000000000000000000000000');
  });

  it('expires a claim not given a destination in time', async () => {
    const shop = await merchant(service);
    const invoiceId = await paidOnChain(shop, '12');
    const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '2', expires_in_minutes: 5 }), 201);
    expectSuccess(await shop.test.post('/test_helpers/clock', { advance_seconds: 301 }));
    const expired = await eventually(async () => {
      const r = expectSuccess(await shop.test.get(`/refunds/${refund.id}`));
      if (r.status !== 'EXPIRED') throw new Error(`status ${r.status}`);
      return r;
    }, 20_000);
    expect(expired.destination).toBeNull();
    const token = new URL(refund.claim_url, 'http://x').pathname.split('/').pop()!;
    expectError(
      await new Api(null, service.server.baseUrl).post(`/refund_claims/${token}`, {
        provider_id: 'prov_ethereum_usdt',
        address: setup.chain.account(PAYER).address,
      }),
      400,
      {
        field: 'status',
      },
    );
    const events = expectSuccess(await shop.test.post('/events', { type: ['refund.updated'] })).items;
    expect(events[0].data.object.status).toBe('EXPIRED');
    // Its amount is refundable again: 12 USD paid, nothing held.
    expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, {}), 201).amount_usd).toBe(
      expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, { expand: ['payments'] })).payments[0].price_usd,
    );
  });
});
