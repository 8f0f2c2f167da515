import type { Hex } from 'viem';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import type { IsolatedService } from '../../support/isolated';
import { D, r30 } from '../../support/money';
import { withClient } from '../../support/pg';
import { CLI, loggedLine } from '../../support/server';
import { eventually } from '../../support/webhook-receiver';
import { ChainSetup, merchant, Merchant, paymentAddress, startChain, startWatchingService, units, waitForPayments } from '../rails/chain-helpers';
import { JsonRpcRelay } from '../rails/json-rpc-relay';

const exec = promisify(execFile);
const trimmed = (amount: string) => amount.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
/** An address nobody else in the file pays. */
const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const MERCHANT_WALLET = 2;
const GRACE_SECONDS = 2;

/**
 * What a payout report must prove (decisions §19), on a real Hardhat node: a transaction mined before
 * the destination was set is no payout; a hash the node does not know is refused and nothing is kept;
 * each transfer pays one refund and holds its place only once it is shown to pay it; a payout dropped
 * from the node unmined gives the refund back to AWAITING_PAYOUT after the grace, and one canceled
 * then stays canceled when the transaction is mined after all; `rate: current` prices the payout at
 * the rates of the claim. The service reads the node through a relay that can withhold a mined
 * transaction's receipt (a node lacking it): the payer's older transfer reported then is never taken as
 * a new payout.
 */
