/**
 * How the chain watcher's cost grows with the number of watched deposit addresses.
 *
 *   npm run build && npx tsc -p bench/tsconfig.json && node dist/bench/watcher-cost.js [--sizes 1,1000,100000] [--blocks 20] [--expired 0]
 *   ... node dist/bench/watcher-cost.js --family utxo [--sizes 1,1000,100000] [--txs 2000]   (bench/utxo-watcher-cost.ts)
 *   ... node dist/bench/watcher-cost.js --family tron [--sizes 1,100,1000] [--blocks 10]       (bench/tron-watcher-cost.ts)
 *   (DATABASE_URL: the PostgreSQL server to create its database on; default postgres://postgres@127.0.0.1:5432/postgres)
 *
 * 1. Starts a Hardhat node (test/chain/hardhat.config.js) on a free loopback port and deploys the test
 *    USDT with scripts/local-chain.js; creates a database of its own and starts the built service on it
 *    with a CHAINS_FILE for that node (test mode, poll 100 ms).
 * 2. One organization, one wallet, one invoice with a USDT deposit address (the one real watched
 *    address). For each size N, the other N - 1 watched addresses are added with one set-based INSERT
 *    (random addresses, watched for a day), then ANALYZE. `--expired N` first adds N addresses whose
 *    monitoring window has closed (a table that has handed out many addresses over time).
 * 3. Per size: `--blocks` blocks each holding a token transfer and a native transfer to addresses that
 *    are not ours, one block also a token transfer to the watched address; then as many empty blocks.
 *    Each block is mined alone and the bench waits until the watcher's cursor reaches it, so one scan
 *    is one block.
 * 4. Reports per scan, for both kinds of block: `chain_scan_seconds` (mean, from the service's
 *    /metrics), CPU of the service process (/proc/<pid>/stat utime + stime), and what does not depend on
 *    the machine's load: rows of deposit_addresses PostgreSQL read (pg_stat_user_tables seq_tup_read +
 *    idx_tup_fetch) and the EXPLAIN (ANALYZE, BUFFERS) of the watcher's address statements at that size
 *    (generic plans, as the service's sessions run them).
 *    Prints a table and one JSON line.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { HDKey } from 'viem/accounts';
import { mnemonicToSeedSync } from '@scure/bip39';
import { LOAD_ADDRESSES_MAX, WATCHED_AMONG_SQL, WATCHED_UP_TO_SQL } from '../src/modules/rails/persistence/watched-addresses';
import { processCpuMs } from './process-tools';
import { tronWatcherCost } from './tron-watcher-cost';
import { utxoWatcherCost } from './utxo-watcher-cost';
import {
  BenchChildren,
  benchDatabase,
  benchOption as opt,
  mineBlock,
  MNEMONIC,
  numberOption,
  numbersOption,
  scanMetrics,
  sleep,
  startHardhat,
  startWatcherService,
  waitFor,
  watcherCursor,
} from './watcher-bench';

const SIZES = numbersOption('sizes', [1, 1000, 100000]);
const BLOCKS = numberOption('blocks', 20);
/** Addresses handed out earlier whose monitoring window has closed (not watched, still in the table). */
const EXPIRED = numberOption('expired', 0);
function randomAddress(): string {
  let hex = '';
  for (let i = 0; i < 40; i++) hex += Math.floor(Math.random() * 16).toString(16);
  return `0x${hex}`;
}

async function depositRowsRead(db: Client): Promise<number> {
  // Other sessions report their table counters at most once a second, and when idle after 10 s at the latest.
  const [row] = (
    await db.query(`SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS n FROM pg_stat_user_tables WHERE relname = 'deposit_addresses'`)
  ).rows as Array<{ n: string }>;
  return Number(row?.n ?? 0);
}

