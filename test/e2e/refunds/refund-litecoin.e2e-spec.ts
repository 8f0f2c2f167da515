import { createHash, randomBytes } from 'node:crypto';
import { base58check, bech32 } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { Webhook } from 'standardwebhooks';
import { LitecoinNode } from '../../chain/litecoin-node';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { RpcRecorder } from '../../chain/rpc-recorder';
import { D } from '../../support/money';
import { eventually, WebhookReceiver } from '../../support/webhook-receiver';
import { createInvoice } from '../payments/payments-helpers';
import { paymentAddress, units, waitForPayments } from '../rails/chain-helpers';
import { writeChainsFile } from '../rails/rails-helpers';

const LTC = 'prov_litecoin_litecoin';
/** A fresh testnet account key (m/84'/1'/0') as vpub: P2WPKH addresses, rltc1... on regtest. */
const freshVpub = () => HDKey.fromMasterSeed(randomBytes(32), { public: 0x045f1cf6, private: 0x045f18bc }).derive("m/84'/1'/0'").publicExtendedKey;
const trimmed = (amount: string) => amount.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
const b58 = base58check((d) => new Uint8Array(createHash('sha256').update(d).digest()));
/** Satoshis as the coin amount litecoind's sendtoaddress takes. */
const coins = (sats: bigint) => new D(sats.toString()).div(1e8).toFixed(8);
/**
 * A regtest address of no wallet of the node (a random key hash): coins sent to it are never spent by the
 * node's wallet, so a later payout from that wallet never spends from the payer's address (which would make
 * it the payer's own transaction).
 */
const outsideAddress = () => bech32.encode('rltc', [0, ...bech32.toWords(randomBytes(20))]);

/**
 * Refunds paid out on a UTXO chain (decisions §18, §19) against Debian's Litecoin Core in regtest: an
 * invoice paid in Litecoin from the node, a partial refund claimed by the payer with a regtest
 * address, the merchant's payout sent from the node and reported, blocks mined to the provider's 6
 * confirmations, the refund COMPLETED with signed webhooks; a short payout refused once mined.
 */
