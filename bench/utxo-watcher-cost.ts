/**
 * The UTXO case of the watcher bench (`node dist/bench/watcher-cost.js --family utxo [--sizes 1,1000,100000] [--txs 2000]`):
 * how a block scan's cost grows with the number of watched addresses when a block holds 2,000
 * transactions, and how long a payment takes from the node to its payment row.
 *
 * 1. Starts Debian's Litecoin Core (`litecoind -regtest`, LITECOIND to override) on free loopback ports
 *    with a data folder of its own, funds its wallet, and splits coins into enough confirmed outputs for
 *    every block to come (each transaction of a block spends its own confirmed output).
 * 2. Creates a database of its own and starts the built service on it with a CHAINS_FILE for that node
 *    (test mode, `poll_interval_ms` 1000); one organization with a Litecoin wallet (a vpub) and one
 *    invoice whose deposit address is the one real watched address.
 * 3. Detection: 5 payments to a fresh invoice address each; the time from `sendtoaddress`'s answer (the
 *    transaction is in the node's mempool) to the PENDING
 *    payment row (mempool), and from `generatetoaddress` to its first confirmation (block).
 * 4. Per size N: the other N - 1 watched addresses are added with one set-based INSERT, then ANALYZE;
 *    `--txs` transactions to addresses that are not ours (one of them also pays the watched address) go
 *    into the mempool, the bench waits until the watcher has read them, then mines them in one block and
 *    waits for the cursor: `chain_scan_seconds` of that scan, the service's CPU over the block, and the rows
 *    of deposit_addresses PostgreSQL read.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HDKey } from '@scure/bip32';
import { Client } from 'pg';
import { freePort, processCpuMs } from './process-tools';
import { BenchChildren, benchDatabase, benchOption as opt, scanMetrics, sleep, startWatcherService, waitFor as waitForAtMost } from './watcher-bench';

const SIZES = opt('sizes', '1,1000,100000').split(',').map(Number);
const TXS = Number(opt('txs', '2000'));
const LITECOIND = process.env.LITECOIND ?? '/usr/lib/litecoin/litecoind';

/** Litecoin Core and the mempool of thousands of transactions take longer than the other families: two minutes by default. */
const waitFor = <T>(what: string, check: () => Promise<T | null>, timeoutMs = 120_000) => waitForAtMost(what, check, timeoutMs);

