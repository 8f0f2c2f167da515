import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { type IsolatedService, startIsolatedService } from '../../support/isolated';
import { r30 } from '../../support/money';
import { withClient } from '../../support/pg';
import { loggedLine } from '../../support/server';
import { eventually } from '../../support/webhook-receiver';
import { runWorkerPass } from '../../support/workers';
import { createInvoice } from '../payments/payments-helpers';
import { paymentAddress, units, waitForPayments } from '../rails/chain-helpers';
import { hexToTron, startTron, stopTron, tronMerchant, tronToHex, type TronSetup } from '../rails/tron-helpers';
import type { Merchant } from '../rails/chain-helpers';

const trimmed = (amount: string) => amount.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
/** A Tron address nobody else in the file pays (the body of a fresh key's address, written as Tron writes it). */
const freshTronAddress = () => hexToTron(privateKeyToAccount(generatePrivateKey()).address);
const MERCHANT_WALLET = 2;
const GRACE_SECONDS = 5;

/**
 * Refunds to Tron in full, on the java-tron-shaped proxy in front of Hardhat: the payer names a `T...`
 * address (its checksum checked by the Tron adapter), the merchant pays it from their own wallet, reports
 * the transaction, and the rails read it through the Tron follower (TRC-20 Transfer logs of the receipt;
 * TRX as the transaction's own value, checked against the node's HTTP API) until it is COMPLETED. A
 * payout short of the amount is refused, and so is the payer's older transfer to the address, also while
 * the node shows it without its receipt.
 */
