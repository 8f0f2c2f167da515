import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { generateKeyPairSigner } from '@solana/kit';
import { fundedWallet, solTransfer, tokenTransfer } from '../../chain/solana-wallet';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { type IsolatedService, sharedDatabase } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { linesWith, runCli, startServer } from '../../support/server';
import { eventually } from '../../support/webhook-receiver';
import { createInvoice, r30, shortState } from '../payments/payments-helpers';
import { paymentAddress, paymentsOf, units, waitForPayments } from './chain-helpers';
import {
  asService,
  SOLANA_WATCHER_ENV,
  solanaCursor,
  solanaMerchant,
  solanaPayer,
  type SolanaService,
  type SolanaSetup,
  startSolana,
  startSolanaService,
} from './solana-helpers';

const SOL = 'prov_solana_solana';
const TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The organization's unmatched transfers once there are `count` of them. */
async function unmatchedOnce(api: Api, count: number): Promise<any[]> {
  return eventually(async () => {
    const page = expectSuccess(await api.get('/rails/unmatched'));
    if (page.total < count) throw new Error(`unmatched so far: ${page.total}`);
    return page.items;
  }, 20_000);
}

/** The payment's events of one type, as the API lists them. */
async function paymentEvents(api: Api, type: string, paymentId: string): Promise<any[]> {
  return expectSuccess(await api.post('/events', { type, limit: 100 })).items.filter((e: any) => e.data.object.id === paymentId);
}

