/**
 * The Tron case of the watcher bench (`node dist/bench/watcher-cost.js --family tron [--sizes 1,100,1000] [--blocks 10]`):
 * what the Tron watcher costs per block (JSON-RPC and HTTP API calls, scan time, the service's CPU)
 * as the number of open invoices with a Tron deposit address grows.
 *
 * 1. Starts a Hardhat node (test/chain/hardhat.config.js) with the test USDT (scripts/local-chain.js),
 *    and in front of it the java-tron stand-in the e2e tests use (test/chain/tron-rpc-proxy.ts: java-tron's
 *    eth_* subset, no eth_getBlockReceipts, `/wallet/gettransactionbyid`), which counts every call by method.
 * 2. Creates a database of its own and starts the built service on it with a CHAINS_FILE whose test `tron`
 *    section names the proxy (poll 100 ms); one organization with a Tron wallet, one USDT invoice and one
 *    TRX invoice, whose deposit addresses are the real watched ones.
 * 3. Per size N (open invoices): the other N - 2 watched deposit addresses are added with one set-based
 *    INSERT (random addresses, watched for a day), then ANALYZE. Then `--blocks` blocks, each holding a
 *    USDT transfer and a TRX transfer to addresses that are not ours (one block also a USDT transfer and
 *    a TRX transfer to ours), then as many empty blocks. Each block is mined alone and the bench waits
 *    until the watcher's cursor reaches it, so one scan is one block.
 * 4. Reports per scan, for both kinds of block: the calls the proxy answered (by method, and in all),
 *    `chain_scan_seconds` (mean, from /metrics, network tron) and the service's CPU (/proc/<pid>/stat).
 *    The calls do not depend on the machine's load; the times do. Prints a table and one JSON line,
 *    and writes it to bench/results/watcher-cost-tron.json.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mnemonicToSeedSync } from '@scure/bip39';
import { Client } from 'pg';
import type { Address } from 'viem';
import { HDKey } from 'viem/accounts';
import { hexToTron, tronToHex } from '../src/modules/rails/tron/tron-address';
import { NILE_CHAIN_ID, TronRpcProxy } from '../test/chain/tron-rpc-proxy';
import { processCpuMs, ROOT } from './process-tools';
import {
  BenchChildren,
  benchDatabase,
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

const RESULTS = join(ROOT, 'bench', 'results');

const randomHex = (): Address => `0x${randomBytes(20).toString('hex')}`;

interface TronPhase {
  scans: number;
  scan_ms: number;
  cpu_ms_per_scan: number;
  calls_per_scan: number;
  /** Calls per scan by method (JSON-RPC methods, and `gettransactionbyid` of the HTTP API). */
  by_method: Record<string, number>;
}

