/**
 * The Solana watcher's RPC cost at 1 / 1,000 / 10,000 open invoices (Solana Pay references).
 *
 *   npm run build && npx tsc -p bench/tsconfig.json && node dist/bench/solana-watcher-cost.js [--sizes 1,1000,10000] [--merchants 10] [--seconds 10] [--payments 30]
 *
 * Against the litesvm node of the tests (test/chain/solana-rpc-server.ts), it runs the watcher's step as
 * the service does (`head`, `finalized`, then `scan` of the new slots with the real SolanaFollower), once
 * every `poll_interval_ms` (2000, the section's default), for `--seconds` of wall time per size, while
 * payers send `--payments` Solana Pay transfers a minute (SOL and USDC, each to a random open invoice's
 * reference), and asks each payment's signature again as the watcher does before it completes it
 * (getSignatureStatuses, one per payment). The N open invoices belong to `--merchants` wallets (one when N is 1),
 * which are the polled wallets (the registered ones: the watcher polls every active wallet); the watched set is
 * given whole up to 500 addresses and looked up otherwise, as the watcher does (here from memory: the
 * database side is bench/watcher-cost.ts's subject). Counts the requests the node answered, by method, and
 * prints them per minute, with what polling every reference one by one (one getSignaturesForAddress per
 * open invoice a step) would cost. Prints a table and one JSON line.
 */
import { type Address, generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { joinPaymentKey, newReference } from '../src/modules/rails/solana/solana-keys';
import { SolanaFollower } from '../src/modules/rails/solana/solana-follower';
import type { WatchedAddresses } from '../src/modules/rails/domain/payment-rail';
import { SolanaRpcServer } from '../test/chain/solana-rpc-server';
import { createMint, fundedWallet, giveTokens, solTransfer, tokenTransfer } from '../test/chain/solana-wallet';
import { benchOption as opt, sleep } from './watcher-bench';

const SIZES = opt('sizes', '1,1000,10000').split(',').map(Number);
const MERCHANTS = Number(opt('merchants', '10'));
const SECONDS = Number(opt('seconds', '10'));
const PAYMENTS_PER_MINUTE = Number(opt('payments', '30'));
const POLL_MS = 2000;
const LOAD_MAX = 500;

interface Row {
  open_invoices: number;
  wallets: number;
  steps: number;
  payments_sent: number;
  transfers_found: number;
  calls_per_minute: number;
  by_method_per_minute: Record<string, number>;
  one_by_one_calls_per_minute: number;
}

async function measure(size: number): Promise<Row> {
  const bed = new SolanaRpcServer({ confirmedLag: 0, finalizedLag: 32 });
  await bed.start();
  try {
    const usdc = await createMint(bed, 6);
    const wallets: Address[] = [];
    for (let i = 0; i < Math.min(MERCHANTS, size); i++) wallets.push((await generateKeyPairSigner()).address);
    const keys: string[] = [];
    for (let i = 0; i < size; i++) keys.push(joinPaymentKey(wallets[i % wallets.length], newReference()));
    const set = new Set(keys);
    const watched: WatchedAddresses = {
      addresses: set.size <= LOAD_MAX ? set : null,
      resolve: (candidates) => Promise.resolve(new Set(candidates.filter((c) => set.has(c)))),
      accounts: () => Promise.resolve(wallets),
    };
    const payers: KeyPairSigner[] = [];
    for (let i = 0; i < 4; i++) {
      const payer = await fundedWallet(bed, 1000n);
      await giveTokens(bed, payer.address, usdc, 10n ** 12n);
      payers.push(payer);
    }
    const follower = new SolanaFollower(bed.url, 'finalized');
    let cursor = await follower.head();
    bed.calls.clear();
    let steps = 0;
    let sent = 0;
    let found = 0;
    const started = Date.now();
    const paymentEveryMs = 60_000 / PAYMENTS_PER_MINUTE;
    let nextPayment = started;
    while (Date.now() - started < SECONDS * 1000) {
      // Payers: a Solana Pay transfer to a random open invoice, SOL or USDC.
      while (Date.now() >= nextPayment) {
        const key = keys[Math.floor(Math.random() * keys.length)];
        const [wallet, reference] = key.split('/');
        const payer = payers[sent % payers.length];
        bed.submit(
          sent % 2 === 0
            ? await solTransfer(bed, payer, wallet, 1_000_000n, [reference])
            : await tokenTransfer(bed, payer, wallet, usdc, 1_000_000n, [reference]),
        );
        sent++;
        nextPayment += paymentEveryMs;
      }
      bed.advance(5); // about 2 s of slots
      const head = await follower.head();
      await follower.finalized();
      if (head > cursor) {
        const read = await follower.scan({ from: cursor + 1n, to: head }, watched, [usdc]);
        found += read.transfers.length;
        // The watcher asks each payment's signature again once before it completes (rechecksTransactions): one
        // getSignatureStatuses per payment, counted here as it will be made.
        for (const transfer of read.transfers) await follower.transactionBlock(transfer.txHash);
        cursor = head;
      }
      steps++;
      await sleep(POLL_MS);
    }
    const minutes = (Date.now() - started) / 60_000;
    const perMinute = (n: number) => Math.round(n / minutes);
    const byMethod = Object.fromEntries([...bed.calls.entries()].map(([m, n]) => [m, perMinute(n)]));
    return {
      open_invoices: size,
      wallets: wallets.length,
      steps,
      payments_sent: sent,
      transfers_found: found,
      calls_per_minute: perMinute(bed.totalCalls()),
      by_method_per_minute: byMethod,
      // Polling each reference: head + finalized, then one getSignaturesForAddress per open invoice a step, plus the same getTransaction reads.
      one_by_one_calls_per_minute: perMinute(steps * (2 + size) + (bed.calls.get('getTransaction') ?? 0)),
    };
  } finally {
    await bed.stop();
  }
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  for (const size of SIZES) rows.push(await measure(size));
  console.log('open invoices | wallets | steps | payments | found | RPC calls/min | by method/min | one-by-one calls/min');
  for (const r of rows) {
    console.log(
      `${r.open_invoices} | ${r.wallets} | ${r.steps} | ${r.payments_sent} | ${r.transfers_found} | ${r.calls_per_minute} | ${JSON.stringify(r.by_method_per_minute)} | ${r.one_by_one_calls_per_minute}`,
    );
  }
  console.log(JSON.stringify({ bench: 'solana-watcher-cost', poll_ms: POLL_MS, seconds: SECONDS, payments_per_minute: PAYMENTS_PER_MINUTE, rows }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
