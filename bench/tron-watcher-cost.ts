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
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mnemonicToSeedSync } from '@scure/bip39';
import { Client } from 'pg';
import { Address, createPublicClient, createTestClient, createWalletClient, http, parseAbi } from 'viem';
import { HDKey, mnemonicToAccount } from 'viem/accounts';
import { hexToTron, tronToHex } from '../src/modules/rails/tron/tron-address';
import { NILE_CHAIN_ID, TronRpcProxy } from '../test/chain/tron-rpc-proxy';
import { freePort, processCpuMs } from './process-tools';

const argv = process.argv.slice(2);
const opt = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};
const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'src', 'main.js');
const RESULTS = join(ROOT, 'bench', 'results');
const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MNEMONIC = 'test test test test test test test test test test test junk';
const ADMIN = 'watcher-bench-admin-token-0123456789';
const CHAIN = { id: 31337, name: 'Local', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [] as string[] } } };
const ABI = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, check: () => Promise<T | null>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => null);
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const randomHex = (): Address => `0x${randomBytes(20).toString('hex')}`;

async function scanMetrics(baseUrl: string): Promise<{ sum: number; count: number }> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const sum = Number(/^chain_scan_seconds_sum\{[^}]*network="tron"[^}]*\} ([\d.e+-]+)$/m.exec(text)?.[1] ?? 0);
  const count = Number(/^chain_scan_seconds_count\{[^}]*network="tron"[^}]*\} (\d+)$/m.exec(text)?.[1] ?? 0);
  return { sum, count };
}

interface TronPhase {
  scans: number;
  scan_ms: number;
  cpu_ms_per_scan: number;
  calls_per_scan: number;
  /** Calls per scan by method (JSON-RPC methods, and `gettransactionbyid` of the HTTP API). */
  by_method: Record<string, number>;
}

export async function tronWatcherCost(): Promise<void> {
  const sizes = opt('sizes', '1,100,1000').split(',').map(Number);
  const blocks = Number(opt('blocks', '10'));
  const children: ChildProcess[] = [];
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      process.exit(130);
    });
  }
  const admin = new Client({ connectionString: SERVER_URL });
  await admin.connect();
  const dbName = `ipa_tronbench_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(SERVER_URL);
  dbUrl.pathname = `/${dbName}`;
  let proxy: TronRpcProxy | null = null;
  try {
    // The chain, its token, and the java-tron stand-in in front of it.
    const rpcPort = await freePort();
    const rpcUrl = `http://127.0.0.1:${rpcPort}`;
    const node = spawn(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'hardhat', 'internal', 'cli', 'cli.js'),
        'node',
        '--config',
        join(ROOT, 'test', 'chain', 'hardhat.config.js'),
        '--hostname',
        '127.0.0.1',
        '--port',
        String(rpcPort),
      ],
      { cwd: ROOT, env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' }, stdio: 'ignore' },
    );
    children.push(node);
    const transport = http(rpcUrl, { retryCount: 0 });
    const chain = createPublicClient({ chain: CHAIN, transport });
    const test = createTestClient({ chain: CHAIN, mode: 'hardhat', transport });
    await waitFor('the hardhat node', async () => (await chain.getChainId()) || null);
    const usdt = execFileSync(process.execPath, [join(ROOT, 'scripts', 'local-chain.js'), 'deploy', rpcUrl], { encoding: 'utf8' }).trim() as Address;
    const sender = mnemonicToAccount(MNEMONIC, { addressIndex: 0 });
    const wallet = createWalletClient({ chain: CHAIN, account: sender, transport });
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
    const port = await freePort();
    const service = spawn(process.execPath, [MAIN], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        DATABASE_URL: dbUrl.toString(),
        ADMIN_API_TOKEN: ADMIN,
        DEMO_ORGANIZATION: 'false',
        CHAINS_FILE: chainsFile,
        WEB_CONCURRENCY: '1',
        RATE_LIMIT_TEST: '100000',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(service);
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitFor('the service', async () => ((await fetch(`${baseUrl}/health/ready`)).status === 200 ? true : null));
    const call = async (path: string, body: unknown, key?: string) => {
      const res = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: key } : { 'x-admin-token': ADMIN }) },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data: Record<string, unknown> };
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
      return json.data;
    };
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

    const db = new Client({ connectionString: dbUrl.toString() });
    await db.connect();
    const cursor = async () =>
      Number((await db.query(`SELECT block_number FROM chain_cursors WHERE mode = 'test' AND network = 'tron'`)).rows[0]?.block_number ?? -1);
    await waitFor('the watcher cursor', async () => ((await cursor()) >= 0 ? true : null));
    const servicePid = service.pid!;

    const mineOne = async (transfers: Array<{ to: Address; token: boolean }>): Promise<void> => {
      await test.setAutomine(false);
      for (const t of transfers) {
        if (t.token) await wallet.writeContract({ address: usdt, abi: ABI, functionName: 'transfer', args: [t.to, 1_000_000n], chain: CHAIN, account: sender });
        else await wallet.sendTransaction({ to: t.to, value: 10n ** 15n, chain: CHAIN, account: sender });
      }
      await test.mine({ blocks: 1 });
      await test.setAutomine(true);
      const height = Number(await chain.getBlockNumber({ cacheTime: 0 }));
      await waitFor(`the watcher at block ${height}`, async () => ((await cursor()) >= height ? true : null));
    };

    const snapshotCalls = () => new Map(proxy!.calls);
    const measure = async (phase: Array<Array<{ to: Address; token: boolean }>>): Promise<TronPhase> => {
      await sleep(300);
      const [m0, c0, k0] = [await scanMetrics(baseUrl), processCpuMs(servicePid), snapshotCalls()];
      for (const transfers of phase) await mineOne(transfers);
      await sleep(300);
      const [m1, c1, k1] = [await scanMetrics(baseUrl), processCpuMs(servicePid), snapshotCalls()];
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
    for (const child of children.reverse()) {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await sleep(500);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    }
    await sleep(500);
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}