describe('refunds paid out on Litecoin (litecoind regtest)', () => {
  let node: LitecoinNode;
  let service: IsolatedService;
  let receiver: WebhookReceiver;
  let rpc: RpcRecorder;

  beforeAll(async () => {
    node = await LitecoinNode.start();
    // The service reaches the node through a recorder, so a test can count what it asked.
    rpc = await RpcRecorder.start(node.rpcUrl);
    const chainsFile = writeChainsFile({
      test: { litecoin: { rpc_url: rpc.url(node.rpcUrl), chain: 'regtest', poll_interval_ms: 200, confirmations: 20 } },
    });
    service = await startIsolatedService({
      CHAINS_FILE: chainsFile,
      CHAIN_LOCK_RETRY_MS: '300',
      WEBHOOK_DISPATCH_INTERVAL_MS: '100',
      REFUND_CHECK_SECONDS: '1',
    });
    receiver = await WebhookReceiver.start();
  }, 180_000);
  afterAll(async () => {
    await receiver?.stop();
    await service?.stop();
    await node?.stop();
    await rpc?.stop();
  });

  /** A merchant with a Litecoin wallet and an invoice of `price` LTC paid in full from the node (COMPLETED at 6 confirmations). */
  async function paidInLitecoin(price: string) {
    const org = await service.createOrg();
    expectSuccess(await org.test.post('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: freshVpub() }), 201);
    const invoiceId = await createInvoice(org.test, price, 'LITECOIN');
    const pay = await paymentAddress(org.test, invoiceId, LTC);
    await node.send(pay.address, trimmed(pay.amount));
    await node.mine(6);
    await waitForPayments(org.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED', 30_000);
    return { org, invoiceId };
  }

  const claim = (refund: { claim_url: string }, body: unknown) =>
    new Api(null, service.server.baseUrl).post(`/refund_claims/${new URL(refund.claim_url, 'http://x').pathname.split('/').pop()}`, body);

  it('done when: a partial refund claimed with a regtest address, sent from the node, confirmed to COMPLETED with signed webhooks', async () => {
    const { org, invoiceId } = await paidInLitecoin('1');
    const endpoint = expectSuccess(
      await org.test.post('/webhooks', { url: receiver.url(`/ltc-refunds-${org.id}`), event_types: ['refund.created', 'refund.updated', 'refund.completed'] }),
      201,
    );
    const refund = expectSuccess(await org.test.post(`/invoices/${invoiceId}/refunds`, { amount: '0.4', currency: 'LITECOIN', reason: 'Part returned' }), 201);
    expect(refund.status).toBe('AWAITING_DESTINATION');

    // The payer gives a regtest address of their wallet; the Litecoin payout is offered (the invoice was paid with it).
    const payer = await node.rpc<string>('getnewaddress', ['', 'bech32']);
    expect(payer).toMatch(/^rltc1/);
    expectError(await claim(refund, { provider_id: LTC, address: 'ltc1qwttt6kexkl8s3vczz3deqcn34elu0t6hmdfu6a' }), 400, { field: 'address' });
    const claimed = expectSuccess(await claim(refund, { provider_id: LTC, address: payer }));
    expect(claimed.payout).toMatchObject({ provider_id: LTC, network: 'LITECOIN', currency: 'LITECOIN', address: payer });
    // The coin amount: the refund's value at the invoice's rates, rounded down to Litecoin's 8 decimals.
    const amount = new D(claimed.payout.amount);
    expect(amount.decimalPlaces()).toBeLessThanOrEqual(8);
    expect(amount.lte('0.4') && amount.gte('0.39999999')).toBe(true);
    expect(claimed.payout.uri).toBe(`litecoin:${payer}?amount=${trimmed(claimed.payout.amount)}`);
    const sats = units(trimmed(claimed.payout.amount), 8);
    // The claim page shows the payer where it goes and how much.
    const page = await new Api(null, service.server.baseUrl).get(new URL(refund.claim_url, 'http://x').pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<dd id="payout-address"><code>${payer}</code></dd>`);
    expect(page.text).toMatch(new RegExp(`id="payout-amount">${trimmed(claimed.payout.amount).replace('.', '\\.')}0* LITECOIN<`));

    // The merchant sends from their wallet (here the node's) and reports the transaction before it is mined.
    const txid = await node.send(payer, coins(sats));
    expectError(await org.test.post(`/refunds/${refund.id}/sent`, { tx_hash: `0x${txid}` }), 400, { field: 'tx_hash' });
    const sent = expectSuccess(await org.test.post(`/refunds/${refund.id}/sent`, { tx_hash: txid }));
    // What the service asks the node from here on (the watcher may have read an input's transaction before, in the mempool).
    const reported = rpc.calls.length;
    expect([sent.status, sent.payout.tx_hash, sent.payout.confirmations, sent.payout.required_confirmations]).toEqual(['SENT', txid, 0, 6]);

    await node.mine(1);
    await eventually(async () => {
      const r = expectSuccess(await org.test.get(`/refunds/${refund.id}`));
      if (r.payout.confirmations < 1) throw new Error(`confirmations ${r.payout.confirmations}`);
      expect(r.status).toBe('SENT');
    }, 20_000);
    await node.mine(5);
    const done = await eventually(async () => {
      const r = expectSuccess(await org.test.get(`/refunds/${refund.id}`));
      if (r.status !== 'COMPLETED') throw new Error(`status ${r.status}`);
      return r;
    }, 20_000);
    expect(done.payout.confirmations).toBeGreaterThanOrEqual(6);
    // Each check of the mined payout read the transaction again, but the outputs its inputs spend (whether it
    // is the payer's own transaction) once: they never change.
    expect(rpc.count('getrawtransaction', txid, reported)).toBeGreaterThanOrEqual(2);
    const inputs = (await node.rpc<{ vin: Array<{ txid: string }> }>('getrawtransaction', [txid, true])).vin.map((i) => i.txid);
    expect(inputs.length).toBeGreaterThan(0);
    expect(inputs.map((input) => rpc.count('getrawtransaction', input, reported))).toEqual(inputs.map(() => 1));
    const invoice = expectSuccess(await org.test.post(`/invoices/${invoiceId}`, {}));
    expect(invoice.status).toBe('COMPLETED');
    expect(new D(invoice.refunded_usd).eq(refund.amount_usd)).toBe(true);

    const path = `/ltc-refunds-${org.id}`;
    const received = await receiver.waitFor((all) => all.some((w) => w.path === path && w.json?.type === 'refund.completed'), 20_000);
    const mine = received.filter((w) => w.path === path);
    for (const w of mine) expect(() => new Webhook(endpoint.secret).verify(w.body, w.headers as Record<string, string>)).not.toThrow();
    const types = mine.map((w) => w.json.type);
    expect(types[0]).toBe('refund.created');
    expect(types.at(-1)).toBe('refund.completed');
    expect(mine.at(-1)!.json.data.object).toMatchObject({ id: refund.id, status: 'COMPLETED' });
  });

  it('answers a short payout 400 payout_mismatch once it is mined, and takes the right one', async () => {
    const { org, invoiceId } = await paidInLitecoin('0.5');
    const refund = expectSuccess(await org.test.post(`/invoices/${invoiceId}/refunds`, { amount: '0.2', currency: 'LITECOIN' }), 201);
    const payer = outsideAddress();
    const claimed = expectSuccess(await claim(refund, { provider_id: LTC, address: payer }));
    const sats = units(trimmed(claimed.payout.amount), 8);

    const short = await node.send(payer, coins(sats - 1n));
    await node.mine(1);
    const refused = expectError(await org.test.post(`/refunds/${refund.id}/sent`, { tx_hash: short }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(refused.validator.tx_hash).toContain(`at least ${sats}`);
    // A transaction paying someone else the full amount is no payout either.
    const elsewhere = await node.send(await node.rpc<string>('getnewaddress', ['', 'bech32']), coins(sats));
    await node.mine(1);
    expectError(await org.test.post(`/refunds/${refund.id}/sent`, { tx_hash: elsewhere }), 400, { code: 'payout_mismatch' });
    expect(expectSuccess(await org.test.get(`/refunds/${refund.id}`)).status).toBe('AWAITING_PAYOUT');

    const tx = await node.send(payer, coins(sats));
    await node.mine(1);
    const sent = expectSuccess(await org.test.post(`/refunds/${refund.id}/sent`, { tx_hash: tx }));
    expect([sent.status, sent.payout.confirmations]).toEqual(['SENT', 1]);
  });

  it("refuses the payer's own transaction paying their address (it spends an output of that address), mined after the claim", async () => {
    const { org, invoiceId } = await paidInLitecoin('0.5');
    const refund = expectSuccess(await org.test.post(`/invoices/${invoiceId}/refunds`, { amount: '0.2', currency: 'LITECOIN' }), 201);
    // An address of the payer's wallet (the node's), holding a coin of its own before the claim.
    const payer = await node.rpc<string>('getnewaddress', ['', 'bech32']);
    const funding = await node.send(payer, '1');
    await node.mine(1);
    const claimed = expectSuccess(await claim(refund, { provider_id: LTC, address: payer }));
    const sats = units(trimmed(claimed.payout.amount), 8);
    // After the claim, the payer spends that coin, paying the amount to their own address and the rest back to it as change.
    const input = { txid: funding, vout: await node.voutOf(funding, payer) };
    const funded = await node.rpc<{ psbt: string }>('walletcreatefundedpsbt', [
      [input],
      [{ [payer]: coins(sats) }],
      0,
      { add_inputs: false, changeAddress: payer },
    ]);
    const signed = await node.rpc<{ psbt: string }>('walletprocesspsbt', [funded.psbt]);
    const final = await node.rpc<{ hex: string; complete: boolean }>('finalizepsbt', [signed.psbt]);
    expect(final.complete).toBe(true);
    const own = await node.rpc<string>('sendrawtransaction', [final.hex]);
    await node.mine(1);
    const refused = expectError(await org.test.post(`/refunds/${refund.id}/sent`, { tx_hash: own }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(refused.validator.tx_hash).toContain('itself');
    expect(expectSuccess(await org.test.get(`/refunds/${refund.id}`)).status).toBe('AWAITING_PAYOUT');
  });

  it("takes a payer's script-hash address in Litecoin's old form (2... on the test chains), which the node prints as Q...", async () => {
    const { org, invoiceId } = await paidInLitecoin('0.5');
    const refund = expectSuccess(await org.test.post(`/invoices/${invoiceId}/refunds`, { amount: '0.1', currency: 'LITECOIN' }), 201);
    const printed = await node.rpc<string>('getnewaddress', ['', 'p2sh-segwit']);
    expect(printed).toMatch(/^Q/);
    // The same script hash under the script-hash version Litecoin shared with Bitcoin (0xc4 on the test chains).
    const old = b58.encode(Uint8Array.from([0xc4, ...b58.decode(printed).subarray(1)]));
    expect(old).toMatch(/^2/);
    const claimed = expectSuccess(await claim(refund, { provider_id: LTC, address: old }));
    expect(claimed.payout.address).toBe(old);
    const tx = await node.send(printed, coins(units(trimmed(claimed.payout.amount), 8)));
    await node.mine(1);
    const sent = expectSuccess(await org.test.post(`/refunds/${refund.id}/sent`, { tx_hash: tx }));
    expect([sent.status, sent.payout.confirmations]).toEqual(['SENT', 1]);
  });

  it('pays one refund with one output when two refunds name its script in two spellings (the old form and the printed one)', async () => {
    const { org, invoiceId } = await paidInLitecoin('0.5');
    const first = expectSuccess(await org.test.post(`/invoices/${invoiceId}/refunds`, { amount: '0.1', currency: 'LITECOIN' }), 201);
    const second = expectSuccess(await org.test.post(`/invoices/${invoiceId}/refunds`, { amount: '0.1', currency: 'LITECOIN' }), 201);
    const printed = await node.rpc<string>('getnewaddress', ['', 'p2sh-segwit']);
    const old = b58.encode(Uint8Array.from([0xc4, ...b58.decode(printed).subarray(1)]));
    const claimedFirst = expectSuccess(await claim(first, { provider_id: LTC, address: printed }));
    const claimedSecond = expectSuccess(await claim(second, { provider_id: LTC, address: old }));
    expect([claimedFirst.payout.address, claimedSecond.payout.address]).toEqual([printed, old]);
    expect(claimedSecond.payout.amount).toBe(claimedFirst.payout.amount);

    // One output of the refund's amount, reported for both.
    const tx = await node.send(printed, coins(units(trimmed(claimedFirst.payout.amount), 8)));
    await node.mine(1);
    expect(expectSuccess(await org.test.post(`/refunds/${first.id}/sent`, { tx_hash: tx })).status).toBe('SENT');
    expectError(await org.test.post(`/refunds/${second.id}/sent`, { tx_hash: tx }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(expectSuccess(await org.test.get(`/refunds/${second.id}`)).status).toBe('AWAITING_PAYOUT');
  });

  it('refuses an unknown txid 400 tx_not_found and a transaction mined before the claim 400 payout_mismatch; takes one from the mempool', async () => {
    const { org, invoiceId } = await paidInLitecoin('0.5');
    const payer = outsideAddress();
    // Someone paid that address long before the refund: 0.3 LTC, mined.
    const old = await node.send(payer, '0.3');
    await node.mine(1);
    const refund = expectSuccess(await org.test.post(`/invoices/${invoiceId}/refunds`, { amount: '0.2', currency: 'LITECOIN' }), 201);
    const claimed = expectSuccess(await claim(refund, { provider_id: LTC, address: payer }));
    const sats = units(trimmed(claimed.payout.amount), 8);
    expect(sats < 30_000_000n).toBe(true);

    const refused = expectError(await org.test.post(`/refunds/${refund.id}/sent`, { tx_hash: old }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(refused.validator.tx_hash).toContain('before the destination was given');
    expectError(await org.test.post(`/refunds/${refund.id}/sent`, { tx_hash: 'cd'.repeat(32) }), 400, { code: 'tx_not_found', field: 'tx_hash' });
    const waiting = expectSuccess(await org.test.get(`/refunds/${refund.id}`));
    expect([waiting.status, waiting.payout.tx_hash]).toEqual(['AWAITING_PAYOUT', null]);

    // The payout, reported from the mempool, then mined after the claim: taken and counted.
    const tx = await node.send(payer, coins(sats));
    expect(expectSuccess(await org.test.post(`/refunds/${refund.id}/sent`, { tx_hash: tx })).status).toBe('SENT');
    await node.mine(6);
    await eventually(async () => {
      const r = expectSuccess(await org.test.get(`/refunds/${refund.id}`));
      if (r.status !== 'COMPLETED') throw new Error(`status ${r.status}`);
    }, 20_000);
  });
});