describe('Solana: money to the wallet without a known reference, and a confirmed payment the chain drops', () => {
  let setup: SolanaSetup;
  let service: IsolatedService;
  let stop: SolanaService['stop'] | undefined;
  beforeAll(async () => {
    // Confirmed at once, finalized 4 slots later.
    ({ setup, service, stop } = await startSolanaService({ confirmedLag: 0, finalizedLag: 4 }, SOLANA_WATCHER_ENV));
  }, 120_000);
  afterAll(async () => stop?.());

  it('keeps SOL and USDC sent to the wallet without a reference of ours as unmatched transfers of its organization, no invoice, not retried', async () => {
    const { bed, usdc } = setup;
    // No invoice is open: the registered wallet is polled all the same.
    const shop = await solanaMerchant(service);
    const payer = await solanaPayer(bed, { mint: usdc, amount: '100' });
    // SOL typed by hand (no reference); USDC with a reference the service never handed out.
    const bySol = bed.submit(await solTransfer(bed, payer, shop.wallet, 123_456_789n));
    const solSlot = bed.slot();
    const strangeReference = (await generateKeyPairSigner()).address;
    const byUsdc = bed.submit(await tokenTransfer(bed, payer, shop.wallet, usdc, units('12.345678', 6), [strangeReference]));
    const usdcSlot = bed.slot();
    // The wallet paying out (its own balance goes down) is nobody's money to keep.
    const stranger = await generateKeyPairSigner();
    bed.airdrop(shop.wallet, 2_000_000_000n);
    bed.submit(await solTransfer(bed, shop.signer, stranger.address, 1_000_000n));

    const items = await unmatchedOnce(shop.test, 2);
    const sol = items.find((t) => t.tx_hash === bySol);
    const token = items.find((t) => t.tx_hash === byUsdc);
    const common = {
      id: expect.stringMatching(/^unmatched_[0-9a-f-]{36}$/),
      status: 'OPEN',
      reason_code: 'no_known_reference',
      reason: expect.stringContaining('no reference'),
      invoice_id: null,
      network: 'SOLANA',
      address: shop.wallet,
      log_index: null,
      in_doubt: false,
      attempts: 1,
      payment_id: null,
      happened_at: expect.stringMatching(TIMESTAMP),
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
      resolved_at: null,
    };
    expect(sol).toEqual({
      ...common,
      provider_id: SOL,
      currency: 'SOLANA',
      amount: r30('0.123456789'),
      tx_hash: bySol,
      block_number: solSlot,
      idempotency_key: `solana:${bySol}:${shop.wallet}:native`,
    });
    expect(token).toEqual({
      ...common,
      provider_id: 'prov_solana_usdc',
      currency: 'USDC',
      amount: r30('12.345678'),
      tx_hash: byUsdc,
      block_number: usdcSlot,
      idempotency_key: `solana:${byUsdc}:${shop.wallet}:${usdc}`,
    });
    expect(expectSuccess(await shop.test.get(`/rails/unmatched/${sol.id}`))).toEqual(sol);
    // Each announced once, as the API shows it.
    const events = expectSuccess(await shop.test.post('/events', { type: 'transfer.unmatched' }));
    expect(events.total).toBe(2);
    expect(events.items.map((e: any) => e.data.object).find((o: any) => o.id === token.id)).toEqual(token);

    // No invoice to record a payment for: the retry says so, and the transfer stays as it was.
    const refused = expectError(await shop.test.post(`/rails/unmatched/${sol.id}/retry`), 400, { code: 'transfer_without_invoice', field: 'id' });
    expect(refused.validator.id).toContain('cannot be retried');
    expect(expectSuccess(await shop.test.get(`/rails/unmatched/${sol.id}`))).toEqual(sol);

    // Another organization (with a Solana wallet of its own) never sees it; the other mode neither.
    const other = await solanaMerchant(service);
    for (const res of [await other.test.get(`/rails/unmatched/${sol.id}`), await other.test.post(`/rails/unmatched/${sol.id}/retry`)]) {
      expect(expectError(res, 404, { code: 'unmatched_transfer_not_found' }).error).toBe('Unmatched transfer not found');
    }
    expect(expectSuccess(await other.test.get('/rails/unmatched')).total).toBe(0);
    expectError(await shop.live.get(`/rails/unmatched/${sol.id}`), 404, { code: 'unmatched_transfer_not_found' });

    // More slots and polls: kept once.
    bed.advance(8);
    await pause(800);
    expect(expectSuccess(await shop.test.get('/rails/unmatched')).total).toBe(2);
    expect(expectSuccess(await shop.test.post('/events', { type: 'transfer.unmatched' })).total).toBe(2);
  });

  it('keeps a transfer to the wallet with another invoice-less reference beside a paid invoice; the paid one is a payment, not unmatched', async () => {
    const { bed, usdt } = setup;
    const shop = await solanaMerchant(service);
    const payer = await solanaPayer(bed, { mint: usdt, amount: '100' });
    const invoiceId = await createInvoice(shop.test, '10', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId, 'prov_solana_usdt');
    const paid = bed.submit(await tokenTransfer(bed, payer, shop.wallet, usdt, units('10', 6), [pay.reference]));
    const loose = bed.submit(await tokenTransfer(bed, payer, shop.wallet, usdt, units('0.000001', 6)));
    const [payment] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(payment).toMatchObject({ price: r30('10'), idempotency_key: `solana:${paid}:${pay.reference}` });
    const [kept] = await unmatchedOnce(shop.test, 1);
    expect(kept).toMatchObject({ tx_hash: loose, invoice_id: null, provider_id: 'prov_solana_usdt', currency: 'USDT', amount: r30('0.000001') });
    bed.advance(4);
    await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
    expect(expectSuccess(await shop.test.get('/rails/unmatched')).total).toBe(1);
  });

  it("checks one organization's unmatched transfer at once although another's flood of older ones waits (fair batches)", async () => {
    const { bed } = setup;
    const flooded = await solanaMerchant(service);
    const shop = await solanaMerchant(service);
    const payer = await fundedWallet(bed);
    const sent = bed.submit(await solTransfer(bed, payer, shop.wallet, 400_000_000n));
    const [mine] = await unmatchedOnce(shop.test, 1);
    expect(mine.tx_hash).toBe(sent);
    // The flooding organization: 20,000 transfers the node does not know, older than the one above, each to be
    // asked for once more (100 a step; before, oldest first across organizations: 200 steps before the next one).
    const FLOOD = 20_000;
    // Signatures of transactions that never were (a hundred, repeated: each row is its own transfer by its key).
    const signatures = Array.from({ length: 100 }, () => base58.encode(randomBytes(64)));
    await withClient(service.databaseUrl!, (c) =>
      c.query(
        `INSERT INTO unattributed_transfers (id, organization_id, mode, network, idempotency_key, address, invoice_id, provider_id, currency,
                                             tx_hash, log_index, block_number, block_hash, happened_at, units, amount, status, reason_code, reason,
                                             attempts, created_at, updated_at)
         SELECT 'unattributed_flood_' || n, $1, 'test', m.network, m.network || ':flood-' || n || ':native', $2, NULL, m.provider_id, m.currency,
                ($3::text[])[n % 100 + 1], NULL, 1, '', now(), 1000, 0.000001, 'OPEN', m.reason_code, m.reason, 1, now(), now()
           FROM generate_series(1, $5::int) n, unattributed_transfers m
          WHERE m.id = $4`,
        [flooded.id, flooded.wallet, signatures, mine.id, FLOOD],
      ),
    );
    bed.advance(6);
    const count = async (where: string, params: unknown[]) =>
      (await withClient(service.databaseUrl!, (c) => c.query(`SELECT count(*)::int AS n FROM unattributed_transfers WHERE ${where}`, params))).rows[0]
        .n as number;
    try {
      await eventually(async () => expect(await count('id = $1 AND final_checked', [mine.id])).toBe(1), 15_000);
      // Checked while most of the flood still waits its turn.
      expect(await count(`organization_id = $1 AND NOT final_checked AND NOT orphaned`, [flooded.id])).toBeGreaterThan(FLOOD / 2);
      expect(expectSuccess(await shop.test.get(`/rails/unmatched/${mine.id}`))).toMatchObject({ in_doubt: false, amount: r30('0.4') });
    } finally {
      // The rest of the flood leaves: the tests below watch their own transfers.
      await withClient(service.databaseUrl!, (c) => c.query(`DELETE FROM unattributed_transfers WHERE organization_id = $1`, [flooded.id]));
    }
  });

  it('puts an unmatched transfer in doubt when the chain drops its confirmed transaction; one finalized stays as it is', async () => {
    const { bed } = setup;
    const shop = await solanaMerchant(service);
    const payer = await fundedWallet(bed);
    const stays = bed.submit(await solTransfer(bed, payer, shop.wallet, 500_000_000n));
    const dropped = bed.submit(await solTransfer(bed, payer, shop.wallet, 700_000_000n));
    const items = await unmatchedOnce(shop.test, 2);
    expect(items.every((t) => t.in_doubt === false)).toBe(true);
    const gone = items.find((t) => t.tx_hash === dropped);
    const kept = items.find((t) => t.tx_hash === stays);
    expect(gone).toMatchObject({ amount: r30('0.7'), invoice_id: null });

    // The fork that held the second dies; the finalized slot passes both.
    bed.rollBack(dropped);
    bed.advance(6);
    await eventually(async () => expect(expectSuccess(await shop.test.get(`/rails/unmatched/${gone.id}`)).in_doubt).toBe(true));
    await pause(500);
    expect(expectSuccess(await shop.test.get(`/rails/unmatched/${kept.id}`))).toMatchObject({ in_doubt: false, amount: r30('0.5') });
    // Still no invoice: the retry answers the same.
    expectError(await shop.test.post(`/rails/unmatched/${gone.id}/retry`), 400, { code: 'transfer_without_invoice' });
    expect(expectSuccess(await shop.test.get('/rails/unmatched')).total).toBe(2);
  });

  it('a node answering no status for transactions its final block holds (behind, or without them in its status cache) neither cancels their payment nor puts an unmatched transfer in doubt', async () => {
    const { bed } = setup;
    const shop = await solanaMerchant(service);
    const invoiceId = await createInvoice(shop.test, '2', 'SOLANA');
    const pay = await paymentAddress(shop.test, invoiceId, SOL);
    const payer = await fundedWallet(bed);
    const paid = bed.submit(await solTransfer(bed, payer, pay.address, 2_000_000_000n, [pay.reference]));
    const loose = bed.submit(await solTransfer(bed, payer, shop.wallet, 250_000_000n));
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen.status).toBe('PENDING');
    const [kept] = await unmatchedOnce(shop.test, 1);
    expect(kept).toMatchObject({ tx_hash: loose, in_doubt: false });

    // Every status the watcher asks for from now on answers null for both (each check, and the settling
    // after it, would otherwise take that as a dropped fork); their finalized blocks list them.
    const blocksAsked = bed.calls.get('getBlock') ?? 0;
    bed.withholdStatus(paid, 1000);
    bed.withholdStatus(loose, 1000);
    bed.advance(6);
    const [completed] = await waitForPayments(shop.test, invoiceId, (p) => p[0].status !== 'PENDING');
    expect(completed).toMatchObject({ id: seen.id, status: 'COMPLETED', price: r30('2') });
    expect((await shortState(shop.test, invoiceId)).status).toBe('COMPLETED');
    await eventually(async () => expect(bed.calls.get('getBlock') ?? 0).toBeGreaterThanOrEqual(blocksAsked + 2));
    await pause(800);
    expect(expectSuccess(await shop.test.get(`/rails/unmatched/${kept.id}`))).toMatchObject({ in_doubt: false, amount: r30('0.25') });
    expect((await paymentsOf(shop.test, invoiceId)).map((p) => p.status)).toEqual(['COMPLETED']);
  });

  it('cancels a payment whose confirmed transaction the chain drops before it is finalized (never COMPLETED); the invoice waits again and a new payment completes it', async () => {
    const { bed } = setup;
    const shop = await solanaMerchant(service);
    const invoiceId = await createInvoice(shop.test, '3', 'SOLANA');
    const pay = await paymentAddress(shop.test, invoiceId, SOL);
    const payer = await fundedWallet(bed);
    const signature = bed.submit(await solTransfer(bed, payer, pay.address, 3_000_000_000n, [pay.reference]));
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen).toMatchObject({ status: 'PENDING', price: r30('3'), idempotency_key: `solana:${signature}:${pay.reference}` });
    expect((await shortState(shop.test, invoiceId)).status).toBe('WAITING_FOR_CONFIRMATIONS');

    // The fork that held it dies: the node no longer knows the signature, and the finalized slot passes its slot.
    bed.rollBack(signature);
    bed.advance(6);
    const [cancelled] = await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'CANCELLED');
    expect(cancelled.id).toBe(seen.id);
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'PENDING', substatus: null });
    // As a reorg's cancellation: a payment.updated event with the CANCELLED payment.
    const updates = await eventually(async () => {
      const found = await paymentEvents(shop.test, 'payment.updated', seen.id);
      if (!found.some((e) => e.data.object.status === 'CANCELLED')) throw new Error('no payment.updated CANCELLED yet');
      return found;
    });
    expect(updates.map((e) => e.data.object.status)).not.toContain('COMPLETED');

    // Far past finalization, it stays cancelled: one payment, never completed.
    bed.advance(40);
    await pause(800);
    const after = await paymentsOf(shop.test, invoiceId);
    expect(after.map((p) => p.status)).toEqual(['CANCELLED']);
    expect((await shortState(shop.test, invoiceId)).status).toBe('PENDING');

    // The payer pays again (a new transaction, the same reference): that one completes the invoice.
    const again = bed.submit(await solTransfer(bed, payer, pay.address, 3_000_000_000n, [pay.reference]));
    bed.advance(4);
    const payments = await waitForPayments(shop.test, invoiceId, (p) => p.length === 2 && p[1].status === 'COMPLETED');
    expect(payments[1]).toMatchObject({ price: r30('3'), idempotency_key: `solana:${again}:${pay.reference}` });
    expect(payments[0].status).toBe('CANCELLED');
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });
  });

  it('records a refused transfer retried long after its slot unconfirmed: it completes only once the finalized slot covers it', async () => {
    const { bed } = setup;
    const shop = await solanaMerchant(service);
    const invoiceId = await createInvoice(shop.test, '2', 'SOLANA');
    const pay = await paymentAddress(shop.test, invoiceId, SOL);
    // The merchant turns SOL off after handing out the address: the payment is refused and kept as unmatched.
    expect((await runCli(['provider:disable', '--org', shop.id, '--provider', SOL, '--mode', 'test'], service.cliEnv)).code).toBe(0);
    bed.options.finalizedLag = 1_000_000;
    try {
      const payer = await fundedWallet(bed);
      bed.submit(await solTransfer(bed, payer, pay.address as string, 2_000_000_000n, [pay.reference as string]));
      const [kept] = await unmatchedOnce(shop.test, 1);
      expect(kept).toMatchObject({ invoice_id: invoiceId, reason_code: 'provider_disabled' });
      // Far more slots than the 32 confirmations pass, none finalized; then SOL is on again and the transfer retried.
      bed.advance(60);
      await pause(1_000);
      expect((await runCli(['provider:enable', '--org', shop.id, '--provider', SOL, '--mode', 'test'], service.cliEnv)).code).toBe(0);
      const resolved = await eventually(async () => expectSuccess(await shop.test.post(`/rails/unmatched/${kept.id}/retry`)));
      expect(resolved.status).toBe('RESOLVED');
      // Not final: PENDING, its count held one short of the requirement, not COMPLETED.
      await pause(1_500);
      const [pending] = await paymentsOf(shop.test, invoiceId);
      expect([pending.id, pending.status]).toEqual([resolved.payment_id, 'PENDING']);
      expect(pending.confirmations).toBeLessThan(32);
      // Finalized: it completes.
      bed.options.finalizedLag = 4;
      bed.advance(1);
      const [done] = await waitForPayments(shop.test, invoiceId, (p) => p[0]?.status === 'COMPLETED', 20_000);
      expect(done.id).toBe(resolved.payment_id);
    } finally {
      bed.options.finalizedLag = 4;
    }
  });
});

