/**
 * The driver the watcher-cost benches share (bench/watcher-cost.ts and its `--family` cases in
 * bench/tron-watcher-cost.ts and bench/utxo-watcher-cost.ts; bench/solana-watcher-cost.ts takes its
 * options and pauses from here): the command-line options, a database of the run's own, the child processes it starts (stopped
 * at the end or on an interrupt), a Hardhat node with the test USDT, the built service on a CHAINS_FILE,
 * waiting for the watcher, and its `chain_scan_seconds` from /metrics.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { Address, createPublicClient, createTestClient, createWalletClient, http, parseAbi, PublicClient, TestClient } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { benchOption, freePort, MAIN, ROOT } from './process-tools';

export { benchOption };

/** A number option (`--blocks 10`), or `fallback` when the command line does not give it. */
export const numberOption = (name: string, fallback: number): number => Number(benchOption(name, String(fallback)));

/** A comma-separated list of numbers (`--sizes 1,100,1000`), or `fallback` when the command line does not give it. */
export const numbersOption = (name: string, fallback: number[]): number[] => benchOption(name, fallback.join(',')).split(',').map(Number);

export const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const MNEMONIC = 'test test test test test test test test test test test junk';
export const ADMIN = 'watcher-bench-admin-token-0123456789';
export const CHAIN = {
  id: 31337,
  name: 'Local',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [] as string[] } },
};
export const ABI = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it gives a value (a throw counts as not yet); fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | null>, timeoutMs = 60_000, pollMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => null);
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(pollMs);
  }
}

/** The service's `chain_scan_seconds` of one network so far (its sum and count, from /metrics). */
export async function scanMetrics(baseUrl: string, network: string): Promise<{ sum: number; count: number }> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const sum = Number(new RegExp(`^chain_scan_seconds_sum\\{[^}]*network="${network}"[^}]*\\} ([\\d.e+-]+)$`, 'm').exec(text)?.[1] ?? 0);
  const count = Number(new RegExp(`^chain_scan_seconds_count\\{[^}]*network="${network}"[^}]*\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { sum, count };
}

/** The processes a run starts: killed when the run is interrupted, stopped in reverse order at its end. */
export class BenchChildren {
  private readonly list: ChildProcess[] = [];

  constructor() {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        for (const child of this.list) if (child.exitCode === null) child.kill('SIGKILL');
        process.exit(130);
      });
    }
  }

  add(child: ChildProcess): ChildProcess {
    this.list.push(child);
    return child;
  }

  /** SIGTERM, then SIGKILL for one still running after `graceMs` (or, with `untilExit`, once it has not exited by then). */
  async stop(graceMs = 500, untilExit = false): Promise<void> {
    for (const child of this.list.reverse()) {
      if (child.exitCode !== null) continue;
      child.kill('SIGTERM');
      await (untilExit ? Promise.race([new Promise((r) => child.once('exit', r)), sleep(graceMs)]) : sleep(graceMs));
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }
}

/** A database of the run's own on SERVER_URL's server (`<prefix>_<time>`), dropped by `drop`. */
export async function benchDatabase(prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new Client({ connectionString: SERVER_URL });
  await admin.connect();
  const name = `${prefix}_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    },
  };
}

export interface HardhatChain {
  rpcUrl: string;
  chain: PublicClient;
  test: TestClient;
  /** The test USDT's contract. */
  usdt: Address;
  sender: ReturnType<typeof mnemonicToAccount>;
  wallet: ReturnType<typeof createWalletClient>;
}

/** A Hardhat node (test/chain/hardhat.config.js) on a free loopback port, with the test USDT deployed (scripts/local-chain.js). */
export async function startHardhat(children: BenchChildren): Promise<HardhatChain> {
  const rpcPort = await freePort();
  const rpcUrl = `http://127.0.0.1:${rpcPort}`;
  children.add(
    spawn(
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
    ),
  );
  const transport = http(rpcUrl, { retryCount: 0 });
  const chain: PublicClient = createPublicClient({ chain: CHAIN, transport });
  const test: TestClient = createTestClient({ chain: CHAIN, mode: 'hardhat', transport });
  await waitFor('the hardhat node', async () => (await chain.getChainId()) || null);
  const usdt = execFileSync(process.execPath, [join(ROOT, 'scripts', 'local-chain.js'), 'deploy', rpcUrl], { encoding: 'utf8' }).trim() as Address;
  const sender = mnemonicToAccount(MNEMONIC, { addressIndex: 0 });
  const wallet = createWalletClient({ chain: CHAIN, account: sender, transport });
  return { rpcUrl, chain, test, usdt, sender, wallet };
}

/** One block holding `transfers` (USDT or the native coin), mined alone; resolves once `cursor` has reached it. */
export async function mineBlock(h: HardhatChain, cursor: () => Promise<number>, transfers: Array<{ to: string; token: boolean }>): Promise<void> {
  await h.test.setAutomine(false);
  for (const t of transfers) {
    if (t.token)
      await h.wallet.writeContract({
        address: h.usdt,
        abi: ABI,
        functionName: 'transfer',
        args: [t.to as Address, 1_000_000n],
        chain: CHAIN,
        account: h.sender,
      });
    else await h.wallet.sendTransaction({ to: t.to as Address, value: 10n ** 15n, chain: CHAIN, account: h.sender });
  }
  await h.test.mine({ blocks: 1 });
  await h.test.setAutomine(true);
  const height = Number(await h.chain.getBlockNumber({ cacheTime: 0 }));
  await waitFor(`the watcher at block ${height}`, async () => ((await cursor()) >= height ? true : null));
}

export interface WatcherService {
  baseUrl: string;
  pid: number;
  /** A POST with the admin token, or with `key`; the envelope's data, or a throw naming the status. */
  call: (path: string, body: unknown, key?: string) => Promise<Record<string, unknown>>;
}

/** The built service on `databaseUrl` with `chainsFile` (test mode, one worker, rate limits out of the way), once ready. */
export async function startWatcherService(
  children: BenchChildren,
  databaseUrl: string,
  chainsFile: string,
  env: Record<string, string> = {},
): Promise<WatcherService> {
  const port = await freePort();
  const service = children.add(
    spawn(process.execPath, [MAIN], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        DATABASE_URL: databaseUrl,
        ADMIN_API_TOKEN: ADMIN,
        DEMO_ORGANIZATION: 'false',
        CHAINS_FILE: chainsFile,
        WEB_CONCURRENCY: '1',
        RATE_LIMIT_TEST: '100000',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
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
  return { baseUrl, pid: service.pid!, call };
}

/** The watcher's cursor for a network in test mode (-1 before its first pass). */
export function watcherCursor(db: Client, network: string): () => Promise<number> {
  return async () =>
    Number((await db.query(`SELECT block_number FROM chain_cursors WHERE mode = 'test' AND network = $1`, [network])).rows[0]?.block_number ?? -1);
}
