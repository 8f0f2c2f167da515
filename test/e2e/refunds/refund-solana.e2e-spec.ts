import { generateKeyPairSigner } from '@solana/kit';
import { SolanaFollower } from '../../../src/modules/rails/solana/solana-follower';
import { batchedTransfer, fundedWallet, solTransfer, tokenAccountOf, tokenTransfer, tokenTransferPaidBy } from '../../chain/solana-wallet';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import type { IsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { eventually } from '../../support/webhook-receiver';
import { createInvoice } from '../payments/payments-helpers';
import { paymentAddress, units, waitForPayments } from '../rails/chain-helpers';
import { type SolanaService, type SolanaSetup, solanaMerchant, solanaPayer, startSolanaService } from '../rails/solana-helpers';

const trimmed = (amount: string) => amount.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');

/**
 * Refunds to Solana on the litesvm node: the payer names a wallet address (the Solana adapter refuses a token
 * account and other chains' addresses), the claim's payout is a Solana Pay request to that wallet, and the
 * merchant's payout transaction (built and signed as their wallet would) is read through the Solana follower
 * as refunds' payout check reads it: what the destination's own balance (SOL) or its associated token account
 * (USDC) gained, in which slot, and whether it succeeded.
 */
describe('refunds paid out on Solana (litesvm node in JSON-RPC shapes)', () => {
  let setup: SolanaSetup;
  let service: IsolatedService;
  let stop: SolanaService['stop'] | undefined;

  beforeAll(async () => {
    ({ setup, service, stop } = await startSolanaService({ finalizedLag: 2 }, { CHAIN_LOCK_RETRY_MS: '300', REFUND_CHECK_SECONDS: '1' }));
  }, 120_000);
  afterAll(async () => stop?.());

  const claim = (refund: { claim_url: string }, body: unknown) =>
    new Api(null, service.server.baseUrl).post(`/refund_claims/${new URL(refund.claim_url, 'http://x').pathname.split('/').pop()}`, body);

  it('claims to a wallet address (a token account refused), offers a Solana Pay payout, and reads the payout a merchant sends: USDC and SOL, short, failed, unknown', async () => {
    const { bed, usdc } = setup;
    const shop = await solanaMerchant(service);
    const customer = await solanaPayer(bed, { mint: usdc, amount: '500' });
    const invoiceId = await createInvoice(shop.test, '30', 'USDC');
    const pay = await paymentAddress(shop.test, invoiceId, 'prov_solana_usdc');
    bed.submit(await tokenTransfer(bed, customer, pay.address, usdc, units('30', 6), [pay.reference]));
    bed.advance(2);
    await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED', 30_000);

    const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '12', currency: 'USDC' }), 201);
    const payer = (await generateKeyPairSigner()).address;
    const ata = await tokenAccountOf(payer, usdc);
    const offCurve = expectError(await claim(refund, { provider_id: 'prov_solana_usdc', address: ata }), 400, { field: 'address' });
    expect(offCurve.validator.address).toContain("wallet's own address");
    expectError(await claim(refund, { provider_id: 'prov_solana_usdc', address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }), 400, { field: 'address' });
    const claimed = expectSuccess(await claim(refund, { provider_id: 'prov_solana_usdc', address: ` ${payer} ` }));
    expect(claimed.payout).toMatchObject({ network: 'SOLANA', currency: 'USDC', address: payer });
    expect(claimed.payout.uri).toBe(`solana:${payer}?amount=${trimmed(claimed.payout.amount)}&spl-token=${usdc}`);
    const owed = units(trimmed(claimed.payout.amount), 6);
    expect(owed).toBe(units('12', 6));

    // The merchant's wallet pays the claim (it holds the invoice's USDC; SOL for fees).
    bed.airdrop(shop.wallet, 1_000_000_000n);
    const follower = new SolanaFollower(bed.url, 'finalized');
    const before = await follower.head();
    const short = bed.submit(await tokenTransfer(bed, shop.signer, payer, usdc, owed - 1n));
    const full = bed.submit(await tokenTransfer(bed, shop.signer, payer, usdc, owed));
    const fullRead = await follower.transactionTransfers(full, payer, usdc);
    expect(fullRead).toEqual({ blockNumber: expect.any(BigInt), success: true, transfers: [{ output: `spl:${payer}:${usdc}`, formerly: 'spl', units: owed }] });
    expect(fullRead!.blockNumber! > before).toBe(true);
    expect(await follower.transactionTransfers(short, payer, usdc)).toMatchObject({
      success: true,
      transfers: [{ output: `spl:${payer}:${usdc}`, units: owed - 1n }],
    });
    // Not to the destination in that mint: nothing counts.
    expect(await follower.transactionTransfers(full, payer, setup.usdt)).toMatchObject({ success: true, transfers: [] });
    expect(await follower.transactionTransfers(full, shop.wallet, usdc)).toMatchObject({ transfers: [] });

    // Reported over the API: the short payout is refused and the refund still awaits its payout; a hex id is
    // refused in the Solana form's words; the full one, its base58 signature as the wallet shows it (case kept),
    // is SENT, then COMPLETED once 32 slots bury it.
    const mismatch = expectError(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: short }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(mismatch.validator.tx_hash).toBeDefined();
    expect(expectSuccess(await shop.test.get(`/refunds/${refund.id}`)).status).toBe('AWAITING_PAYOUT');
    expectError(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: `0x${'ab'.repeat(32)}` }), 400, { field: 'tx_hash' });
    const sent = expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: ` ${full} ` }));
    expect(sent.status).toBe('SENT');
    expect(sent.payout.tx_hash).toBe(full);
    expect(sent.payout.required_confirmations).toBe(32);
    bed.advance(33);
    const done = await eventually(async () => {
      const r = expectSuccess(await shop.test.get(`/refunds/${refund.id}`));
      if (r.status !== 'COMPLETED') throw new Error(`status ${r.status}`);
      return r;
    }, 30_000);
    expect(done.payout.tx_hash).toBe(full);

    // SOL: what the destination's own balance gained; a failed transfer (more than the wallet holds) counts nothing.
    const sol = bed.submit(await solTransfer(bed, shop.signer, payer, 250_000_000n));
    expect(await follower.transactionTransfers(sol, payer, null)).toMatchObject({
      success: true,
      transfers: [{ output: `native:${payer}`, units: 250_000_000n }],
    });
    const failed = bed.submit(await solTransfer(bed, shop.signer, payer, 10n ** 15n));
    expect(await follower.transactionTransfers(failed, payer, null)).toMatchObject({ success: false, transfers: [] });
    // A signature the node does not know (a payout not landed yet, or mistyped): null.
    const stranger = await fundedWallet(bed);
    const held = bed.submit(await solTransfer(bed, stranger, payer, 1n), { hold: true });
    expect(await follower.transactionTransfers(held, payer, null)).toBeNull();
  });

  it("refuses a transaction the destination signed itself (its own swap into the token), and takes the merchant's payout", async () => {
    const { bed, usdc } = setup;
    const shop = await solanaMerchant(service);
    const customer = await solanaPayer(bed, { mint: usdc, amount: '500' });
    const invoiceId = await createInvoice(shop.test, '30', 'USDC');
    const pay = await paymentAddress(shop.test, invoiceId, 'prov_solana_usdc');
    bed.submit(await tokenTransfer(bed, customer, pay.address, usdc, units('30', 6), [pay.reference]));
    bed.advance(2);
    await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED', 30_000);
    const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '12', currency: 'USDC' }), 201);
    const payer = await fundedWallet(bed);
    const claimed = expectSuccess(await claim(refund, { provider_id: 'prov_solana_usdc', address: payer.address }));
    const owed = units(trimmed(claimed.payout.amount), 6);
    bed.airdrop(shop.wallet, 1_000_000_000n);

    // The payer's own transaction, mined after the claim, hands its wallet the refund's USDC: not a payout.
    const own = bed.submit(await tokenTransferPaidBy(bed, payer, shop.signer, payer.address, usdc, owed));
    const refused = expectError(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: own }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(refused.validator.tx_hash).toContain('itself');
    expect(expectSuccess(await shop.test.get(`/refunds/${refund.id}`)).status).toBe('AWAITING_PAYOUT');

    const payout = bed.submit(await tokenTransfer(bed, shop.signer, payer.address, usdc, owed));
    expect(expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: payout })).status).toBe('SENT');
  });

  it('lets one transaction paying two wallets (SOL and USDC to each) pay a refund to each wallet, and no third refund to either with the same transfers', async () => {
    const { bed, usdc } = setup;
    const shop = await solanaMerchant(service);
    const customer = await solanaPayer(bed, { mint: usdc, amount: '500' });
    // Two invoices, one paid in SOL and one in USDC, into the merchant's wallet.
    const solInvoice = await createInvoice(shop.test, '3', 'SOLANA');
    const solPay = await paymentAddress(shop.test, solInvoice, 'prov_solana_solana');
    bed.submit(await solTransfer(bed, customer, solPay.address, 3_000_000_000n, [solPay.reference]));
    const usdcInvoice = await createInvoice(shop.test, '30', 'USDC');
    const usdcPay = await paymentAddress(shop.test, usdcInvoice, 'prov_solana_usdc');
    bed.submit(await tokenTransfer(bed, customer, usdcPay.address, usdc, units('30', 6), [usdcPay.reference]));
    bed.advance(2);
    await waitForPayments(shop.test, solInvoice, (p) => p.length === 1 && p[0].status === 'COMPLETED', 30_000);
    await waitForPayments(shop.test, usdcInvoice, (p) => p.length === 1 && p[0].status === 'COMPLETED', 30_000);

    // Refunds to two payers' wallets, X and Y, each claimed before the payout; a third of each asset to one of them.
    const x = (await generateKeyPairSigner()).address;
    const y = (await generateKeyPairSigner()).address;
    const claimed = async (invoiceId: string, amount: string, provider: string, address: string) => {
      const refund = expectSuccess<{ id: string; claim_url: string }>(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount }), 201);
      const { payout } = expectSuccess<{ payout: { amount: string } }>(await claim(refund, { provider_id: provider, address }));
      return { id: refund.id, units: units(trimmed(payout.amount), provider === 'prov_solana_solana' ? 9 : 6) };
    };
    const solToX = await claimed(solInvoice, '1', 'prov_solana_solana', x);
    const solToY = await claimed(solInvoice, '0.5', 'prov_solana_solana', y);
    const solToXAgain = await claimed(solInvoice, '0.25', 'prov_solana_solana', x);
    const usdcToX = await claimed(usdcInvoice, '5', 'prov_solana_usdc', x);
    const usdcToY = await claimed(usdcInvoice, '7', 'prov_solana_usdc', y);
    const usdcToYAgain = await claimed(usdcInvoice, '1', 'prov_solana_usdc', y);

    // The merchant's wallet batches the two payers' refunds into one transaction: SOL and USDC to X, SOL and USDC to Y.
    bed.airdrop(shop.wallet, 1_000_000_000n);
    const batch = bed.submit(
      await batchedTransfer(bed, shop.signer, [
        { to: x, lamports: solToX.units },
        { to: x, mint: usdc, units: usdcToX.units },
        { to: y, lamports: solToY.units },
        { to: y, mint: usdc, units: usdcToY.units },
      ]),
    );

    // Each refund reports the same signature and takes its own wallet's transfer.
    for (const refund of [solToX, solToY, usdcToX, usdcToY]) {
      expect(expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: batch })).status).toBe('SENT');
    }
    // Each is its own transfer, named by its destination: the wallet (SOL), or the wallet and the mint (its token account's).
    const follower = new SolanaFollower(bed.url, 'finalized');
    expect(await follower.transactionTransfers(batch, x, null)).toMatchObject({ success: true, transfers: [{ output: `native:${x}`, units: solToX.units }] });
    expect(await follower.transactionTransfers(batch, y, usdc)).toMatchObject({
      success: true,
      transfers: [{ output: `spl:${y}:${usdc}`, units: usdcToY.units }],
    });
    // The transfers are held under their new names, and the old names beside the first refund of each kind to
    // take one, so an instance of the previous version (a rolling upgrade) finds the transaction's SOL and USDC taken.
    const rows = await withClient(
      service.databaseUrl!,
      async (c) => (await c.query(`SELECT refund_id, output FROM refund_payout_transfers WHERE network = 'solana' AND tx_hash = $1`, [batch])).rows,
    );
    expect(rows.map((r) => r.output).sort()).toEqual(['native', `native:${x}`, `native:${y}`, 'spl', `spl:${x}:${usdc}`, `spl:${y}:${usdc}`].sort());
    expect(rows.find((r) => r.output === 'native')!.refund_id).toBe(solToX.id);
    expect(rows.find((r) => r.output === 'spl')!.refund_id).toBe(usdcToX.id);

    // A third refund to X (SOL) and to Y (USDC) finds that wallet's transfer held: one transfer pays one refund.
    for (const refund of [solToXAgain, usdcToYAgain]) {
      const taken = expectError(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: batch }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
      expect(taken.validator.tx_hash).toContain('already pay another refund');
      expect(expectSuccess(await shop.test.get(`/refunds/${refund.id}`)).status).toBe('AWAITING_PAYOUT');
    }

    bed.advance(33);
    for (const refund of [solToX, solToY, usdcToX, usdcToY]) {
      const done = await eventually(async () => {
        const r = expectSuccess(await shop.test.get(`/refunds/${refund.id}`));
        if (r.status !== 'COMPLETED') throw new Error(`status ${r.status}`);
        return r;
      }, 30_000);
      expect(done.payout.tx_hash).toBe(batch);
    }
  });

  it('keeps a transfer an instance of the previous version holds under its old name (`native`) from paying a second refund to the same wallet', async () => {
    const { bed } = setup;
    const shop = await solanaMerchant(service);
    const customer = await solanaPayer(bed);
    const invoiceId = await createInvoice(shop.test, '2', 'SOLANA');
    const pay = await paymentAddress(shop.test, invoiceId, 'prov_solana_solana');
    bed.submit(await solTransfer(bed, customer, pay.address, 2_000_000_000n, [pay.reference]));
    bed.advance(2);
    await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED', 30_000);
    const x = (await generateKeyPairSigner()).address;
    const refunds: Array<{ id: string; units: bigint }> = [];
    for (const amount of ['0.5', '0.25']) {
      const refund = expectSuccess<{ id: string; claim_url: string }>(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount }), 201);
      const { payout } = expectSuccess<{ payout: { amount: string } }>(await claim(refund, { provider_id: 'prov_solana_solana', address: x }));
      refunds.push({ id: refund.id, units: units(trimmed(payout.amount), 9) });
    }
    const [first, second] = refunds;
    bed.airdrop(shop.wallet, 1_000_000_000n);
    const paid = bed.submit(await solTransfer(bed, shop.signer, x, first.units));
    expect(expectSuccess(await shop.test.post(`/refunds/${first.id}/sent`, { tx_hash: paid })).status).toBe('SENT');
    // As an instance still running the previous version (during a rolling upgrade, after the migration) holds it:
    // under the old name alone.
    await withClient(service.databaseUrl!, (c) =>
      c.query(`DELETE FROM refund_payout_transfers WHERE network = 'solana' AND tx_hash = $1 AND refund_id = $2 AND output <> 'native'`, [paid, first.id]),
    );
    const taken = expectError(await shop.test.post(`/refunds/${second.id}/sent`, { tx_hash: paid }), 400, { code: 'payout_mismatch', field: 'tx_hash' });
    expect(taken.validator.tx_hash).toContain('already pay another refund');
  });
});
