import { encodeFunctionData, Hex, parseAbi } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { CHAIN_ID, MNEMONIC } from '../../chain/local-chain';
import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import type { IsolatedService } from '../../support/isolated';
import { eventually } from '../../support/webhook-receiver';
import { ChainSetup, merchant, Merchant, paymentAddress, startChain, startWatchingService, units, waitForPayments } from '../rails/chain-helpers';

const trimmed = (amount: string) => amount.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
const TRANSFER_ABI = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);
const PAYER = 3;
const MERCHANT_WALLET = 2;
/** The account whose transfers never get mined: its nonces start one past the next one it could use. */
const STUCK_WALLET = 6;

/**
 * Fair payout checks (decisions §22): the refunds worker takes SENT refunds round-robin across
 * organizations, at most WORKER_ORG_BATCH of one organization's mode per pass, and a refund it could
 * not finish goes to the back of its organization's line. Two organizations report 50 payouts each
 * whose transactions the node holds but will never mine (a nonce gap): more than the worker's whole
 * batch of 100. A third organization's real payout, reported after them, is still confirmed to
 * COMPLETED, and so is a real payout the first organization reported behind its own 50.
 */
describe('refund payouts are checked fairly across organizations', () => {
  let setup: ChainSetup;
  let service: IsolatedService;

  beforeAll(async () => {
    setup = await startChain();
    service = await startWatchingService(setup, { REFUND_CHECK_SECONDS: '1', WORKER_ORG_BATCH: '10', RATE_LIMIT_ENABLED: 'false' });
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
    await setup?.chain.stop();
  });

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

  /** A refund of `amount` USD claimed to the payer in USDT: its id and the payout in token units. */
  async function claimed(shop: Merchant, invoiceId: string, amount: string): Promise<{ id: string; units: bigint }> {
    const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount }), 201);
    const token = new URL(refund.claim_url, 'http://x').pathname.split('/').pop()!;
    const claim = expectSuccess(
      await new Api(null, service.server.baseUrl).post(`/refund_claims/${token}`, {
        provider_id: 'prov_ethereum_usdt',
        address: setup.chain.account(PAYER).address,
      }),
    );
    return { id: refund.id, units: units(trimmed(claim.payout.amount), 6) };
  }

  async function status(shop: Merchant, id: string): Promise<{ status: string; confirmations: number }> {
    const r = expectSuccess(await shop.test.get(`/refunds/${id}`));
    return { status: r.status, confirmations: r.payout.confirmations };
  }

  it("confirms a third organization's payout, and one behind its own organization's, while two organizations' 100 payouts never get mined", async () => {
    const { chain, usdt } = setup;
    const flooders = [await merchant(service), await merchant(service)];
    const quiet = await merchant(service);

    // 50 refunds of 1 USD each per flooding organization, claimed.
    const junk: Array<{ shop: Merchant; id: string; units: bigint }> = [];
    for (const shop of flooders) {
      const invoiceId = await paidOnChain(shop, '60');
      // One at a time: each refund of an invoice locks the invoice.
      for (let i = 0; i < 50; i++) junk.push({ shop, ...(await claimed(shop, invoiceId, '1')) });
    }
    const quietInvoice = await paidOnChain(quiet, '20');
    const quietRefund = await claimed(quiet, quietInvoice, '5');
    const behindOwn = await claimed(flooders[0], await paidOnChain(flooders[0], '10'), '5');

    // Each flooding payout is a real transfer paying its refund's destination in full, which the node
    // holds in its pool and never mines: the account's next nonce is never used.
    const stuck = mnemonicToAccount(MNEMONIC, { addressIndex: STUCK_WALLET });
    const next = await chain.public.getTransactionCount({ address: stuck.address, blockTag: 'pending' });
    const payer = chain.account(PAYER).address;
    const raws: Hex[] = [];
    for (const [i, r] of junk.entries()) {
      raws.push(
        await stuck.signTransaction({
          type: 'eip1559',
          chainId: CHAIN_ID,
          to: usdt,
          data: encodeFunctionData({ abi: TRANSFER_ABI, functionName: 'transfer', args: [payer, r.units] }),
          nonce: next + 1 + i,
          gas: 100_000n,
          maxFeePerGas: 100_000_000_000n,
          maxPriorityFeePerGas: 1_000_000_000n,
        }),
      );
    }
    // Hardhat takes a transaction with a nonce gap into its pool only while it does not mine on each transaction.
    await chain.test.setAutomine(false);
    let hashes: Hex[];
    try {
      hashes = [];
      for (const raw of raws) hashes.push(await chain.sendRaw(raw));
    } finally {
      await chain.test.setAutomine(true);
    }
    for (let i = 0; i < junk.length; i += 10) {
      await Promise.all(
        junk.slice(i, i + 10).map(async (r, k) => {
          const sent = expectSuccess(await r.shop.test.post(`/refunds/${r.id}/sent`, { tx_hash: hashes[i + k] }));
          expect([sent.status, sent.payout.confirmations]).toEqual(['SENT', 0]);
        }),
      );
    }

    // Real payouts, reported after all 100: the quiet organization's, and one of the first flooding organization's.
    for (const [shop, refund] of [
      [quiet, quietRefund],
      [flooders[0], behindOwn],
    ] as const) {
      const tx = await chain.sendToken(usdt, MERCHANT_WALLET, payer, refund.units);
      await chain.receipt(tx);
      expect(expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: tx })).status).toBe('SENT');
    }
    await chain.mine(12);
    // Oldest first, the 100 stuck payouts would fill every pass and neither would ever be looked at again.
    // In turns, the quiet one is in the next pass; the one behind its own organization's 50 comes
    // once those went to the back, ten a pass.
    await eventually(async () => {
      const r = await status(quiet, quietRefund.id);
      if (r.status !== 'COMPLETED') throw new Error(`quiet refund ${JSON.stringify(r)}`);
    }, 10_000);
    await eventually(async () => {
      const r = await status(flooders[0], behindOwn.id);
      if (r.status !== 'COMPLETED') throw new Error(`refund behind its own organization's ${JSON.stringify(r)}`);
    }, 30_000);
    expect(expectSuccess(await quiet.test.post(`/invoices/${quietInvoice}`, {})).refunded_usd).toBe('5.000000000000000000000000000000');
    // The stuck ones are still SENT, unconfirmed, their transactions still in the node's pool.
    for (const r of junk.slice(0, 3)) expect(await status(r.shop, r.id)).toEqual({ status: 'SENT', confirmations: 0 });
    expect((await chain.public.getTransaction({ hash: hashes[0] })).blockNumber).toBeNull();
  }, 300_000);
});