class Node {
  private id = 0;
  constructor(readonly port: number) {}
  async call<T = any>(method: string, params: unknown[] = []): Promise<T> {
    const [answer] = await this.batch<T>([[method, params]]);
    return answer;
  }
  /** One HTTP request with many calls (Bitcoin Core runs them in order). */
  async batch<T = any>(calls: Array<[string, unknown[]]>): Promise<T[]> {
    const res = await fetch(`http://127.0.0.1:${this.port}/wallet/bench`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('bench:bench').toString('base64')}` },
      body: JSON.stringify(calls.map(([method, params]) => ({ jsonrpc: '1.0', id: ++this.id, method, params }))),
    });
    const body = (await res.json()) as Array<{ result: T; error: { message: string } | null }>;
    const failed = body.find((b) => b.error);
    if (failed) throw new Error(`${calls[0][0]}: ${failed.error!.message}`);
    return body.map((b) => b.result);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function utxoWatcherCost(): Promise<void> {
  const children = new BenchChildren();
  const datadir = mkdtempSync(join(tmpdir(), 'ipa-utxobench-'));
  const database = await benchDatabase('ipa_utxobench');
  try {
    const rpcPort = await freePort();
    const litecoind = spawn(
      LITECOIND,
      [
        '-regtest',
        `-datadir=${datadir}`,
        `-rpcport=${rpcPort}`,
        `-port=${await freePort()}`,
        '-rpcuser=bench',
        '-rpcpassword=bench',
        '-listen=0',
        '-server=1',
        '-txindex=1',
        '-fallbackfee=0.0002',
        '-spendzeroconfchange=0',
        '-maxmempool=2000',
        '-rpcthreads=8',
        '-rpcworkqueue=256',
      ],
      { stdio: 'ignore' },
    );
    children.add(litecoind);
    const node = new Node(rpcPort);
    await waitFor(
      'litecoind',
      async () =>
        (
          await fetch(`http://127.0.0.1:${rpcPort}/`, {
            method: 'POST',
            headers: { authorization: `Basic ${Buffer.from('bench:bench').toString('base64')}` },
            body: '{"method":"getblockcount","params":[]}',
          })
        ).ok || null,
    );
    await fetch(`http://127.0.0.1:${rpcPort}/`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('bench:bench').toString('base64')}` },
      body: JSON.stringify({ method: 'createwallet', params: ['bench'] }),
    });
    const miner = await node.call<string>('getnewaddress');
    // Coinbases of 50 LTC: enough mature ones to split into an output per transaction to come.
    const blocksNeeded = SIZES.length + 1;
    await node.call('generatetoaddress', [100 + blocksNeeded * Math.ceil((TXS * 0.011) / 10) + 20, miner]);
    for (let round = 0; round < blocksNeeded; round++) {
      const own = await node.batch<string>(Array.from({ length: TXS }, () => ['getnewaddress', []]));
      for (let i = 0; i < own.length; i += 1000) {
        await node.call('sendmany', ['', Object.fromEntries(own.slice(i, i + 1000).map((a) => [a, '0.011']))]);
      }
    }
    await node.call('generatetoaddress', [1, miner]);
    const foreign = await node.batch<string>(Array.from({ length: 50 }, () => ['getnewaddress', []]));

    // The service.
    const chainsFile = join(datadir, 'chains.json');
    writeFileSync(
      chainsFile,
      JSON.stringify({ test: { litecoin: { rpc_url: `http://bench:bench@127.0.0.1:${rpcPort}`, chain: 'regtest', poll_interval_ms: 1000 } } }),
    );
    const { baseUrl, pid: servicePid, call } = await startWatcherService(children, database.url, chainsFile, { RATE_SOURCES: 'none' });
    const org = await call('/admin/organizations', { name: 'UTXO watcher bench' });
    const key = org.test_key as string;
    const vpub = HDKey.fromMasterSeed(randomBytes(32), { public: 0x045f1cf6, private: 0x045f18bc }).derive("m/84'/1'/0'").publicExtendedKey;
    const wallet = await call('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: vpub }, key);
    const newAddress = async () => {
      const invoice = await call(
        '/invoices/create',
        { customer_email: 'bench@example.com', items: [{ type: 'PAYMENT_INTENT', currency: 'LITECOIN', price: '0.01' }] },
        key,
      );
      return (await call(`/invoices/${invoice.id as string}/payment_address`, { provider_id: 'prov_litecoin_litecoin' }, key)).address as string;
    };
    const db = new Client({ connectionString: database.url });
    db.on('error', () => undefined); // dropped with its database at the end
    await db.connect();
    const cursor = async () =>
      Number((await db.query(`SELECT block_number FROM chain_cursors WHERE mode = 'test' AND network = 'litecoin'`)).rows[0]?.block_number ?? -1);
    await waitFor('the watcher cursor', async () => ((await cursor()) >= 0 ? true : null));
    const paymentOf = async (txid: string) =>
      (await db.query(`SELECT confirmations FROM payments WHERE idempotency_key LIKE $1`, [`litecoin:${txid}:%`])).rows[0] as
        { confirmations: number } | undefined;

    // Detection time.
    const mempool: number[] = [];
    const block: number[] = [];
    for (let i = 0; i < 5; i++) {
      const address = await newAddress();
      const txid = await node.call<string>('sendtoaddress', [address, '0.01']);
      const sentAt = Date.now(); // in the node's mempool from here
      await waitFor('the mempool payment', async () => ((await paymentOf(txid)) ? true : null));
      mempool.push(Date.now() - sentAt);
      const minedAt = Date.now();
      await node.call('generatetoaddress', [1, miner]);
      await waitFor('the first confirmation', async () => ((await paymentOf(txid))?.confirmations === 1 ? true : null));
      block.push(Date.now() - minedAt);
    }
    process.stderr.write(`detection: mempool ${JSON.stringify(mempool)} ms, block ${JSON.stringify(block)} ms\n`);

    const ours = await newAddress();
    let nextIndex = 1_000_000;
    let watched = 1;
    const results: Array<Record<string, unknown>> = [];
    for (const size of SIZES) {
      if (size > watched) {
        await db.query(
          `INSERT INTO deposit_addresses (wallet_id, derivation_index, organization_id, mode, invoice_id, provider_id, network, address, watch_until, created_at)
           SELECT $1, $2 + g, $3, 'test', 'invoice_bench_' || ($2 + g), 'prov_litecoin_litecoin', 'litecoin',
                  'rltc1q' || substr(translate(md5(random()::text) || md5(random()::text), '1bio', 'qpzr'), 1, 38), now() + interval '1 day', now()
             FROM generate_series(1, $4) AS g`,
          [wallet.id, nextIndex, org.organization_id, size - watched],
        );
        nextIndex += size - watched;
        watched = size;
        await db.query(`ANALYZE deposit_addresses`);
      }
      // A busy mempool: TXS transactions, one of them also paying our address.
      // Each transaction spends one split output of its own (raw transactions: the wallet's coin selection over
      // thousands of outputs would take minutes), pays a foreign address and returns the change.
      const unspent = (await node.call<Array<{ txid: string; vout: number; amount: number; confirmations: number }>>('listunspent', [1]))
        .filter((u) => Math.round(u.amount * 1e8) === 1_100_000)
        .slice(0, TXS);
      if (unspent.length < TXS) throw new Error(`only ${unspent.length} split outputs left`);
      const change = await node.call<string>('getrawchangeaddress');
      const raws = await node.batch<string>(
        unspent.map((u, i) => ['createrawtransaction', [[{ txid: u.txid, vout: u.vout }], { [foreign[i % foreign.length]]: '0.001', [change]: '0.0099' }]]),
      );
      const signed: string[] = [];
      for (let i = 0; i < raws.length; i += 200) {
        signed.push(...(await node.batch<{ hex: string }>(raws.slice(i, i + 200).map((hex) => ['signrawtransactionwithwallet', [hex]]))).map((r) => r.hex));
      }
      const filledAt = Date.now();
      for (let i = 0; i < signed.length; i += 200) await node.batch(signed.slice(i, i + 200).map((hex) => ['sendrawtransaction', [hex]]));
      const paid = await node.call<string>('sendtoaddress', [ours, '0.001']);
      const fillMs = Date.now() - filledAt;
      const c0 = processCpuMs(servicePid);
      await waitFor('the mempool read', async () => ((await paymentOf(paid)) ? true : null), 600_000);
      const mempoolReadMs = Date.now() - filledAt - fillMs;
      const mempoolCpu = processCpuMs(servicePid) - c0;
      await sleep(11_000);
      const rows0 = Number(
        (await db.query(`SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS n FROM pg_stat_user_tables WHERE relname = 'deposit_addresses'`))
          .rows[0].n,
      );
      const [m0, cpu0] = [await scanMetrics(baseUrl, 'litecoin'), processCpuMs(servicePid)];
      const [hash] = await node.call<string[]>('generatetoaddress', [1, miner]);
      const height = await node.call<{ height: number; nTx: number }>('getblock', [hash, 1]);
      await waitFor(`the watcher at block ${height.height}`, async () => ((await cursor()) >= height.height ? true : null), 600_000);
      await waitFor('the confirmation', async () => ((await paymentOf(paid))?.confirmations === 1 ? true : null));
      const [m1, cpu1] = [await scanMetrics(baseUrl, 'litecoin'), processCpuMs(servicePid)];
      await sleep(11_000);
      const rows1 = Number(
        (await db.query(`SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS n FROM pg_stat_user_tables WHERE relname = 'deposit_addresses'`))
          .rows[0].n,
      );
      const result = {
        watched,
        block_transactions: height.nTx,
        scan_ms: Number((((m1.sum - m0.sum) / Math.max(1, m1.count - m0.count)) * 1000).toFixed(1)),
        scans: m1.count - m0.count,
        cpu_ms_block: cpu1 - cpu0,
        deposit_rows_read: rows1 - rows0,
        mempool_read_ms: mempoolReadMs,
        mempool_cpu_ms: mempoolCpu,
      };
      results.push(result);
      process.stderr.write(`${JSON.stringify(result)}\n`);
    }
    await db.end();
    console.log('watched | txs in block | block scan | scans | CPU over the block | deposit rows read | mempool read (2,000 new txs) | its CPU');
    for (const r of results) {
      console.log(
        `${r.watched} | ${r.block_transactions} | ${r.scan_ms} ms | ${r.scans} | ${r.cpu_ms_block} ms | ${r.deposit_rows_read} | ${r.mempool_read_ms} ms | ${r.mempool_cpu_ms} ms`,
      );
    }
    console.log(`detection, median of 5: mempool ${median(mempool)} ms (max ${Math.max(...mempool)}), block ${median(block)} ms (max ${Math.max(...block)})`);
    console.log(JSON.stringify({ family: 'utxo', txs: TXS, detection: { mempool_ms: mempool, block_ms: block }, results }));
  } catch (error) {
    process.stderr.write(`utxo bench failed: ${(error as Error).stack ?? String(error)}\n`);
    throw error;
  } finally {
    await children.stop(15_000, true);
    rmSync(datadir, { recursive: true, force: true });
    await database.drop();
  }
}