describe('Solana: a confirmed payment whose transaction lands again in a later slot', () => {
  let setup: SolanaSetup;
  let service: IsolatedService;
  let stop: SolanaService['stop'] | undefined;
  beforeAll(async () => {
    // Finalized 40 slots behind: more than the 32 confirmations SOL asks by count, so a count alone could complete a payment early.
    ({ setup, service, stop } = await startSolanaService({ confirmedLag: 0, finalizedLag: 40 }, SOLANA_WATCHER_ENV));
  }, 120_000);
  afterAll(async () => stop?.());

  it('keeps the payment PENDING until the finalized slot covers its new slot, then completes it once', async () => {
    const { bed } = setup;
    const shop = await solanaMerchant(service);
    const invoiceId = await createInvoice(shop.test, '3', 'SOLANA');
    const pay = await paymentAddress(shop.test, invoiceId, SOL);
    const payer = await fundedWallet(bed);
    const signature = bed.submit(await solTransfer(bed, payer, pay.address, 3_000_000_000n, [pay.reference]));
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen.status).toBe('PENDING');

    // Its fork dies and the surviving fork includes it one slot later; then the finalized slot passes its old
    // slot but not its new one, 40 slots above it.
    const moved = bed.reland(signature);
    bed.advance(39);
    expect(bed.slot('finalized')).toBe(moved - 1);
    await eventually(async () => expect(linesWith(service.server, '"event":"chain_transaction_dropped"').some((l) => l.includes(seen.id))).toBe(true));
    await pause(1_500);
    expect((await paymentsOf(shop.test, invoiceId)).map((p) => p.status)).toEqual(['PENDING']);
    expect((await shortState(shop.test, invoiceId)).status).toBe('WAITING_FOR_CONFIRMATIONS');

    bed.advance(1);
    const [completed] = await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
    expect(completed).toMatchObject({ id: seen.id, price: r30('3'), idempotency_key: `solana:${signature}:${pay.reference}` });
    expect((await paymentsOf(shop.test, invoiceId)).length).toBe(1);
  });
});