describe('what a refund payout report must prove (Hardhat)', () => {
  let setup: ChainSetup;
  let service: IsolatedService;
  /** Transactions (lower-case hashes) whose receipt the relay answers null while it still shows them by hash. */
  const withheldReceipts = new Set<string>();
  /** Transactions (lower-case hashes) the relay answers an error for: the node does not answer about them now. */
  const unanswered = new Set<string>();
  const relay = new JsonRpcRelay('', {
    answer(call, answer) {
      const hash = String(call.params?.[0]).toLowerCase();
      if (call.method === 'eth_getTransactionReceipt' && withheldReceipts.has(hash)) return { jsonrpc: '2.0', id: call.id, result: null };
      if (unanswered.has(hash)) return { jsonrpc: '2.0', id: call.id, error: { code: -32603, message: 'the node is busy' } };
      return answer;
    },
  });

  beforeAll(async () => {
    await relay.start();
    setup = await startChain({}, (chain) => {
      relay.nodeUrl = chain.rpcUrl;
      return relay.url;
    });
    service = await startWatchingService(setup, {
      REFUND_CHECK_SECONDS: '1',
      REFUND_TX_GRACE_SECONDS: String(GRACE_SECONDS),
      WORKER_ORG_BATCH: '10',
      // One test claims a hundred refunds from one address in a row.
      RATE_LIMIT_ENABLED: 'false',
    });
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
    await relay.stop();
    await setup?.chain.stop();
  });

  /** A USD invoice paid in full on the chain (USDT, or the chain's coin), COMPLETED. */
  async function paidOnChain(shop: Merchant, price: string, provider = 'prov_ethereum_usdt'): Promise<string> {
    const invoiceId = expectSuccess<{ id: string }>(
      await shop.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price }] }),
      201,
    ).id;
    const pay = await paymentAddress(shop.test, invoiceId, provider);
    if (provider === 'prov_ethereum_usdt') await setup.chain.sendToken(setup.usdt, 1, pay.address, units(trimmed(pay.amount), 6));
    else await setup.chain.sendNative(1, pay.address, units(trimmed(pay.amount), 18));
    await setup.chain.mine(12);
    await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED', 30_000);
    return invoiceId;
  }

  const claim = (refund: { claim_url: string }, body: unknown) =>
    new Api(null, service.server.baseUrl).post(`/refund_claims/${new URL(refund.claim_url, 'http://x').pathname.split('/').pop()}`, body);

  /** A refund of `amount` USD claimed to `address`; its payout in smallest units. */
  async function claimed(shop: Merchant, invoiceId: string, amount: string, provider: string, address: string) {
    const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount }), 201);
    const body = expectSuccess(await claim(refund, { provider_id: provider, address }));
    return { id: refund.id as string, payout: body.payout, units: units(trimmed(body.payout.amount), provider === 'prov_ethereum_usdt' ? 6 : 18) };
  }

  const refundOf = async (shop: Merchant, id: string) => expectSuccess(await shop.test.get(`/refunds/${id}`));
  const statusBecomes = (shop: Merchant, id: string, status: string, timeoutMs = 20_000) =>
    eventually(async () => {
      const r = await refundOf(shop, id);
      if (r.status !== status) throw new Error(`status ${r.status}`);
      return r;
    }, timeoutMs);

  /** Runs `work` with automine off (transactions wait unmined until `mine`). */
  async function unmined<T>(work: () => Promise<T>): Promise<T> {
    await setup.chain.test.setAutomine(false);
    try {
      return await work();
    } finally {
      await setup.chain.test.setAutomine(true);
    }
  }

  /** The taken-back payout `raw` (hash `hash`) sent again and mined: the line the service logs for refund `refundId`. */
  async function minedAgainLogged(raw: Hex, hash: Hex, refundId: string): Promise<string> {
    expect(await setup.chain.sendRaw(raw)).toBe(hash);
    await setup.chain.receipt(hash);
    await setup.chain.mine(2);
    return eventually(async () => {
      const line = service.server
        .output()
        .split('\n')
        .find((l) => l.includes('refund_released_payout_mined') && l.includes(refundId));
      if (!line) throw new Error('not logged yet');
      return line;
    }, 20_000);
  }

  it('refuses a transaction mined before the destination was given (an earlier block, or the tip block of the claim), takes a later one', async () => {
    const { chain } = setup;
    const shop = await merchant(service);
    const invoiceId = await paidOnChain(shop, '40', 'prov_ethereum_ethereum');
    const payer = freshAddress();
    // Long before the refund, someone sent that address 1 ETH.
    const old = await chain.sendNative(MERCHANT_WALLET, payer, 10n ** 18n);
    await chain.receipt(old);
    await chain.mine(3);
    // Then, in the block that is the tip when the payer claims, another 1 ETH.
    const atTip = await chain.sendNative(MERCHANT_WALLET, payer, 10n ** 18n);
    const tipBlock = (await chain.receipt(atTip)).blockNumber;
    expect(await chain.blockNumber()).toBe(tipBlock);

    const refund = await claimed(shop, invoiceId, '10', 'prov_ethereum_ethereum', payer);
    expect(refund.units < 10n ** 18n).toBe(true);
    for (const hash of [old, atTip]) {
      const refused = expectError(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: hash }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
      expect(refused.validator.tx_hash).toContain('before the destination was given');
    }
    const waiting = await refundOf(shop, refund.id);
    expect([waiting.status, waiting.payout.tx_hash]).toEqual(['AWAITING_PAYOUT', null]);

    // A payout sent after the claim: SENT, confirmed to COMPLETED; only then is it refunded.
    const tx = await chain.sendNative(MERCHANT_WALLET, payer, refund.units);
    await chain.receipt(tx);
    expect(expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: tx })).status).toBe('SENT');
    expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {})).refunded_usd).toBe(r30('0'));
    await chain.mine(12);
    await statusBecomes(shop, refund.id, 'COMPLETED');
    expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {})).refunded_usd).toBe(r30('10'));
  });

  it('answers a hash the node does not know 400 tx_not_found and keeps nothing', async () => {
    const shop = await merchant(service);
    const invoiceId = await paidOnChain(shop, '15');
    const refund = await claimed(shop, invoiceId, '5', 'prov_ethereum_usdt', freshAddress());
    const unknown = `0x${'ab'.repeat(32)}`;
    const refused = expectError(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: unknown }), 400, { code: 'tx_not_found', field: 'tx_hash' });
    expect(refused.error).toContain('not known');
    const after = await refundOf(shop, refund.id);
    expect([after.status, after.payout.tx_hash]).toEqual(['AWAITING_PAYOUT', null]);
    // Nothing was recorded: no refund.updated for a report.
    const updates = expectSuccess(await shop.test.post('/events', { type: ['refund.updated'] })).items;
    expect(updates.filter((e: any) => e.data.object.id === refund.id && e.data.object.status === 'SENT')).toEqual([]);
    // And it can still be canceled.
    expect(expectSuccess(await shop.test.post(`/refunds/${refund.id}/cancel`)).status).toBe('CANCELED');
  });

  it("lets no other organization's report hold a pending payout: A's own report is taken and completes, B's goes back", async () => {
    const { chain, usdt } = setup;
    const a = await merchant(service);
    const b = await merchant(service);
    const invoiceA = await paidOnChain(a, '20');
    const invoiceB = await paidOnChain(b, '20');
    const payerA = freshAddress();
    const refundA = await claimed(a, invoiceA, '5', 'prov_ethereum_usdt', payerA);
    const refundB = await claimed(b, invoiceB, '5', 'prov_ethereum_usdt', freshAddress());
    // Another refund of B, to the same address as A's, claimed before A's payout is sent.
    const refundB2 = await claimed(b, invoiceB, '5', 'prov_ethereum_usdt', payerA);

    const hash = await unmined(async () => {
      const pending = await chain.sendToken(usdt, MERCHANT_WALLET, payerA, refundA.units);
      // B reports A's payout while it waits unmined: the node shows it, so it is taken as B's report for now.
      expect(expectSuccess(await b.test.post(`/refunds/${refundB.id}/sent`, { tx_hash: pending })).status).toBe('SENT');
      // A's own report is not blocked by it.
      const sentA = expectSuccess(await a.test.post(`/refunds/${refundA.id}/sent`, { tx_hash: pending }));
      expect([sentA.status, sentA.payout.confirmations]).toEqual(['SENT', 0]);
      return pending;
    });
    await chain.mine(12);
    await statusBecomes(a, refundA.id, 'COMPLETED');
    expect(expectSuccess(await a.test.post(`/invoices/${invoiceA}`, {})).refunded_usd).toBe(r30('5'));
    // B's report did not pay B's refund: back to AWAITING_PAYOUT, nothing refunded.
    const back = await statusBecomes(b, refundB.id, 'AWAITING_PAYOUT');
    expect(back.payout.tx_hash).toBeNull();
    expect(expectSuccess(await b.test.post(`/invoices/${invoiceB}`, {})).refunded_usd).toBe(r30('0'));

    // Reported again by B now that it is mined: refused at once, in words that name nothing of A's.
    const refused = expectError(await b.test.post(`/refunds/${refundB.id}/sent`, { tx_hash: hash }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(JSON.stringify(refused)).not.toContain(refundA.id);
    expect(JSON.stringify(refused)).not.toContain(a.id);
    expect(JSON.stringify(refused)).not.toContain(payerA);

    // That refund of B cannot take the transfer A's refund holds.
    const late = await chain.sendToken(usdt, MERCHANT_WALLET, payerA, refundA.units);
    await chain.receipt(late);
    const taken = expectError(await b.test.post(`/refunds/${refundB2.id}/sent`, { tx_hash: hash }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(taken.validator.tx_hash).toContain('already pay another refund');
    expect(JSON.stringify(taken)).not.toContain(refundA.id);
    // Its own payout is taken.
    expect(expectSuccess(await b.test.post(`/refunds/${refundB2.id}/sent`, { tx_hash: late })).status).toBe('SENT');
  });

  it('lets one transaction with two transfers to one address pay two refunds of it, one transfer each', async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const invoiceId = await paidOnChain(shop, '20');
    const payer = freshAddress();
    const first = await claimed(shop, invoiceId, '4', 'prov_ethereum_usdt', payer);
    const second = await claimed(shop, invoiceId, '4', 'prov_ethereum_usdt', payer);
    const third = await claimed(shop, invoiceId, '4', 'prov_ethereum_usdt', payer);
    const both = await chain.sendTokenMany(usdt, MERCHANT_WALLET, [payer, payer], [first.units, second.units]);
    await chain.receipt(both);
    expect(expectSuccess(await shop.test.post(`/refunds/${first.id}/sent`, { tx_hash: both })).status).toBe('SENT');
    expect(expectSuccess(await shop.test.post(`/refunds/${second.id}/sent`, { tx_hash: both })).status).toBe('SENT');
    // A third refund of the address, claimed before it too, finds both transfers taken.
    const taken = expectError(await shop.test.post(`/refunds/${third.id}/sent`, { tx_hash: both }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(taken.validator.tx_hash).toContain('already pay another refund');
    await chain.mine(12);
    await statusBecomes(shop, first.id, 'COMPLETED');
    await statusBecomes(shop, second.id, 'COMPLETED');
    expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {})).refunded_usd).toBe(r30('8'));
  });

  it("refuses the payer's own transaction to their address (sent from it), mined after the claim, and takes the merchant's payout", async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const invoiceId = await paidOnChain(shop, '20');
    // The payer's wallet holds tokens of its own (account #7).
    const payer = chain.account(7).address;
    const refund = await claimed(shop, invoiceId, '5', 'prov_ethereum_usdt', payer);
    // After the claim, the payer moves tokens to their own address (a swap's leg, a transfer to themselves).
    const own = await chain.sendToken(usdt, 7, payer, refund.units * 2n);
    await chain.receipt(own);
    const refused = expectError(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: own }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(refused.validator.tx_hash).toContain('itself');
    expect(expectSuccess(await shop.test.get(`/refunds/${refund.id}`)).status).toBe('AWAITING_PAYOUT');
    // The merchant's payout is taken.
    const paid = await chain.sendToken(usdt, MERCHANT_WALLET, payer, refund.units);
    await chain.receipt(paid);
    expect(expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: paid })).status).toBe('SENT');
  });

  it("refuses a transfer of the payer's tokens to their own address by someone they approved (a contract wallet's relayer)", async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const invoiceId = await paidOnChain(shop, '20');
    const payer = chain.account(7).address;
    // The payer lets account #8 move its tokens (as a contract wallet's owner or a relayer acts for it).
    await chain.receipt(await chain.approveToken(usdt, 7, 8, 10n ** 12n));
    const refund = await claimed(shop, invoiceId, '5', 'prov_ethereum_usdt', payer);
    // After the claim, #8 moves the payer's tokens from the payer's address to the same address: sent by #8, paying nothing.
    const relayed = await chain.sendRaw(await chain.signTokenTransferFrom(usdt, 8, 7, payer, refund.units));
    expect((await chain.receipt(relayed)).status).toBe('success');
    const refused = expectError(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: relayed }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(refused.validator.tx_hash).toContain('itself');
    expect(expectSuccess(await shop.test.get(`/refunds/${refund.id}`)).status).toBe('AWAITING_PAYOUT');
  });

  it('lets one transaction paying two refunds of one address different amounts pay both, the smaller reported first', async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const invoiceId = await paidOnChain(shop, '20');
    const payer = freshAddress();
    const big = await claimed(shop, invoiceId, '10', 'prov_ethereum_usdt', payer);
    const small = await claimed(shop, invoiceId, '1', 'prov_ethereum_usdt', payer);
    // The big one first in the transaction; the small refund is reported first and takes the transfer of its own amount.
    const tx = await chain.sendTokenMany(usdt, MERCHANT_WALLET, [payer, payer], [big.units, small.units]);
    await chain.receipt(tx);
    expect(expectSuccess(await shop.test.post(`/refunds/${small.id}/sent`, { tx_hash: tx })).status).toBe('SENT');
    expect(expectSuccess(await shop.test.post(`/refunds/${big.id}/sent`, { tx_hash: tx })).status).toBe('SENT');
    await chain.mine(12);
    await statusBecomes(shop, small.id, 'COMPLETED');
    await statusBecomes(shop, big.id, 'COMPLETED');
    expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {})).refunded_usd).toBe(r30('11'));
  });

  it('after a reorg renumbered the logs, a held transfer whose name now names another of the address still holds its own: no second refund takes it', async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const invoiceId = await paidOnChain(shop, '20');
    const payer = freshAddress();
    const first = await claimed(shop, invoiceId, '8', 'prov_ethereum_usdt', payer);
    const second = await claimed(shop, invoiceId, '8', 'prov_ethereum_usdt', payer);
    // One transaction: the first refund's amount to the payer, then half of it.
    const tx = await chain.sendTokenMany(usdt, MERCHANT_WALLET, [payer, payer], [first.units, first.units / 2n]);
    await chain.receipt(tx);
    expect(expectSuccess(await shop.test.post(`/refunds/${first.id}/sent`, { tx_hash: tx })).status).toBe('SENT');
    const [held] = (
      await withClient(service.databaseUrl!, (c) => c.query(`SELECT output FROM refund_payout_transfers WHERE refund_id = $1`, [first.id]))
    ).rows.map((r) => r.output as string);
    // A reorg moved the transaction's logs: the name the first refund holds now names the half transfer (as the
    // node would show the transaction in its new block; here the held name moves onto the half transfer's).
    await withClient(service.databaseUrl!, (c) =>
      c.query(`UPDATE refund_payout_transfers SET output = $2 WHERE refund_id = $1`, [first.id, String(Number(held) + 1)]),
    );
    // The second refund of the payer finds only the half transfer free: refused, not paid by the first refund's transfer.
    const refused = expectError(await shop.test.post(`/refunds/${second.id}/sent`, { tx_hash: tx }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(refused.validator.tx_hash).toContain('already pay another refund');
    expect(expectSuccess(await shop.test.get(`/refunds/${second.id}`)).status).toBe('AWAITING_PAYOUT');
  });

  it("after a reorg renumbered the logs, a held name that now names another address's transfer does not keep that address's refund from its own", async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const invoiceId = await paidOnChain(shop, '20');
    const [payerA, payerB] = [freshAddress(), freshAddress()];
    const first = await claimed(shop, invoiceId, '8', 'prov_ethereum_usdt', payerA);
    const second = await claimed(shop, invoiceId, '5', 'prov_ethereum_usdt', payerB);
    // One transaction pays both: the first refund's payer, then the second's.
    const tx = await chain.sendTokenMany(usdt, MERCHANT_WALLET, [payerA, payerB], [first.units, second.units]);
    await chain.receipt(tx);
    expect(expectSuccess(await shop.test.post(`/refunds/${first.id}/sent`, { tx_hash: tx })).status).toBe('SENT');
    const [held] = (
      await withClient(service.databaseUrl!, (c) => c.query(`SELECT output FROM refund_payout_transfers WHERE refund_id = $1`, [first.id]))
    ).rows.map((r) => r.output as string);
    // A reorg moved the transaction's logs: the name the first refund holds is now the second payer's transfer's.
    await withClient(service.databaseUrl!, (c) =>
      c.query(`UPDATE refund_payout_transfers SET output = $2 WHERE refund_id = $1`, [first.id, String(Number(held) + 1)]),
    );
    // The second refund takes its own payer's transfer under that name; the first still holds its payer's.
    expect(expectSuccess(await shop.test.post(`/refunds/${second.id}/sent`, { tx_hash: tx })).status).toBe('SENT');
    const rows = (
      await withClient(service.databaseUrl!, (c) =>
        c.query(`SELECT refund_id, output, recipient FROM refund_payout_transfers WHERE tx_hash = $1 ORDER BY refund_id = $2 DESC`, [tx, first.id]),
      )
    ).rows.map((r) => ({ ...r, recipient: String(r.recipient).toLowerCase() }));
    expect(rows).toEqual([
      { refund_id: first.id, output: String(Number(held) + 1), recipient: expect.stringContaining(payerA.toLowerCase()) },
      { refund_id: second.id, output: String(Number(held) + 1), recipient: expect.stringContaining(payerB.toLowerCase()) },
    ]);
  });

  it('lets refunds reported at once on one transaction each take a transfer of their own: none is refused as taken while one is free', async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const invoiceId = await paidOnChain(shop, '20');
    const payer = freshAddress();
    const refunds = [];
    for (let i = 0; i < 4; i++) refunds.push(await claimed(shop, invoiceId, '4', 'prov_ethereum_usdt', payer));
    const tx = await chain.sendTokenMany(
      usdt,
      MERCHANT_WALLET,
      refunds.map(() => payer),
      refunds.map((r) => r.units),
    );
    await chain.receipt(tx);
    const reports = await Promise.all(refunds.map((r) => shop.test.post(`/refunds/${r.id}/sent`, { tx_hash: tx })));
    for (const res of reports) expect(expectSuccess(res).status).toBe('SENT');
    await chain.mine(12);
    for (const r of refunds) await statusBecomes(shop, r.id, 'COMPLETED');
    expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {})).refunded_usd).toBe(r30('16'));
  });

  it('gives a refund whose payout left the node unmined back to AWAITING_PAYOUT after the grace; canceled then, it stays CANCELED when the payout is mined later', async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const invoiceId = await paidOnChain(shop, '20');
    const payer = freshAddress();
    const refund = await claimed(shop, invoiceId, '6', 'prov_ethereum_usdt', payer);

    const raw = await chain.signTokenTransfer(usdt, MERCHANT_WALLET, payer, refund.units);
    const hash = await unmined(async () => {
      const pending = await chain.sendRaw(raw);
      // Unmined but shown by the node: taken.
      const sent = expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: pending }));
      expect([sent.status, sent.payout.tx_hash]).toEqual(['SENT', pending]);
      // It leaves the node without being mined.
      await chain.test.dropTransaction({ hash: pending });
      await expect(chain.public.getTransaction({ hash: pending })).rejects.toThrow();
      return pending;
    });
    const startedAt = Date.now();
    const back = await statusBecomes(shop, refund.id, 'AWAITING_PAYOUT');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual((GRACE_SECONDS - 1) * 1000);
    expect(back.payout.tx_hash).toBeNull();
    const updates = expectSuccess(await shop.test.post('/events', { type: ['refund.updated'] })).items;
    expect(updates[0].data).toMatchObject({ object: { id: refund.id, status: 'AWAITING_PAYOUT' }, previous_attributes: { status: 'SENT' } });
    // Waiting for a payout again, it may be canceled.
    expect(expectSuccess(await shop.test.post(`/refunds/${refund.id}/cancel`)).status).toBe('CANCELED');

    // The very same transaction is sent again and mined: the refund stays CANCELED, and the service logs it.
    const line = await minedAgainLogged(raw, hash, refund.id);
    expect(line).toContain(hash);
    expect(line).toContain('CANCELED');
    const after = await refundOf(shop, refund.id);
    expect([after.status, after.payout.tx_hash]).toEqual(['CANCELED', null]);
    expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {})).refunded_usd).toBe(r30('0'));
  });

  it("watches a payout taken back after the grace while another organization has a pass's worth of taken-back payouts that are never mined", async () => {
    const { chain, usdt } = setup;
    // A hundred of another organization's refunds whose reported payouts were taken back after the grace
    // and that no node will ever know (what reporting made-up transactions leaves), released before this one.
    const flooder = await merchant(service);
    const floodInvoice = await paidOnChain(flooder, '110');
    const junk: string[] = [];
    for (let i = 0; i < 100; i++) junk.push((await claimed(flooder, floodInvoice, '1', 'prov_ethereum_usdt', freshAddress())).id);
    await withClient(service.databaseUrl!, (c) =>
      c.query(`UPDATE refunds SET released_tx_hash = '0x' || md5(id) || md5(id || 'junk'), released_at = now() - interval '1 minute' WHERE id = ANY($1)`, [
        junk,
      ]),
    );

    const shop = await merchant(service);
    const invoiceId = await paidOnChain(shop, '20');
    const payer = freshAddress();
    const refund = await claimed(shop, invoiceId, '6', 'prov_ethereum_usdt', payer);
    const raw = await chain.signTokenTransfer(usdt, MERCHANT_WALLET, payer, refund.units);
    const hash = await unmined(async () => {
      const pending = await chain.sendRaw(raw);
      expect(expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: pending })).status).toBe('SENT');
      await chain.test.dropTransaction({ hash: pending });
      return pending;
    });
    await statusBecomes(shop, refund.id, 'AWAITING_PAYOUT');
    // Mined after all: the watch finds it, though a hundred older released payouts never get a verdict.
    await minedAgainLogged(raw, hash, refund.id);
    // The flooding organization's are still watched, in turns.
    const watched = await withClient(service.databaseUrl!, (c) =>
      c.query(`SELECT count(*)::int AS n FROM refunds WHERE id = ANY($1) AND released_tx_hash IS NOT NULL AND released_checked_at IS NOT NULL`, [junk]),
    );
    expect(watched.rows[0].n).toBeGreaterThan(0);
  }, 180_000);

  /**
   * A USDT refund of 5 USD claimed to a fresh payer address that received 10 USDT before the claim (an
   * exchange withdrawal, say), a few blocks deep.
   */
  async function oldTransferToPayer(shop: Merchant) {
    const { chain, usdt } = setup;
    const invoiceId = await paidOnChain(shop, '20');
    const payer = freshAddress();
    const old = await chain.sendToken(usdt, MERCHANT_WALLET, payer, units('10', 6));
    await chain.receipt(old);
    await chain.mine(3);
    const refund = await claimed(shop, invoiceId, '5', 'prov_ethereum_usdt', payer);
    expect(refund.units <= units('10', 6)).toBe(true);
    return { invoiceId, refundId: refund.id, old };
  }

  /** The service's log line of a reported payout taken back, with its verdict. */
  const takenBack = (refundId: string) => loggedLine(service.server, ['refund_payout_mismatch', refundId]);

  it("refuses the payer's old transfer reported while the node shows it mined but withholds its receipt (not known), and as older than the destination once the receipt is shown", async () => {
    const shop = await merchant(service);
    const { invoiceId, refundId, old } = await oldTransferToPayer(shop);
    withheldReceipts.add(old.toLowerCase());
    try {
      // The node shows the transaction in a block; without its receipt it is not known, never "waiting unmined".
      expect((await setup.chain.public.getTransaction({ hash: old })).blockNumber).not.toBeNull();
      expectError(await shop.test.post(`/refunds/${refundId}/sent`, { tx_hash: old }), 400, { code: 'tx_not_found', field: 'tx_hash' });
      const waiting = await refundOf(shop, refundId);
      expect([waiting.status, waiting.payout.tx_hash]).toEqual(['AWAITING_PAYOUT', null]);
    } finally {
      withheldReceipts.delete(old.toLowerCase());
    }
    // With its receipt: mined before the destination was given, it is no payout of this refund.
    const refused = expectError(await shop.test.post(`/refunds/${refundId}/sent`, { tx_hash: old }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(refused.validator.tx_hash).toContain('before the destination was given');
    expect((await refundOf(shop, refundId)).status).toBe('AWAITING_PAYOUT');
    expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {})).refunded_usd).toBe(r30('0'));
  });

  it("gives a SENT refund back after the grace when the node shows its reported transaction mined but never its receipt: the payer's old transfer is never COMPLETED", async () => {
    const shop = await merchant(service);
    const { invoiceId, refundId, old } = await oldTransferToPayer(shop);
    // Reported while the node gives no answer about it: taken as SENT, checked by the worker later.
    unanswered.add(old.toLowerCase());
    try {
      const sent = expectSuccess(await shop.test.post(`/refunds/${refundId}/sent`, { tx_hash: old }));
      expect([sent.status, sent.payout.confirmations]).toEqual(['SENT', 0]);
      // Then the node answers again, showing the transaction in its block but without its receipt.
      withheldReceipts.add(old.toLowerCase());
    } finally {
      unanswered.delete(old.toLowerCase());
    }
    try {
      const startedAt = Date.now();
      const back = await statusBecomes(shop, refundId, 'AWAITING_PAYOUT');
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual((GRACE_SECONDS - 1) * 1000);
      expect(back.payout.tx_hash).toBeNull();
      expect(await takenBack(refundId)).toContain('"verdict":"not_seen"');
      expect(expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {})).refunded_usd).toBe(r30('0'));
    } finally {
      withheldReceipts.delete(old.toLowerCase());
    }
    // Reported again with its receipt shown: refused as older than the destination.
    const refused = expectError(await shop.test.post(`/refunds/${refundId}/sent`, { tx_hash: old }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(refused.validator.tx_hash).toContain('before the destination was given');
  });

  it('prices a `rate: invoice` payout in a coin the invoice was not paid with at the rates of the claim, not at the old snapshot', async () => {
    const importRates = async (rates: Record<string, string>) => {
      const dir = mkdtempSync(join(tmpdir(), 'rates-'));
      writeFileSync(join(dir, 'rates.json'), JSON.stringify({ taken_at: new Date().toISOString(), rates }));
      await exec(process.execPath, [CLI, 'rates:import', join(dir, 'rates.json')], { env: service.cliEnv });
    };
    const shop = await merchant(service);
    await importRates({ USDT: '0.5' });
    const invoiceId = expectSuccess(await shop.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '30' }] }), 201)
      .id as string;
    expectSuccess(
      await shop.test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '30', status: 'COMPLETED' }),
      201,
    );
    const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '10' }), 201);
    expect(refund.rate).toBe('invoice');
    await importRates({ USDT: '0.25' });
    // Paid by card: USDT is offered (no card payout), but there is no USDT rate the payer paid at. Its old one
    // would let the payer pick whichever coin rose most since; 10 USD at the claim's 0.25 USD per USDT instead.
    const body = expectSuccess(await claim(refund, { provider_id: 'prov_ethereum_usdt', address: freshAddress() }));
    expect(new D(body.payout.amount).eq(40)).toBe(true);
  });

  it('prices a `rate: current` payout at the rates of the moment the payer claims, not those of its creation', async () => {
    const shop = await merchant(service);
    const invoiceId = await paidOnChain(shop, '30');
    const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '10', rate: 'current' }), 201);
    expect([refund.rate, refund.amount_usd]).toEqual(['current', r30('10')]);
    // USDT's rate changes between the refund's creation and the claim.
    const dir = mkdtempSync(join(tmpdir(), 'rates-'));
    writeFileSync(join(dir, 'rates.json'), JSON.stringify({ taken_at: new Date().toISOString(), rates: { USDT: '0.5' } }));
    await exec(process.execPath, [CLI, 'rates:import', join(dir, 'rates.json')], { env: service.cliEnv });
    const body = expectSuccess(await claim(refund, { provider_id: 'prov_ethereum_usdt', address: freshAddress() }));
    // 10 USD at 0.5 USD per USDT, the rate of the claim.
    expect(new D(body.payout.amount).eq(20)).toBe(true);
    // The refund's USD value is the one fixed at creation.
    expect((await refundOf(shop, refund.id)).amount_usd).toBe(r30('10'));
    // The published document says so where `rate` is described.
    const document = (await new Api(null, service.server.baseUrl).get('/openapi.json')).body;
    expect(document.components.schemas.RefundDto.properties.rate.description).toContain('the moment the payer claims');
    expect(document.components.schemas.CreateRefundRequestDto.properties.rate.description).toContain('the moment the payer claims');
  });
});