export async function tronWatcherCost(): Promise<void> {
  const sizes = numbersOption('sizes', [1, 100, 1000]);
  const blocks = numberOption('blocks', 10);
  const children = new BenchChildren();
  const database = await benchDatabase('ipa_tronbench');
  let proxy: TronRpcProxy | null = null;
  try {
    // The chain, its token, and the java-tron stand-in in front of it.
    const hardhat = await startHardhat(children);
    const { rpcUrl, usdt } = hardhat;
    proxy = await TronRpcProxy.start(rpcUrl);

    // The service.
    const chainsFile = join(mkdtempSync(join(tmpdir(), 'ipa-tronbench-')), 'chains.json');
    writeFileSync(
      chainsFile,
      JSON.stringify({
        test: {
          tron: {
            rpc_url: proxy.url,
            http_api_url: proxy.httpUrl,
            chain_id: NILE_CHAIN_ID,
            tokens: { usdt: hexToTron(usdt) },
            poll_interval_ms: 100,
            confirmations: 30,
          },
        },
      }),
    );
    const { baseUrl, pid: servicePid, call } = await startWatcherService(children, database.url, chainsFile);
    const org = await call('/admin/organizations', { name: 'Tron watcher bench' });
    const key = org.test_key as string;
    const xpub = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC)).derive(`m/44'/195'/7'`).publicExtendedKey;
    const walletRow = await call('/wallets', { chain_family: 'tron', xpub }, key);
    const invoiceFor = async (currency: string, providerId: string) => {
      const invoice = await call('/invoices/create', { customer_email: 'bench@example.com', items: [{ type: 'PAYMENT_INTENT', currency, price: '10' }] }, key);
      const pay = await call(`/invoices/${invoice.id as string}/payment_address`, { provider_id: providerId }, key);
      return tronToHex(pay.address as string) as Address;
    };
    const oursUsdt = await invoiceFor('USDT', 'prov_tron_usdt');
    const oursTrx = await invoiceFor('TRX', 'prov_tron_tron');

    const db = new Client({ connectionString: database.url });
    await db.connect();
    const cursor = watcherCursor(db, 'tron');
    await waitFor('the watcher cursor', async () => ((await cursor()) >= 0 ? true : null));
    const mineOne = (transfers: Array<{ to: Address; token: boolean }>) => mineBlock(hardhat, cursor, transfers);

    const snapshotCalls = () => new Map(proxy!.calls);
    const measure = async (phase: Array<Array<{ to: Address; token: boolean }>>): Promise<TronPhase> => {
      await sleep(300);
      const [m0, c0, k0] = [await scanMetrics(baseUrl, 'tron'), processCpuMs(servicePid), snapshotCalls()];
      for (const transfers of phase) await mineOne(transfers);
      await sleep(300);
      const [m1, c1, k1] = [await scanMetrics(baseUrl, 'tron'), processCpuMs(servicePid), snapshotCalls()];
      const scans = m1.count - m0.count;
      const byMethod: Record<string, number> = {};
      let total = 0;
      for (const [method, n] of k1) {
        const delta = n - (k0.get(method) ?? 0);
        if (delta <= 0) continue;
        byMethod[method] = Number((delta / scans).toFixed(2));
        total += delta;
      }
      return {
        scans,
        scan_ms: Number((((m1.sum - m0.sum) / scans) * 1000).toFixed(1)),
        cpu_ms_per_scan: Number(((c1 - c0) / scans).toFixed(1)),
        calls_per_scan: Number((total / scans).toFixed(2)),
        by_method: byMethod,
      };
    };

    const results: Array<{ open_invoices: number; with_transfers: TronPhase; empty: TronPhase }> = [];
    let open = 2;
    let nextIndex = 1_000_000;
    for (const size of sizes) {
      if (size > open) {
        const add = size - open;
        const addresses = Array.from({ length: add }, () => hexToTron(randomHex()));
        await db.query(
          `INSERT INTO deposit_addresses (wallet_id, derivation_index, organization_id, mode, invoice_id, provider_id, network, address, watch_until, created_at)
           SELECT $1, $2 + g, $3, 'test', 'invoice_bench_' || ($2 + g), 'prov_tron_usdt', 'tron', ($5::text[])[g], now() + interval '1 day', now()
             FROM generate_series(1, $4) AS g`,
          [walletRow.id, nextIndex, org.organization_id, add, addresses],
        );
        nextIndex += add;
        open = size;
        await db.query(`ANALYZE deposit_addresses`);
      }
      const busy = Array.from({ length: blocks }, (_, i) =>
        i === Math.floor(blocks / 2)
          ? [
              { to: oursUsdt, token: true },
              { to: oursTrx, token: false },
              { to: randomHex(), token: true },
              { to: randomHex(), token: false },
            ]
          : [
              { to: randomHex(), token: true },
              { to: randomHex(), token: false },
            ],
      );
      const withTransfers = await measure(busy);
      const empty = await measure(Array.from({ length: blocks }, () => []));
      results.push({ open_invoices: open, with_transfers: withTransfers, empty });
      process.stderr.write(`${JSON.stringify(results[results.length - 1])}\n`);
    }
    const payments = (await db.query(`SELECT count(*)::int AS n FROM payments`)).rows[0] as { n: number };
    await db.end();

    console.log('open invoices | block with transfers: calls, scan, CPU | empty block: calls, scan, CPU');
    for (const r of results) {
      const w = r.with_transfers;
      const e = r.empty;
      console.log(
        `${r.open_invoices} | ${w.calls_per_scan} calls, ${w.scan_ms} ms, ${w.cpu_ms_per_scan} ms CPU | ${e.calls_per_scan} calls, ${e.scan_ms} ms, ${e.cpu_ms_per_scan} ms CPU`,
      );
      console.log(`    with transfers: ${JSON.stringify(w.by_method)}; empty: ${JSON.stringify(e.by_method)}`);
    }
    const line = JSON.stringify({ family: 'tron', blocks_per_phase: blocks, payments_recorded: payments.n, results });
    console.log(line);
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'watcher-cost-tron.json'), `${line}\n`);
  } finally {
    await proxy?.stop();
    await children.stop();
    await sleep(500);
    await database.drop();
  }
}