describe('Solana transfers without a reference across a repeated range and a restart', () => {
  let setup: SolanaSetup;
  beforeAll(async () => {
    setup = await startSolana({ finalizedLag: 2 });
  }, 120_000);
  afterAll(async () => setup?.bed.stop());

  it('keeps each once when the watcher reads the range again after a restart (its cursor put back before them)', async () => {
    const { bed } = setup;
    const db = await sharedDatabase();
    const env = { ...SOLANA_WATCHER_ENV, CHAINS_FILE: setup.chainsFile };
    const cursor = () => solanaCursor(db.url);
    let server = await startServer({ databaseUrl: db.url, env });
    try {
      const shop = await solanaMerchant(asService(server));
      await eventually(async () => expect(await cursor()).toBeDefined());
      const payer = await fundedWallet(bed);
      // The wallet holds SOL already (a transfer of less than the rent-exempt minimum to an empty account fails).
      bed.airdrop(shop.wallet, 1_000_000_000n);
      const before = BigInt(bed.slot());
      const sent = [bed.submit(await solTransfer(bed, payer, shop.wallet, 1000n)), bed.submit(await solTransfer(bed, payer, shop.wallet, 2500n))];
      const kept = await unmatchedOnce(shop.test, 2);
      expect(kept.map((t) => [t.tx_hash, t.amount]).sort()).toEqual(
        [
          [sent[0], r30('0.000001')],
          [sent[1], r30('0.0000025')],
        ].sort(),
      );
      await eventually(async () => expect(BigInt((await cursor())!)).toBeGreaterThanOrEqual(before + 2n));
      await server.stop();

      // As after a crash before the cursor moved: the range is read again from the start.
      await withClient(db.url, (c) =>
        c.query(`UPDATE chain_cursors SET block_number = $1, block_hash = $2 WHERE mode = 'test' AND network = 'solana'`, [
          before.toString(),
          `slot:${before}`,
        ]),
      );
      bed.advance(3);
      server = await startServer({ databaseUrl: db.url, env });
      const api = new Api(shop.test.key, server.baseUrl);
      await eventually(async () => expect(BigInt((await cursor())!)).toBeGreaterThanOrEqual(BigInt(bed.slot('confirmed'))));
      await pause(500);
      const again = expectSuccess(await api.get('/rails/unmatched'));
      expect(again.total).toBe(2);
      expect(again.items.map((t: any) => t.id).sort()).toEqual(kept.map((t) => t.id).sort());
      expect(again.items.every((t: any) => t.attempts === 1 && t.invoice_id === null)).toBe(true);
      expect(expectSuccess(await api.post('/events', { type: 'transfer.unmatched' })).total).toBe(2);
    } finally {
      await server.stop();
      await db.drop();
    }
  });
});