describe('refunds paid out on Tron (java-tron-shaped proxy over Hardhat)', () => {
  let setup: TronSetup;
  let service: IsolatedService;

  beforeAll(async () => {
    setup = await startTron({ finalizedLag: 3 });
    service = await startIsolatedService({
      CHAINS_FILE: setup.chainsFile,
      CHAIN_LOCK_RETRY_MS: '300',
      REFUND_CHECK_SECONDS: '1',
      REFUND_TX_GRACE_SECONDS: String(GRACE_SECONDS),
    });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await stopTron(setup);
  });

  /** A USD invoice paid in full on Tron (USDT, or TRX), COMPLETED. */
  async function paidOnTron(shop: Merchant, price: string, provider: string): Promise<string> {
    const invoiceId = await createInvoice(shop.test, price);
    const pay = await paymentAddress(shop.test, invoiceId, provider);
    const amount = units(trimmed(pay.amount), 6);
    if (provider === 'prov_tron_usdt') await setup.chain.sendToken(setup.usdt, 1, tronToHex(pay.address), amount);
    else await setup.chain.sendNative(1, tronToHex(pay.address), amount);
    await setup.chain.mine(4);
    await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED', 30_000);
    return invoiceId;
  }

  const claim = (refund: { claim_url: string }, body: unknown) =>
    new Api(null, service.server.baseUrl).post(`/refund_claims/${new URL(refund.claim_url, 'http://x').pathname.split('/').pop()}`, body);

  const statusBecomes = (shop: Merchant, id: string, status: string, timeoutMs = 30_000) =>
    eventually(async () => {
      const r = expectSuccess(await shop.test.get(`/refunds/${id}`));
      if (r.status !== status) throw new Error(`status ${r.status}`);
      return r;
    }, timeoutMs);

  it('refuses a mistyped T address, takes a good one; a USDT (TRC-20) payout reported is SENT, then COMPLETED; a short one is refused', async () => {
    const { chain, usdt } = setup;
    const shop = await tronMerchant(service);
    const invoiceId = await paidOnTron(shop, '30', 'prov_tron_usdt');
    const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '12' }), 201);

    const payer = freshTronAddress();
    const typo = `${payer.slice(0, -1)}${payer.endsWith('a') ? 'b' : 'a'}`;
    const refused = expectError(await claim(refund, { provider_id: 'prov_tron_usdt', address: typo }), 400, { field: 'address' });
    expect(refused.validator.address).toContain('TRON address');
    const evm = expectError(await claim(refund, { provider_id: 'prov_tron_usdt', address: tronToHex(payer) }), 400, { field: 'address' });
    expect(evm.validator.address).toContain('TRON address');

    const claimed = expectSuccess(await claim(refund, { provider_id: 'prov_tron_usdt', address: payer }));
    // Tron has no payment-URI standard: the address and the amount alone.
    expect(claimed.payout).toMatchObject({ network: 'TRON', currency: 'USDT', address: payer, uri: null });
    const owed = units(trimmed(claimed.payout.amount), 6);
    expect(owed > 0n).toBe(true);
    const view = expectSuccess(await shop.test.get(`/refunds/${refund.id}`));
    expect(view.payout).toMatchObject({ network: 'TRON', address: payer, uri: null, required_confirmations: 19 });

    // A payout one unit short: mined, paying the address, and still refused.
    const short = await chain.sendToken(usdt, MERCHANT_WALLET, tronToHex(payer), owed - 1n);
    await chain.receipt(short);
    const mismatch = expectError(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: short }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(mismatch.validator.tx_hash).toBeDefined();
    expect(expectSuccess(await shop.test.get(`/refunds/${refund.id}`)).status).toBe('AWAITING_PAYOUT');
    // A malformed id is refused in the Tron form's words.
    expectError(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: '0x1234' }), 400, { field: 'tx_hash' });

    // The full payout, reported as Tronscan shows ids (no 0x): SENT, then COMPLETED once 19 blocks bury it.
    const paid = await chain.sendToken(usdt, MERCHANT_WALLET, tronToHex(payer), owed);
    await chain.receipt(paid);
    const sent = expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: paid.slice(2).toUpperCase() }));
    expect(sent.status).toBe('SENT');
    expect(sent.payout.tx_hash).toBe(paid.toLowerCase());
    await chain.mine(20);
    const done = await statusBecomes(shop, refund.id, 'COMPLETED');
    expect(done.payout.confirmations).toBeGreaterThanOrEqual(19);
    expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {})).refunded_usd).toBe(r30('12'));
  });

  it("takes the claim's tip from the watcher when the node answers a head behind it, so the payer's older transfer is no payout", async () => {
    const { chain, usdt, proxy } = setup;
    const shop = await tronMerchant(service);
    const invoiceId = await paidOnTron(shop, '20', 'prov_tron_usdt');
    const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '5' }), 201);
    const payer = freshTronAddress();
    // The payer's own older transfer to the address, of more than the refund; the watcher reads past it.
    const old = await chain.sendToken(usdt, 1, tronToHex(payer), units('50', 6));
    const { blockNumber } = await chain.receipt(old);
    await chain.mine(2);
    const cursor = async () =>
      BigInt(
        (await withClient(service.databaseUrl!, (c) => c.query(`SELECT block_number::text AS n FROM chain_cursors WHERE mode = 'test' AND network = 'tron'`)))
          .rows[0].n as string,
      );
    await eventually(async () => expect(await cursor()).toBeGreaterThanOrEqual(blockNumber));
    // The node falls behind that transfer's block (resyncing): its head is older than the watcher's cursor.
    proxy.options.headLag = 10;
    try {
      expectSuccess(await claim(refund, { provider_id: 'prov_tron_usdt', address: payer }));
      const refused = expectError(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: old }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
      expect(refused.validator.tx_hash).toContain('before the destination was given');
      expect(await loggedLine(service.server, ['"event":"payout_tip_behind"'])).toContain('"network":"tron"');
    } finally {
      proxy.options.headLag = 0;
    }
    expect(expectSuccess(await shop.test.get(`/refunds/${refund.id}`)).status).toBe('AWAITING_PAYOUT');
  });

  it("refuses the payer's own TRC-20 transfer to their address (sent from it) as a payout", async () => {
    const { chain, usdt } = setup;
    const shop = await tronMerchant(service);
    const invoiceId = await paidOnTron(shop, '20', 'prov_tron_usdt');
    const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '5' }), 201);
    // The payer's wallet holds USDT of its own (account #6).
    const payer = hexToTron(chain.account(6).address);
    const claimed = expectSuccess(await claim(refund, { provider_id: 'prov_tron_usdt', address: payer }));
    const owed = units(trimmed(claimed.payout.amount), 6);
    const own = await chain.sendToken(usdt, 6, tronToHex(payer), owed);
    await chain.receipt(own);
    const refused = expectError(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: own }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(refused.validator.tx_hash).toContain('itself');
    const paid = await chain.sendToken(usdt, MERCHANT_WALLET, tronToHex(payer), owed);
    await chain.receipt(paid);
    expect(expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: paid })).status).toBe('SENT');
  });

  it('reads a TRX payout as the transaction value, checked against the HTTP API; a short one is refused', async () => {
    const { chain } = setup;
    const shop = await tronMerchant(service);
    const invoiceId = await paidOnTron(shop, '20', 'prov_tron_tron');
    const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '5' }), 201);
    const payer = freshTronAddress();
    const claimed = expectSuccess(await claim(refund, { provider_id: 'prov_tron_tron', address: payer }));
    expect(claimed.payout).toMatchObject({ network: 'TRON', currency: 'TRON', address: payer, uri: null });
    const owed = units(trimmed(claimed.payout.amount), 6);

    const short = await chain.sendNative(MERCHANT_WALLET, tronToHex(payer), owed - 1n);
    await chain.receipt(short);
    expectError(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: short }), 400, { code: 'payout_mismatch', field: 'tx_hash' });

    const calls = setup.proxy.count('gettransactionbyid');
    const paid = await chain.sendNative(MERCHANT_WALLET, tronToHex(payer), owed);
    await chain.receipt(paid);
    expect(expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: paid })).status).toBe('SENT');
    // The HTTP API was asked what the transaction is (a TRX TransferContract, not a TRC-10 token).
    expect(setup.proxy.count('gettransactionbyid')).toBeGreaterThan(calls);
    await chain.mine(20);
    await statusBecomes(shop, refund.id, 'COMPLETED');
  });

  /**
   * A USDT refund of 5 USD claimed to a fresh payer address that received 10 USDT before the claim (an
   * exchange withdrawal, say), 25 blocks deep; the node then shows that old transfer without its receipt.
   */
  async function oldTransferWithheld(shop: Merchant) {
    const { chain, usdt, proxy } = setup;
    const invoiceId = await paidOnTron(shop, '20', 'prov_tron_usdt');
    const payer = freshTronAddress();
    const old = await chain.sendToken(usdt, MERCHANT_WALLET, tronToHex(payer), units('10', 6));
    await chain.receipt(old);
    await chain.mine(25);
    const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '5' }), 201);
    const claimed = expectSuccess(await claim(refund, { provider_id: 'prov_tron_usdt', address: payer }));
    expect(units(trimmed(claimed.payout.amount), 6) <= units('10', 6)).toBe(true);
    proxy.options.withheldReceipts.add(old.toLowerCase());
    return { invoiceId, refundId: refund.id as string, old };
  }

  /** The service's log line of a reported payout taken back, with its verdict. */
  const takenBack = (refundId: string) => loggedLine(service.server, ['refund_payout_mismatch', refundId]);

  it("takes the payer's old transfer, reported while the node withholds its receipt, as a hash it does not know: never COMPLETED, refused as older than the destination once the receipt is shown", async () => {
    const shop = await tronMerchant(service);
    const { invoiceId, refundId, old } = await oldTransferWithheld(shop);
    // Not "seen unmined" (java-tron shows no unmined transaction): taken as an unknown hash is, for the grace.
    const sent = expectSuccess(await shop.test.post(`/refunds/${refundId}/sent`, { tx_hash: old }));
    expect([sent.status, sent.payout.confirmations]).toEqual(['SENT', 0]);
    await runWorkerPass(shop.test, 'refund-payouts');
    expect(expectSuccess(await shop.test.get(`/refunds/${refundId}`)).status).toBe('SENT');

    // The node shows the receipt again: mined 25 blocks before the claim, it is no payout of this refund.
    setup.proxy.options.withheldReceipts.delete(old.toLowerCase());
    await runWorkerPass(shop.test, 'refund-payouts');
    const back = await statusBecomes(shop, refundId, 'AWAITING_PAYOUT', 10_000);
    expect(back.payout.tx_hash).toBeNull();
    expect(await takenBack(refundId)).toContain('"verdict":"too_early"');
    expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {})).refunded_usd).toBe(r30('0'));
    const refused = expectError(await shop.test.post(`/refunds/${refundId}/sent`, { tx_hash: old }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(refused.validator.tx_hash).toContain('before the destination was given');
  });

  it('gives the refund back to AWAITING_PAYOUT after the grace when the node never shows the receipt', async () => {
    const shop = await tronMerchant(service);
    const { invoiceId, refundId, old } = await oldTransferWithheld(shop);
    expect(expectSuccess(await shop.test.post(`/refunds/${refundId}/sent`, { tx_hash: old })).status).toBe('SENT');
    const startedAt = Date.now();
    const back = await statusBecomes(shop, refundId, 'AWAITING_PAYOUT');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual((GRACE_SECONDS - 1) * 1000);
    expect(back.payout.tx_hash).toBeNull();
    expect(await takenBack(refundId)).toContain('"verdict":"not_seen"');
    expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {})).refunded_usd).toBe(r30('0'));
    setup.proxy.options.withheldReceipts.delete(old.toLowerCase());
    expectError(await shop.test.post(`/refunds/${refundId}/sent`, { tx_hash: old }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
  });
});
