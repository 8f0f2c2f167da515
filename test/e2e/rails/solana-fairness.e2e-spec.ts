import { fundedWallet, solTransfer } from '../../chain/solana-wallet';
import { generateKeyPairSigner } from '@solana/kit';
import { expectSuccess } from '../../support/envelope';
import type { IsolatedService } from '../../support/isolated';
import { eventually } from '../../support/webhook-receiver';
import { createInvoice, r30 } from '../payments/payments-helpers';
import { paymentAddress, paymentsOf, waitForPayments } from './chain-helpers';
import { SOLANA_WATCHER_ENV, solanaMerchant, type SolanaService, type SolanaSetup, startSolanaService } from './solana-helpers';

const SOL = 'prov_solana_solana';
/** What the follower reads of one wallet in a step (READ_BUDGET.perWallet). */
const WALLET_BUDGET = 50;
/** What it reads of one organization's wallets together in a step (READ_BUDGET.perOrganization). */
const ORGANIZATION_BUDGET = 100;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Solana: one wallet flooded never holds up another organization; a transaction naming two invoices credits neither', () => {
  let setup: SolanaSetup;
  let service: IsolatedService;
  let stop: SolanaService['stop'] | undefined;
  beforeAll(async () => {
    ({ setup, service, stop } = await startSolanaService({ confirmedLag: 0, finalizedLag: 4 }, SOLANA_WATCHER_ENV));
  }, 120_000);
  afterAll(async () => stop?.());

  it("records B's payment in the first step after A's junk (whatever its count), and A's own payment amid the junk once; every transaction read once", async () => {
    const { bed } = setup;
    const a = await solanaMerchant(service);
    const b = await solanaMerchant(service);
    bed.airdrop(a.wallet, 1_000_000_000n);
    const invoiceA = await createInvoice(a.test, '1', 'SOLANA');
    const payA = await paymentAddress(a.test, invoiceA, SOL);
    const invoiceB = await createInvoice(b.test, '2', 'SOLANA');
    const payB = await paymentAddress(b.test, invoiceB, SOL);
    const attacker = await fundedWallet(bed);
    const other = await fundedWallet(bed);
    const payer = await fundedWallet(bed);

    // The node confirms nothing while the junk lands, so the watcher finds all of it at once.
    bed.options.confirmedLag = 1_000_000;
    const junk = 4 * WALLET_BUDGET;
    const sent: string[] = [];
    const send = async (i: number) =>
      // Half of it 1 lamport to A's wallet (money without a reference), half merely naming A's wallet.
      sent.push(bed.submit(await (i % 2 ? solTransfer(bed, attacker, a.wallet, 1n) : solTransfer(bed, attacker, other.address, 1n, [a.wallet]))));
    for (let i = 0; i < junk / 2; i++) await send(i);
    const paidA = bed.submit(await solTransfer(bed, payer, payA.address as string, 1_000_000_000n, [payA.reference as string]));
    for (let i = junk / 2; i < junk; i++) await send(i);
    const paidB = bed.submit(await solTransfer(bed, payer, payB.address as string, 2_000_000_000n, [payB.reference as string]));
    const askedBefore = bed.transactionsAsked.length;
    bed.options.confirmedLag = 0;

    const [paymentB] = await waitForPayments(b.test, invoiceB, (p) => p.length === 1);
    expect(paymentB).toMatchObject({ price: r30('2'), idempotency_key: `solana:${paidB}:${payB.reference}` });
    // B's transaction was read in the first step: behind at most one step's budget of A's, not behind all of A's junk.
    const asked = () => bed.transactionsAsked.slice(askedBefore);
    expect(asked().indexOf(paidB)).toBeGreaterThanOrEqual(0);
    expect(asked().indexOf(paidB)).toBeLessThanOrEqual(WALLET_BUDGET);

    // A's junk is read in the next steps, each transaction once; A's payment amid it is recorded once.
    const kept = await eventually(async () => {
      const page = expectSuccess(await a.test.get('/rails/unmatched?limit=1'));
      if (page.total < junk / 2) throw new Error(`unmatched so far: ${page.total}`);
      return page.total;
    }, 25_000);
    expect(kept).toBe(junk / 2);
    const [paymentA] = await waitForPayments(a.test, invoiceA, (p) => p.length === 1);
    expect(paymentA).toMatchObject({ price: r30('1'), idempotency_key: `solana:${paidA}:${payA.reference}` });
    await pause(600);
    expect(await paymentsOf(a.test, invoiceA)).toHaveLength(1);
    expect(expectSuccess(await a.test.get('/rails/unmatched?limit=1')).total).toBe(junk / 2);
    expect(expectSuccess(await b.test.get('/rails/unmatched')).total).toBe(0);
    // The oldest junk (naming A's wallet, moving nothing of it) may be read a step after the last credit: every
    // transaction is read in the end, each once.
    const unread = () => [...sent, paidA, paidB].filter((s) => !asked().includes(s));
    await eventually(async () => {
      if (unread().length) throw new Error(`not read yet: ${unread().length}`);
    }, 15_000);
    expect(new Set(asked()).size).toBe(asked().length);
  }, 60_000);

  it("completes B's payment while the node cannot say where A's is (its status aged out, its block cleaned up); A's is asked again later", async () => {
    const { bed } = setup;
    const a = await solanaMerchant(service);
    const b = await solanaMerchant(service);
    const invoiceA = await createInvoice(a.test, '1', 'SOLANA');
    const payA = await paymentAddress(a.test, invoiceA, SOL);
    const invoiceB = await createInvoice(b.test, '2', 'SOLANA');
    const payB = await paymentAddress(b.test, invoiceB, SOL);
    const payer = await fundedWallet(bed);
    // Nothing is finalized while both payments land and are recorded PENDING, A's first.
    bed.options.finalizedLag = 1_000_000;
    try {
      const paidA = bed.submit(await solTransfer(bed, payer, payA.address as string, 1_000_000_000n, [payA.reference as string]));
      await waitForPayments(a.test, invoiceA, (p) => p.length === 1 && p[0].status === 'PENDING');
      const paidB = bed.submit(await solTransfer(bed, payer, payB.address as string, 2_000_000_000n, [payB.reference as string]));
      await waitForPayments(b.test, invoiceB, (p) => p.length === 1 && p[0].status === 'PENDING');
      // Before A's payment completes, the watcher asks where its transaction is: the node no longer says (status
      // null, and its block gone from the ledger), every time.
      bed.withholdStatus(paidA, 1_000_000);
      bed.failBlock(bed.slotOf(paidA)!);
      bed.options.finalizedLag = 4;
      bed.advance(8);

      // B's is counted and completed all the same.
      const [doneB] = await waitForPayments(b.test, invoiceB, (p) => p[0].status === 'COMPLETED', 20_000);
      expect(doneB.idempotency_key).toBe(`solana:${paidB}:${payB.reference}`);
      expect((await paymentsOf(a.test, invoiceA))[0].status).toBe('PENDING');
      // Once the node answers again, A's completes too.
      bed.withholdStatus(paidA, 0);
      bed.failBlock(bed.slotOf(paidA)!, null);
      await waitForPayments(a.test, invoiceA, (p) => p[0].status === 'COMPLETED', 20_000);
    } finally {
      bed.options.finalizedLag = 4;
    }
  }, 60_000);

  it("records B's payment in the first step while A floods each of the nine wallets it keeps polled (one budget for all of A's)", async () => {
    const { bed } = setup;
    const a = await solanaMerchant(service);
    const b = await solanaMerchant(service);
    // A registers wallet after wallet, each kept polled by an open invoice's payment address: nine polled wallets.
    const walletsOfA: string[] = [];
    for (let i = 0; i < 9; i++) {
      if (i > 0) {
        const next = (await generateKeyPairSigner()).address;
        expectSuccess(await a.test.post('/wallets', { chain_family: 'solana', address: next }), 201);
      }
      const invoice = await createInvoice(a.test, '1', 'SOLANA');
      walletsOfA.push((await paymentAddress(a.test, invoice, SOL)).address.split('/')[0]);
    }
    expect(new Set(walletsOfA).size).toBe(9);
    // Funded, so a lamport sent to each is a transfer that lands (not one failing for rent).
    for (const wallet of walletsOfA) bed.airdrop(wallet, 1_000_000_000n);
    const invoiceB = await createInvoice(b.test, '2', 'SOLANA');
    const payB = await paymentAddress(b.test, invoiceB, SOL);
    const attacker = await fundedWallet(bed);
    const payer = await fundedWallet(bed);

    // The node confirms nothing while the junk lands: three wallets' budgets on each of A's wallets (more than three
    // whole steps' budgets in all), then B's payment.
    bed.options.confirmedLag = 1_000_000;
    try {
      for (const wallet of walletsOfA) for (let i = 0; i < 3 * WALLET_BUDGET; i++) bed.submit(await solTransfer(bed, attacker, wallet, 1n));
      const paidB = bed.submit(await solTransfer(bed, payer, payB.address as string, 2_000_000_000n, [payB.reference as string]));
      const askedBefore = bed.transactionsAsked.length;
      bed.options.confirmedLag = 0;
      const [paymentB] = await waitForPayments(b.test, invoiceB, (p) => p.length === 1, 30_000);
      expect(paymentB.idempotency_key).toBe(`solana:${paidB}:${payB.reference}`);
      // Read in the first step, behind at most A's share of it: not behind every one of A's wallets.
      const asked = bed.transactionsAsked.slice(askedBefore);
      expect(asked.indexOf(paidB)).toBeGreaterThanOrEqual(0);
      expect(asked.indexOf(paidB)).toBeLessThanOrEqual(ORGANIZATION_BUDGET);
    } finally {
      bed.options.confirmedLag = 0;
    }
  }, 120_000);

  it('keeps a transaction carrying the references of two invoices of the wallet as unmatched (several_references), neither invoice paid', async () => {
    const { bed } = setup;
    const shop = await solanaMerchant(service);
    const first = await createInvoice(shop.test, '1', 'SOLANA');
    const second = await createInvoice(shop.test, '1', 'SOLANA');
    const payFirst = await paymentAddress(shop.test, first, SOL);
    const paySecond = await paymentAddress(shop.test, second, SOL);
    const payer = await fundedWallet(bed);
    const both = bed.submit(await solTransfer(bed, payer, shop.wallet, 1_000_000_000n, [payFirst.reference, paySecond.reference]));

    const [kept] = await eventually(async () => {
      const page = expectSuccess(await shop.test.get('/rails/unmatched'));
      if (page.total < 1) throw new Error('not kept yet');
      return page.items;
    }, 20_000);
    expect(kept).toMatchObject({
      tx_hash: both,
      invoice_id: null,
      address: shop.wallet,
      reason_code: 'several_references',
      reason: expect.stringContaining('more than one payment address'),
      amount: r30('1'),
      idempotency_key: `solana:${both}:${shop.wallet}:native`,
    });
    bed.advance(6);
    await pause(600);
    expect(await paymentsOf(shop.test, first)).toEqual([]);
    expect(await paymentsOf(shop.test, second)).toEqual([]);
    expect(expectSuccess(await shop.test.get('/rails/unmatched')).total).toBe(1);
  });
});
