import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { LitecoinNode } from '../../chain/litecoin-node';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { D } from '../../support/money';
import { createInvoice } from '../payments/payments-helpers';
import { paymentAddress, units, waitForPayments } from '../rails/chain-helpers';
import { writeChainsFile } from '../rails/rails-helpers';

const LTC = 'prov_litecoin_litecoin';
const freshVpub = () => HDKey.fromMasterSeed(randomBytes(32), { public: 0x045f1cf6, private: 0x045f18bc }).derive("m/84'/1'/0'").publicExtendedKey;
const trimmed = (amount: string) => amount.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');

/**
 * A refund payout on Litecoin is checked by what its outputs pay the payer's address alone (decisions
 * §18): a bare 1-of-2 multisig output of the payer's key and the merchant's own key, which Litecoin
 * Core 0.21 lists under the payer's address first, is no payout (the merchant can spend it back).
 */
describe('a refund payout sent as a bare multisig output (litecoind regtest)', () => {
  let node: LitecoinNode;
  let service: IsolatedService;

  beforeAll(async () => {
    node = await LitecoinNode.start();
    const chainsFile = writeChainsFile({ test: { litecoin: { rpc_url: node.rpcUrl, chain: 'regtest', poll_interval_ms: 200, confirmations: 20 } } });
    service = await startIsolatedService({ CHAINS_FILE: chainsFile, CHAIN_LOCK_RETRY_MS: '300', REFUND_CHECK_SECONDS: '1' });
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
    await node?.stop();
  });

  it('answers 400 payout_mismatch for a multisig output naming the payer, and takes a plain payout', async () => {
    const org = await service.createOrg();
    expectSuccess(await org.test.post('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: freshVpub() }), 201);
    const invoiceId = await createInvoice(org.test, '0.5', 'LITECOIN');
    const pay = await paymentAddress(org.test, invoiceId, LTC);
    await node.send(pay.address, trimmed(pay.amount));
    await node.mine(6);
    await waitForPayments(org.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED', 30_000);

    // The payer claims to a legacy (P2PKH) address of their own key.
    const refund = expectSuccess(await org.test.post(`/invoices/${invoiceId}/refunds`, { amount: '0.2', currency: 'LITECOIN' }), 201);
    const payer = await node.rpc<string>('getnewaddress', ['', 'legacy']);
    const token = new URL(refund.claim_url as string, 'http://x').pathname.split('/').pop();
    const claimed = expectSuccess(await new Api(null, service.server.baseUrl).post(`/refund_claims/${token}`, { provider_id: LTC, address: payer }));
    const sats = units(trimmed(claimed.payout.amount), 8);

    // The merchant pays the full amount (and more) into 1-of-2 multisig [payer's key, merchant's key].
    const payerKey = (await node.rpc<{ pubkey: string }>('getaddressinfo', [payer])).pubkey;
    const merchantKey = (await node.rpc<{ pubkey: string }>('getaddressinfo', [await node.rpc<string>('getnewaddress', ['', 'legacy'])])).pubkey;
    const script = `5121${payerKey}21${merchantKey}52ae`;
    const value = Buffer.alloc(8);
    value.writeBigUInt64LE(sats * 2n);
    const raw = `020000000001${value.toString('hex')}${(script.length / 2).toString(16)}${script}00000000`;
    const funded = await node.rpc<{ hex: string }>('fundrawtransaction', [raw]);
    const signed = await node.rpc<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [funded.hex]);
    expect(signed.complete).toBe(true);
    const multisig = await node.rpc<string>('sendrawtransaction', [signed.hex]);
    await node.mine(1);
    const output = (await node.rpc<{ vout: Array<{ scriptPubKey: Record<string, any> }> }>('getrawtransaction', [multisig, true])).vout.find(
      (o) => o.scriptPubKey.hex === script,
    );
    expect(output?.scriptPubKey).toMatchObject({ type: 'multisig', addresses: [payer, expect.any(String)] });

    expectError(await org.test.post(`/refunds/${refund.id}/sent`, { tx_hash: multisig }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(expectSuccess(await org.test.get(`/refunds/${refund.id}`)).status).toBe('AWAITING_PAYOUT');

    const plain = await node.send(payer, new D(sats.toString()).div(1e8).toFixed(8));
    await node.mine(1);
    const sent = expectSuccess(await org.test.post(`/refunds/${refund.id}/sent`, { tx_hash: plain }));
    expect([sent.status, sent.payout.tx_hash]).toEqual(['SENT', plain]);
  });
});