interface Explained {
  statement: string;
  ms: number;
  rows_read: number;
  buffers: number;
  plan: string[];
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

function scanned(node: PlanNode): { rows: number; nodes: string[] } {
  const own = /Scan/.test(node['Node Type'])
    ? (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)
    : 0;
  const name = /Scan/.test(node['Node Type']) ? [`${node['Node Type']}${node['Index Name'] ? ` ${node['Index Name']}` : ''}`] : [];
  const children = (node.Plans ?? []).map(scanned);
  return { rows: own + children.reduce((a, c) => a + c.rows, 0), nodes: [...name, ...children.flatMap((c) => c.nodes)] };
}

/**
 * The watcher's address statements (persistence/deposit-addresses.repository.ts, the very text it
 * sends), explained at this size as the service's sessions plan them: prepared, generic plans.
 */
async function explainAddressLookups(db: Client, candidates: string[]): Promise<Explained[]> {
  const now = new Date().toISOString();
  const statements: Array<[string, string, string, string]> = [
    [
      `watchedUpTo (the set when at most ${LOAD_ADDRESSES_MAX}, else ${LOAD_ADDRESSES_MAX + 1} rows)`,
      'bench_up_to',
      WATCHED_UP_TO_SQL,
      `'test', 'ethereum', '${now}', ${LOAD_ADDRESSES_MAX + 1}`,
    ],
    [
      `watchedAmong (${candidates.length} recipients of a block)`,
      'bench_among',
      WATCHED_AMONG_SQL,
      `'test', 'ethereum', ARRAY[${candidates.map((c) => `'${c}'`).join(', ')}]::text[], '${now}'`,
    ],
  ];
  await db.query(`SET plan_cache_mode = force_generic_plan`);
  const out: Explained[] = [];
  for (const [name, handle, sql, args] of statements) {
    await db.query(`DEALLOCATE ALL`);
    await db.query(`PREPARE ${handle} AS ${sql}`);
    const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE ${handle}(${args})`);
    const plan = (rows[0] as { 'QUERY PLAN': Array<{ Plan: PlanNode; 'Execution Time': number }> })['QUERY PLAN'][0];
    const s = scanned(plan.Plan);
    const buffers = (n: PlanNode): number => (n['Shared Hit Blocks'] ?? 0) + (n['Shared Read Blocks'] ?? 0);
    out.push({ statement: name, ms: Number(plan['Execution Time'].toFixed(3)), rows_read: s.rows, buffers: buffers(plan.Plan), plan: s.nodes });
  }
  await db.query(`DEALLOCATE ALL`);
  await db.query(`RESET plan_cache_mode`);
  return out;
}

interface Phase {
  scans: number;
  scan_ms: number;
  cpu_ms_per_scan: number;
  deposit_rows_read_per_scan: number;
}

async function main(): Promise<void> {
  const children = new BenchChildren();
  const database = await benchDatabase('ipa_watchbench');
  try {
    // The chain and its token.
    const hardhat = await startHardhat(children);
    const { rpcUrl, usdt } = hardhat;

    // The service.
    const chainsFile = join(mkdtempSync(join(tmpdir(), 'ipa-watchbench-')), 'chains.json');
    writeFileSync(
      chainsFile,
      JSON.stringify({ test: { ethereum: { rpc_url: rpcUrl, chain_id: 31337, tokens: { usdt }, poll_interval_ms: 100, confirmations: 12 } } }),
    );
    const { baseUrl, pid: servicePid, call } = await startWatcherService(children, database.url, chainsFile);
    const org = await call('/admin/organizations', { name: 'Watcher bench' });
    const key = org.test_key as string;
    const xpub = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC)).derive(`m/44'/60'/7'`).publicExtendedKey;
    const walletRow = await call('/wallets', { chain_family: 'evm', xpub }, key);
    const invoice = await call(
      '/invoices/create',
      { customer_email: 'bench@example.com', items: [{ type: 'PAYMENT_INTENT', currency: 'USDT', price: '10' }] },
      key,
    );
    const pay = await call(`/invoices/${invoice.id as string}/payment_address`, { provider_id: 'prov_ethereum_usdt' }, key);
    const ours = (pay.address as string).toLowerCase();

    const db = new Client({ connectionString: database.url });
    await db.connect();
    const cursor = watcherCursor(db, 'ethereum');
    await waitFor('the watcher cursor', async () => ((await cursor()) >= 0 ? true : null));
    const mineOne = (transfers: Array<{ to: string; token: boolean }>) => mineBlock(hardhat, cursor, transfers);

    const measure = async (blocks: Array<Array<{ to: string; token: boolean }>>): Promise<Phase> => {
      await sleep(11_000); // let every session report its table counters
      const [m0, c0, r0] = [await scanMetrics(baseUrl, 'ethereum'), processCpuMs(servicePid), await depositRowsRead(db)];
      for (const transfers of blocks) await mineOne(transfers);
      const [m1, c1] = [await scanMetrics(baseUrl, 'ethereum'), processCpuMs(servicePid)];
      await sleep(11_000);
      const r1 = await depositRowsRead(db);
      const scans = m1.count - m0.count;
      return {
        scans,
        scan_ms: Number((((m1.sum - m0.sum) / scans) * 1000).toFixed(1)),
        cpu_ms_per_scan: Number(((c1 - c0) / scans).toFixed(1)),
        deposit_rows_read_per_scan: Number(((r1 - r0) / scans).toFixed(1)),
      };
    };

    const results: Array<{ watched: number; expired: number; with_transfers: Phase; empty: Phase; explain: Explained[] }> = [];
    let watched = 1;
    let nextIndex = 1_000_000;
    const seed = async (count: number, watchUntil: string) => {
      await db.query(
        `INSERT INTO deposit_addresses (wallet_id, derivation_index, organization_id, mode, invoice_id, provider_id, network, address, watch_until, created_at)
         SELECT $1, $2 + g, $3, 'test', 'invoice_bench_' || ($2 + g), 'prov_ethereum_usdt', 'ethereum',
                '0x' || substr(md5(random()::text), 1, 20) || substr(md5(random()::text), 1, 20), now() + $5::interval, now()
           FROM generate_series(1, $4) AS g`,
        [walletRow.id, nextIndex, org.organization_id, count, watchUntil],
      );
      nextIndex += count;
    };
    if (EXPIRED > 0) {
      await seed(EXPIRED, '-1 day');
      await db.query(`ANALYZE deposit_addresses`);
    }
    for (const size of SIZES) {
      if (size > watched) {
        const add = size - watched;
        await seed(add, '1 day');
        watched = size;
        await db.query(`ANALYZE deposit_addresses`);
      }
      const busy = Array.from({ length: BLOCKS }, (_, i) => [
        { to: i === Math.floor(BLOCKS / 2) ? ours : randomAddress(), token: true },
        { to: randomAddress(), token: false },
      ]);
      const withTransfers = await measure(busy);
      const empty = await measure(Array.from({ length: BLOCKS }, () => []));
      const explain = await explainAddressLookups(db, [ours, randomAddress(), randomAddress()]);
      results.push({ watched, expired: EXPIRED, with_transfers: withTransfers, empty, explain });
      process.stderr.write(`${JSON.stringify(results[results.length - 1])}\n`);
    }
    const payments = (await db.query(`SELECT count(*)::int AS n FROM payments`)).rows[0] as { n: number };
    await db.end();

    console.log(`\n${EXPIRED} addresses no longer watched in the table`);
    console.log('watched | scan with transfers | CPU/scan | deposit rows read/scan | empty-block scan | CPU/scan | rows read/scan');
    for (const r of results) {
      console.log(
        `${r.watched} | ${r.with_transfers.scan_ms} ms | ${r.with_transfers.cpu_ms_per_scan} ms | ${r.with_transfers.deposit_rows_read_per_scan} | ${r.empty.scan_ms} ms | ${r.empty.cpu_ms_per_scan} ms | ${r.empty.deposit_rows_read_per_scan}`,
      );
      for (const e of r.explain) console.log(`    ${e.statement}: ${e.ms} ms, ${e.rows_read} rows read, ${e.buffers} buffers, ${e.plan.join(' + ')}`);
    }
    console.log(JSON.stringify({ blocks_per_phase: BLOCKS, payments_recorded: payments.n, results }));
  } finally {
    await children.stop();
    await sleep(500);
    await database.drop();
  }
}

// `--family utxo`: the UTXO rail's case (bench/utxo-watcher-cost.ts), on a Litecoin Core node;
// `--family tron`: the Tron rail's (bench/tron-watcher-cost.ts), on the java-tron stand-in.
const family = opt('family', 'evm');
(family === 'utxo' ? utxoWatcherCost() : family === 'tron' ? tronWatcherCost() : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
