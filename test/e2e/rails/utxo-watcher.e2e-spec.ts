import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { Webhook } from 'standardwebhooks';
import { LitecoinNode } from '../../chain/litecoin-node';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { errorLines, linesWith } from '../../support/server';
import { eventually, WebhookReceiver } from '../../support/webhook-receiver';
import { createInvoice, D, r30, shortState } from '../payments/payments-helpers';
import { paymentAddress, paymentsOf, waitForPayments } from './chain-helpers';
import { writeChainsFile } from './rails-helpers';

const LTC = 'prov_litecoin_litecoin';
/** A fresh testnet account key (m/84'/1'/0') as vpub: P2WPKH addresses, rltc1... on regtest. */
const freshVpub = () => HDKey.fromMasterSeed(randomBytes(32), { public: 0x045f1cf6, private: 0x045f18bc }).derive("m/84'/1'/0'").publicExtendedKey;

describe('the UTXO watcher against a real Litecoin Core node (regtest)', () => {
  let node: LitecoinNode;
  let service: IsolatedService;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    node = await LitecoinNode.start();
    // The live section points at the same node only to give Litecoin a live rail for the providers list (the node
    // answers regtest, so nothing is watched or handed out live).
    const chainsFile = writeChainsFile({
      live: { litecoin: { rpc_url: node.rpcUrl, chain: 'main', poll_interval_ms: 1000 } },
      test: { litecoin: { rpc_url: node.rpcUrl, chain: 'regtest', poll_interval_ms: 200, confirmations: 20 } },
    });
    service = await startIsolatedService({ CHAINS_FILE: chainsFile, CHAIN_LOCK_RETRY_MS: '300', WEBHOOK_DISPATCH_INTERVAL_MS: '100', CLOCK_CONTROL: 'true' });
    receiver = await WebhookReceiver.start();
  }, 180_000);
  afterAll(async () => {
    await receiver?.stop();
    await service?.stop();
    await node?.stop();
  });

  async function shop() {
    const org = await service.createOrg();
    const wallet = expectSuccess(await org.test.post('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: freshVpub() }), 201);
    return { ...org, wallet };
  }

  it('registers a Litecoin wallet per network, refusing a mainnet key in test mode and a missing network', async () => {
    const org = await service.createOrg();
    expectError(await org.test.post('/wallets', { chain_family: 'utxo', xpub: freshVpub() }), 400, { field: 'network' });
    const ltub = 'Ltub2ZB5hCtgn7gqVPzt93yqG19A2VGPR8QubaJh1dagpMoJWFBmH2LX4uwRm5ihBQGKHiJLKaKMgfARozBUaBbSeR5A8VxkU5vCZcsFu9G3HHk';
    const refused = await org.test.post('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: ltub });
    expectError(refused, 400, { field: 'xpub' });
    expect(refused.body.validator.xpub).toContain('mainnet key');
    expect(refused.text).not.toContain(ltub.slice(4, 40));
    const wallet = expectSuccess(await org.test.post('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: freshVpub() }), 201);
    expect(wallet).toMatchObject({ chain_family: 'utxo', network: 'litecoin', active: true, addresses_issued: 0, unused_gap: 0 });
    expect(wallet.first_address).toMatch(/^rltc1q[02-9ac-hj-np-z]{38}$/);
    expect(expectSuccess(await org.test.get(`/wallets/${wallet.id}`))).toMatchObject({ id: wallet.id, network: 'litecoin', unused_gap: 0 });
  });

  it('asks each node at start whether it keeps txindex=1: this one does, so utxo_txindex_missing is 0 and nothing is warned', async () => {
    const metrics = async () => (await fetch(`${service.server.baseUrl}/metrics`)).text();
    await eventually(async () => expect(await metrics()).toMatch(/^utxo_txindex_missing\{network="litecoin",mode="test"\} 0$/m));
    expect(await metrics()).toMatch(/^utxo_txindex_missing\{network="litecoin",mode="live"\} 0$/m);
    expect(linesWith(service.server, 'utxo_txindex')).toEqual([]);
  });

  it('lists Litecoin among the payable providers in live mode once the organization has a live Litecoin wallet', async () => {
    const org = await service.createOrg();
    const invoiceId = await createInvoice(org.live, '25');
    const ids = async () => (expectSuccess(await org.live.get(`/providers/${invoiceId}`)).providers as Array<{ id: string }>).map((p) => p.id);
    expect(await ids()).not.toContain(LTC);
    // A live Litecoin key (Trezor's zpub of m/84'/2'/0'): a mainnet key, as live mode takes.
    const zpub = 'zpub6qa4qbPy1N6DMjqmrsGfEPxxdNCcrqKNuPvWx3SJKykBhdEmSPtgDUiK7s43K8cisLNbiLZcTCtsTmX7afR5WfRMYJ72CrTHRTDRscRS7rW';
    const wallet = expectSuccess(await org.live.post('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: zpub }), 201);
    expect(wallet.first_address).toBe('ltc1qwttt6kexkl8s3vczz3deqcn34elu0t6hmdfu6a');
    expect(await ids()).toContain(LTC);
    // Bitcoin has no rail in this file: not listed live even so.
    expect(await ids()).not.toContain('prov_bitcoin_bitcoin');
  });

  it('takes a payment from litecoind: PENDING from the mempool with 0 confirmations, COMPLETED at 6, with signed webhooks', async () => {
    const merchant = await shop();
    const endpoint = expectSuccess(
      await merchant.test.post('/webhooks', {
        url: receiver.url(`/ltc-${merchant.id}`),
        event_types: ['payment.created', 'payment.updated', 'invoice.completed'],
      }),
      201,
    );
    const invoiceId = await createInvoice(merchant.test, '0.5', 'LITECOIN');
    const pay = await paymentAddress(merchant.test, invoiceId, LTC);
    expect(pay).toMatchObject({
      provider_id: LTC,
      network: 'LITECOIN',
      currency: 'LITECOIN',
      amount: r30('0.5'),
      decimals: 8,
      chain_id: null,
      contract_address: null,
    });
    expect(pay.address).toBe(merchant.wallet.first_address);
    expect(pay.uri).toBe(`litecoin:${pay.address}?amount=0.5`);

    const txid = await node.send(pay.address, '0.5');
    const vout = await node.voutOf(txid, pay.address);
    const [seen] = await waitForPayments(merchant.test, invoiceId, (p) => p.length === 1);
    expect(seen).toMatchObject({ provider_id: LTC, price: r30('0.5'), status: 'PENDING', confirmations: 0, idempotency_key: `litecoin:${txid}:${vout}` });
    expect((await shortState(merchant.test, invoiceId)).status).toBe('WAITING_FOR_CONFIRMATIONS');

    await node.mine(1);
    await waitForPayments(merchant.test, invoiceId, (p) => p[0].confirmations === 1 && p[0].status === 'PENDING');
    await node.mine(5);
    const [done] = await waitForPayments(merchant.test, invoiceId, (p) => p[0].status === 'COMPLETED');
    expect(done).toMatchObject({ id: seen.id, confirmations: 6 });
    expect(await shortState(merchant.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });

    const wallet = expectSuccess(await merchant.test.get(`/wallets/${merchant.wallet.id}`));
    expect(wallet).toMatchObject({ addresses_issued: 1, unused_gap: 0 });

    const path = `/ltc-${merchant.id}`;
    const hooks = await receiver.waitFor((all) => all.some((w) => w.path === path && w.json.type === 'invoice.completed'));
    const mine = hooks.filter((w) => w.path === path);
    expect(mine.map((w) => w.json.type)).toEqual(expect.arrayContaining(['payment.created', 'payment.updated', 'invoice.completed']));
    for (const hook of mine) expect(() => new Webhook(endpoint.secret).verify(hook.body, hook.headers as Record<string, string>)).not.toThrow();
  });

  it('takes a partial payment, then the rest the address asks for; and marks an overpayment PAID_OVER', async () => {
    const merchant = await shop();
    const invoiceId = await createInvoice(merchant.test, '1', 'LITECOIN');
    const first = await paymentAddress(merchant.test, invoiceId, LTC);
    await node.send(first.address, '0.4');
    await node.mine(6);
    await waitForPayments(merchant.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED');
    expect(await shortState(merchant.test, invoiceId)).toMatchObject({ status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' });
    const rest = await paymentAddress(merchant.test, invoiceId, LTC);
    expect(rest.address).toBe(first.address);
    expect(rest.amount).toBe(r30('0.6'));
    await node.send(rest.address, new D(rest.amount).toFixed(8));
    await node.mine(6);
    await waitForPayments(merchant.test, invoiceId, (p) => p.length === 2 && p.every((x) => x.status === 'COMPLETED'));
    expect(await shortState(merchant.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });

    const over = await createInvoice(merchant.test, '0.1', 'LITECOIN');
    const overAddress = await paymentAddress(merchant.test, over, LTC);
    expect(overAddress.address).not.toBe(first.address);
    await node.send(overAddress.address, '0.15');
    await node.mine(6);
    await waitForPayments(merchant.test, over, (p) => p[0]?.status === 'COMPLETED');
    expect(await shortState(merchant.test, over)).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_OVER' });
  });

  it('counts unused_gap from the last address that received money, and sends wallet.gap_warning when it first exceeds 20', async () => {
    const merchant = await shop();
    const gapWarnings = async () => expectSuccess(await merchant.test.post('/events', { type: 'wallet.gap_warning' })).items as any[];
    const invoices = await Promise.all(Array.from({ length: 22 }, () => createInvoice(merchant.test, '0.01', 'LITECOIN')));
    const addresses: string[] = [];
    for (const id of invoices.slice(0, 20)) addresses.push((await paymentAddress(merchant.test, id, LTC)).address);
    expect(expectSuccess(await merchant.test.get(`/wallets/${merchant.wallet.id}`))).toMatchObject({ addresses_issued: 20, unused_gap: 20 });
    expect(await gapWarnings()).toEqual([]);
    // The 21st unused address: past the gap wallets scan by default.
    addresses.push((await paymentAddress(merchant.test, invoices[20], LTC)).address);
    const [warning] = await gapWarnings();
    expect(warning.data.object).toMatchObject({ id: merchant.wallet.id, network: 'litecoin', addresses_issued: 21, unused_gap: 21, gap_limit: 20 });
    // Said once: the 22nd address adds no second warning.
    addresses.push((await paymentAddress(merchant.test, invoices[21], LTC)).address);
    expect(await gapWarnings()).toHaveLength(1);
    expect(new Set(addresses).size).toBe(22);

    // The 21st address receives money: the gap is what was issued after it.
    await node.send(addresses[20], '0.01');
    await waitForPayments(merchant.test, invoices[20], (p) => p.length === 1);
    expect(expectSuccess(await merchant.test.get(`/wallets/${merchant.wallet.id}`))).toMatchObject({ addresses_issued: 22, unused_gap: 1 });
    await node.mine(1);
  });

  it('records a payment made after expiry inside the monitoring window as PAID_LATE, as the timing rules say', async () => {
    const merchant = await shop();
    const invoiceId = await createInvoice(merchant.test, '0.2', 'LITECOIN', { expires_in_minutes: 5 });
    const pay = await paymentAddress(merchant.test, invoiceId, LTC);
    // The organization's clock moves 10 minutes: the payment, seen in the mempool at its now, is after expires_at.
    expectSuccess(await merchant.test.post('/test_helpers/clock', { advance_seconds: 600 }));
    await node.send(pay.address, new D(pay.amount).toFixed(8));
    await waitForPayments(merchant.test, invoiceId, (p) => p[0]?.status === 'PENDING');
    await node.mine(6);
    await waitForPayments(merchant.test, invoiceId, (p) => p[0]?.status === 'COMPLETED');
    expect(await shortState(merchant.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_LATE' });
    // Only the live section's node answering regtest is an error (it is meant to be: see beforeAll).
    expect(errorLines(service.server).filter((line) => !line.includes('"event":"chain_id_mismatch"'))).toEqual([]);
  });

  it('records the two outputs of one transaction as two payments, once each', async () => {
    const merchant = await shop();
    const [a, b] = await Promise.all([createInvoice(merchant.test, '0.2', 'LITECOIN'), createInvoice(merchant.test, '0.3', 'LITECOIN')]);
    const [payA, payB] = [await paymentAddress(merchant.test, a, LTC), await paymentAddress(merchant.test, b, LTC)];
    const txid = await node.sendMany({ [payA.address]: '0.2', [payB.address]: '0.3' });
    await node.mine(6);
    const [pa] = await waitForPayments(merchant.test, a, (p) => p[0]?.status === 'COMPLETED');
    const [pb] = await waitForPayments(merchant.test, b, (p) => p[0]?.status === 'COMPLETED');
    expect(pa.idempotency_key).toBe(`litecoin:${txid}:${await node.voutOf(txid, payA.address)}`);
    expect(pb.idempotency_key).toBe(`litecoin:${txid}:${await node.voutOf(txid, payB.address)}`);
    expect(pa.idempotency_key).not.toBe(pb.idempotency_key);
    await node.mine(2);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await waitForPayments(merchant.test, a, (p) => p.length === 1)).toHaveLength(1);
    expect(await waitForPayments(merchant.test, b, (p) => p.length === 1)).toHaveLength(1);
  });

  it('takes no payment from a bare multisig or bare pubkey output that names the deposit address, and one from a plain output in the same block', async () => {
    // A tpub: P2PKH addresses, which Litecoin Core 0.21 lists for each key of a bare multisig script as well.
    const account = HDKey.fromMasterSeed(randomBytes(32), { public: 0x043587cf, private: 0x04358394 }).derive("m/44'/1'/0'");
    const merchant = await service.createOrg();
    expectSuccess(await merchant.test.post('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: account.publicExtendedKey }), 201);
    const [spoofed, paid] = [await createInvoice(merchant.test, '0.5', 'LITECOIN'), await createInvoice(merchant.test, '0.5', 'LITECOIN')];
    const target = await paymentAddress(merchant.test, spoofed, LTC);
    const honest = await paymentAddress(merchant.test, paid, LTC);
    const merchantKey = Buffer.from(account.deriveChild(0).deriveChild(0).publicKey!).toString('hex');
    const payerKey = (await node.rpc<{ pubkey: string }>('getaddressinfo', [await node.rpc<string>('getnewaddress', ['', 'legacy'])])).pubkey;

    // Scripts createrawtransaction cannot write: 1-of-2 multisig [merchant, payer] and [payer, merchant], and a bare pubkey.
    const push = (key: string) => `21${key}`;
    const scripts = [`51${push(merchantKey)}${push(payerKey)}52ae`, `51${push(payerKey)}${push(merchantKey)}52ae`, `${push(merchantKey)}ac`];
    const value = Buffer.alloc(8);
    value.writeBigUInt64LE(50_000_000n);
    const output = (script: string) => `${value.toString('hex')}${(script.length / 2).toString(16).padStart(2, '0')}${script}`;
    const raw = `02000000000${scripts.length}${scripts.map(output).join('')}00000000`;
    const funded = await node.rpc<{ hex: string }>('fundrawtransaction', [raw]);
    const signed = await node.rpc<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [funded.hex]);
    expect(signed.complete).toBe(true);
    const txid = await node.rpc<string>('sendrawtransaction', [signed.hex]);
    // What the node says of those outputs: the deposit address first (then second) in the multisig's list; the bare pubkey it lists under no address.
    const outputs = (await node.rpc<{ vout: Array<{ n: number; scriptPubKey: Record<string, any> }> }>('getrawtransaction', [txid, true])).vout;
    const byScript = new Map(outputs.map((o) => [o.scriptPubKey.hex, o.scriptPubKey]));
    expect(byScript.get(scripts[0])).toMatchObject({ type: 'multisig', addresses: [target.address, expect.any(String)] });
    expect(byScript.get(scripts[1])).toMatchObject({ type: 'multisig', addresses: [expect.any(String), target.address] });
    expect(byScript.get(scripts[2])?.type).toBe('pubkey');

    await node.send(honest.address, '0.5');
    await node.mine(6);
    await waitForPayments(merchant.test, paid, (p) => p.length === 1 && p[0].status === 'COMPLETED');
    expect((await node.rpc('getrawtransaction', [txid, true])).confirmations).toBe(6);
    expect(await paymentsOf(merchant.test, spoofed)).toEqual([]);
    expect((await shortState(merchant.test, spoofed)).status).toBe('PENDING');
    expect(await shortState(merchant.test, paid)).toMatchObject({ status: 'COMPLETED', substatus: null });
  });

  /** The payment.updated events of one payment, oldest first. */
  async function paymentUpdates(api: Api, paymentId: string): Promise<any[]> {
    const items = expectSuccess(await api.post('/events', { type: 'payment.updated', limit: 100 })).items as any[];
    return items.filter((e) => e.data.object.id === paymentId).reverse();
  }

  it('keeps a payment whose block is taken back (invalidateblock) PENDING at 0 confirmations while its transaction waits in the mempool, and counts it again once mined in another block', async () => {
    const merchant = await shop();
    const invoiceId = await createInvoice(merchant.test, '0.25', 'LITECOIN');
    const pay = await paymentAddress(merchant.test, invoiceId, LTC);
    const txid = await node.send(pay.address, '0.25');
    const [seen] = await waitForPayments(merchant.test, invoiceId, (p) => p.length === 1 && p[0].confirmations === 0);
    const [block] = await node.mine(1);
    await waitForPayments(merchant.test, invoiceId, (p) => p[0].confirmations === 1);
    expect((await shortState(merchant.test, invoiceId)).status).toBe('WAITING_FOR_CONFIRMATIONS');

    await node.rpc('invalidateblock', [block]);
    // The node put the block's transactions back into its mempool.
    expect(await node.rpc<string[]>('getrawmempool')).toContain(txid);
    const statuses = new Set<string>();
    const [back] = await waitForPayments(merchant.test, invoiceId, (p) => {
      statuses.add(p[0].status);
      return p[0].confirmations === 0;
    });
    // A few more looks while the watcher goes on stepping: it stays as it is.
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 300));
      const [now] = await paymentsOf(merchant.test, invoiceId);
      statuses.add(now.status);
      expect(now.confirmations).toBe(0);
    }
    expect([...statuses]).toEqual(['PENDING']);
    expect(back).toMatchObject({ id: seen.id, status: 'PENDING', confirmations: 0 });
    expect(await shortState(merchant.test, invoiceId)).toMatchObject({ status: 'WAITING_FOR_CONFIRMATIONS', substatus: null });

    // Mined again, in another block at the same height.
    const [again] = await node.mine(1, await node.rpc<string>('getnewaddress'));
    expect(again).not.toBe(block);
    expect((await node.rpc('getrawtransaction', [txid, true])).blockhash).toBe(again);
    await waitForPayments(merchant.test, invoiceId, (p) => p[0].confirmations === 1 && p[0].status === 'PENDING');
    await node.mine(5);
    const payments = await waitForPayments(merchant.test, invoiceId, (p) => p[0].status === 'COMPLETED', 30_000);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ id: seen.id, confirmations: 6 });
    expect(await shortState(merchant.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });

    // What the merchant was told: the count went 1 -> 0 -> 1 ... 6, the payment never cancelled.
    const updates = await paymentUpdates(merchant.test, seen.id);
    expect(updates.map((e) => e.data.object.status)).not.toContain('CANCELLED');
    const counts = updates.map((e) => e.data.object.confirmations);
    expect(counts.slice(0, 3)).toEqual([1, 0, 1]);
    expect(counts[counts.length - 1]).toBe(6);
    expect(updates.find((e) => e.data.object.confirmations === 0)?.data.previous_attributes).toMatchObject({ confirmations: 1 });
  });

  it('cancels a payment whose block is taken back when its transaction leaves the mempool unmined (a conflicting spend mined instead); that spend paying the address is a payment of its own', async () => {
    const merchant = await shop();
    const invoiceId = await createInvoice(merchant.test, '0.25', 'LITECOIN');
    const pay = await paymentAddress(merchant.test, invoiceId, LTC);
    await node.mine(1); // the payer's coins confirmed: the payment spends none of the block taken back below
    const txid = await node.send(pay.address, '0.25');
    const vout = await node.voutOf(txid, pay.address);
    const [seen] = await waitForPayments(merchant.test, invoiceId, (p) => p.length === 1 && p[0].confirmations === 0);
    const [block] = await node.mine(1);
    await waitForPayments(merchant.test, invoiceId, (p) => p[0].confirmations === 1);
    await node.rpc('invalidateblock', [block]);
    await waitForPayments(merchant.test, invoiceId, (p) => p[0].status === 'PENDING' && p[0].confirmations === 0);

    // The payer double-spends its coins through a miner: a block holding another spend of them, paying the
    // deposit address less. The node drops the payment's transaction from its mempool: it can never be mined.
    const conflicting = await node.mineConflicting(txid, { [pay.address]: '0.1' });
    expect(conflicting.block).not.toBe(block);
    expect(await node.rpc<string[]>('getrawmempool')).not.toContain(txid);
    const conflictingVout = await node.voutOf(conflicting.txid, pay.address);
    await waitForPayments(merchant.test, invoiceId, (p) => p.length === 2);
    // Cancelled once a block has passed since the watcher found it gone from the mempool (a block mined
    // before it looked again does not count: one more then).
    let payments: any[] = [];
    for (let blocks = 1; !payments.length; blocks++) {
      await new Promise((r) => setTimeout(r, 1000));
      await node.mine(1);
      payments = await waitForPayments(merchant.test, invoiceId, (p) => p[0].status === 'CANCELLED', 5_000).catch((e) => {
        if (blocks === 3) throw e;
        return [];
      });
    }
    expect(payments[0]).toMatchObject({ id: seen.id, idempotency_key: `litecoin:${txid}:${vout}`, price: r30('0.25'), status: 'CANCELLED' });
    expect(payments[1]).toMatchObject({ idempotency_key: `litecoin:${conflicting.txid}:${conflictingVout}`, price: r30('0.1'), status: 'PENDING' });
    expect(await shortState(merchant.test, invoiceId)).toMatchObject({ status: 'WAITING_FOR_CONFIRMATIONS', substatus: null });
    expect((await paymentUpdates(merchant.test, seen.id)).map((e) => [e.data.object.status, e.data.object.confirmations])).toEqual([
      ['PENDING', 1],
      ['PENDING', 0],
      ['CANCELLED', 0],
    ]);

    await node.mine(6);
    const done = await waitForPayments(merchant.test, invoiceId, (p) => p[1].status === 'COMPLETED', 30_000);
    expect(done.map((p) => p.status)).toEqual(['CANCELLED', 'COMPLETED']);
    expect(await shortState(merchant.test, invoiceId)).toMatchObject({ status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' });
  });
});
