import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HDKey } from '@scure/bip32';
import { LitecoinNode } from '../../chain/litecoin-node';
import { LocalChain } from '../../chain/local-chain';
import { NILE_CHAIN_ID, TronRpcProxy } from '../../chain/tron-rpc-proxy';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { freePort, linesWith, runCli } from '../../support/server';
import { eventually } from '../../support/webhook-receiver';
import { createInvoice } from '../payments/payments-helpers';
import { FakeExchange, fakeExchange } from '../rates/rate-source-helpers';
import { paymentAddress } from './chain-helpers';
import { JsonRpcRelay } from './json-rpc-relay';
import { addressAt, freshAccount, writeChainsFile } from './rails-helpers';

/** A fresh testnet account key (m/84'/1'/0') as vpub: P2WPKH addresses, rltc1... on regtest. */
const freshVpub = () => HDKey.fromMasterSeed(randomBytes(32), { public: 0x045f1cf6, private: 0x045f18bc }).derive("m/84'/1'/0'").publicExtendedKey;

interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  [fact: string]: unknown;
}
interface Report {
  ok: boolean;
  checks: Check[];
}

const SECRETS_KEY = randomBytes(32).toString('base64');

/**
 * A JSON-RPC server in Bitcoin Core's documented shapes (`getblockchaininfo`, `getindexinfo`) for a node in
 * its first sync: a real node that far behind takes days to make.
 */
async function syncingBitcoinNode(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const call = JSON.parse(body) as { id: number; method: string };
      const results: Record<string, unknown> = {
        getblockchaininfo: {
          chain: 'main',
          blocks: 120_000,
          headers: 925_000,
          bestblockhash: '00'.repeat(32),
          difficulty: 1,
          time: 1_300_000_000,
          mediantime: 1_300_000_000,
          verificationprogress: 0.0412,
          initialblockdownload: true,
          chainwork: '00',
          size_on_disk: 1,
          pruned: false,
          warnings: '',
        },
        getindexinfo: { txindex: { synced: false, best_block_height: 118_000 } },
      };
      const known = call.method in results;
      res.writeHead(known ? 200 : 404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          known
            ? { result: results[call.method], error: null, id: call.id }
            : { result: null, error: { code: -32601, message: 'Method not found' }, id: call.id },
        ),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://watcher:secret-password@127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const byName = (report: Report) => new Map(report.checks.map((c) => [c.name, c]));

describe('cli doctor: the go-live preflight against real nodes and rate servers', () => {
  let chain: LocalChain;
  let litecoin: LitecoinNode;
  let litecoinWithoutIndex: LitecoinNode;
  let rateA: FakeExchange;
  let rateB: FakeExchange;
  let rateFar: FakeExchange;
  let staleEvm: JsonRpcRelay;
  let syncing: { url: string; server: Server };
  let service: IsolatedService;
  let good: Record<string, string>;

  const rates = (bitcoin: string) => ({ rates: { BITCOIN: bitcoin, ETHEREUM: '3000', LITECOIN: '80', USDT: '1', USDC: '1' } });

  /** The CLI against the service's database with `env` (CHAINS_FILE, RATE_SOURCES, ...) instead of the good settings. */
  const doctor = (env: Record<string, string | undefined>, args = ['--json']) => runCli(['doctor', ...args], { ...service.cliEnv, ...good, ...env });
  const report = async (env: Record<string, string | undefined>) => {
    const run = await doctor(env);
    return { code: run.code, report: JSON.parse(run.stdout) as Report, stderr: run.stderr };
  };

  beforeAll(async () => {
    [chain, litecoin, litecoinWithoutIndex, rateA, rateB, rateFar] = await Promise.all([
      LocalChain.start(),
      LitecoinNode.start(),
      LitecoinNode.start({ txindex: false }),
      fakeExchange(() => rates('90000')),
      fakeExchange(() => rates('90500')),
      fakeExchange(() => rates('120000')),
    ]);
    // A real node whose latest block is two days old, as a node cut off from its peers shows it (more than the
    // day the test asserts: the doctor may read its clock up to a second before the block was made up here).
    staleEvm = new JsonRpcRelay(chain.rpcUrl, {
      answer: (call, answer) => {
        if (call.method !== 'eth_getBlockByNumber' || !answer.result) return answer;
        const block = answer.result as { timestamp: string };
        return { ...answer, result: { ...block, timestamp: `0x${(Math.floor(Date.now() / 1000) - 2 * 86_400).toString(16)}` } };
      },
    });
    await staleEvm.start();
    syncing = await syncingBitcoinNode();
    good = {
      CHAINS_FILE: writeChainsFile({
        live: { ethereum: { rpc_url: chain.rpcUrl, chain_id: 31337, poll_interval_ms: 1000 } },
        test: { litecoin: { rpc_url: litecoin.rpcUrl, chain: 'regtest', poll_interval_ms: 500 } },
      }),
      RATE_SOURCES: `${rateA.url}/rates.json,${rateB.url}/rates.json`,
      PUBLIC_BASE_URL: 'https://pay.example.test',
      SECRETS_KEY,
      FILES_DIR: mkdtempSync(join(tmpdir(), 'ipa-doctor-files-')),
    };
    service = await startIsolatedService(good);
  }, 240_000);

  afterAll(async () => {
    await service?.stop();
    await staleEvm?.stop();
    syncing?.server.closeAllConnections();
    await new Promise((r) => (syncing ? syncing.server.close(r) : r(null)));
    await Promise.all([chain?.stop(), litecoin?.stop(), litecoinWithoutIndex?.stop(), rateA?.close(), rateB?.close(), rateFar?.close()]);
  });

  it("passes a good setup (Hardhat and litecoind with txindex, agreeing rate sources, production settings), and prints each wallet's first receive address as the API hands it out", async () => {
    const org = await service.createOrg();
    const evm = freshAccount();
    const evmWallet = expectSuccess(await org.live.post('/wallets', { chain_family: 'evm', xpub: evm.xpub }), 201);
    const ltcWallet = expectSuccess(await org.test.post('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: freshVpub() }), 201);
    const issued = await paymentAddress(org.test, await createInvoice(org.test, '10'), 'prov_litecoin_litecoin');
    // The latest block is recent.
    await chain.mine(1);

    const { code, report: result } = await report({});
    expect(result.checks.filter((c) => c.status !== 'ok')).toEqual([]);
    expect(code).toBe(0);
    expect(result.ok).toBe(true);
    const checks = byName(result);
    for (const name of [
      'settings.public_base_url',
      'settings.secrets_key',
      'settings.files_storage',
      `rates.source.${rateA.url}/rates.json`,
      `rates.source.${rateB.url}/rates.json`,
      'rates.agreement',
      'chains.live',
      'chain.live.ethereum.node',
      'chain.live.ethereum.chain',
      'chain.live.ethereum.sync',
      'chain.live.ethereum.confirmations',
      'chain.test.litecoin.node',
      'chain.test.litecoin.chain',
      'chain.test.litecoin.sync',
      'chain.test.litecoin.txindex',
      'chain.test.litecoin.blocks',
      'chain.test.litecoin.confirmations',
    ]) {
      expect(checks.get(name)).toMatchObject({ status: 'ok' });
    }
    expect(checks.get('chain.test.litecoin.sync')).toMatchObject({ blocks: 101, headers: 101 });
    expect(checks.get('chain.live.ethereum.confirmations')).toMatchObject({ finality_depth: 64, required_confirmations: 12 });

    // Each active wallet's first receive address: the one the API answered at registration, the one the
    // mnemonic's wallet shows first, and (for a fresh key) the first one handed out for an invoice.
    const evmCheck = checks.get(`wallet.${org.id}.live.evm`);
    expect(evmCheck).toMatchObject({ status: 'ok', wallet_id: evmWallet.id, first_address: addressAt(evm.account, 0) });
    expect(evmCheck?.first_address).toBe(evmWallet.first_address);
    const ltcCheck = checks.get(`wallet.${org.id}.test.litecoin`);
    expect(ltcCheck).toMatchObject({ status: 'ok', wallet_id: ltcWallet.id, first_address: ltcWallet.first_address });
    expect(ltcCheck?.first_address).toBe(issued.address);
    expect(ltcCheck?.detail).toContain(issued.address);

    // The lines people read: one per check (status, name, detail), then the summary; exit code 0.
    const text = await doctor({}, []);
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines).toContain(`ok    chain.test.litecoin.txindex  ${checks.get('chain.test.litecoin.txindex')!.detail}`);
    expect(lines.find((l) => l.includes(`wallet.${org.id}.live.evm`))).toContain(addressAt(evm.account, 0));
    expect(lines[lines.length - 1]).toBe(`${result.checks.length} checks: ${result.checks.length} ok, 0 warn, 0 fail; every check passed`);
  });

  it('fails a node on another chain than CHAINS_FILE names, naming the chain and the field', async () => {
    const wrong = writeChainsFile({ live: { ethereum: { rpc_url: chain.rpcUrl, chain_id: 1 } } });
    const { code, report: result } = await report({ CHAINS_FILE: wrong });
    expect(code).toBe(1);
    expect(result.ok).toBe(false);
    const check = byName(result).get('chain.live.ethereum.chain');
    expect(check).toMatchObject({ status: 'fail', chain: '31337', expected_chain: '1' });
    expect(check?.detail).toContain('chain 31337');
    expect(check?.detail).toContain('live.ethereum.chain_id');
    expect(result.checks.filter((c) => c.status === 'fail').map((c) => c.name)).toEqual(['chain.live.ethereum.chain']);
    // The test-mode Litecoin wallet of the first case has no network in this file: said, not failed.
    const orphan = result.checks.find((c) => c.name.endsWith('.test.litecoin'));
    expect(orphan).toMatchObject({ status: 'warn' });
    expect(orphan?.detail).toContain('names no network');
  });

  it("checks a Tron node through the Tron adapter's own calls: chain, sync, the solidified block and the HTTP API", async () => {
    const proxy = await TronRpcProxy.start(chain.rpcUrl);
    try {
      const tron = (extra: Record<string, unknown>) =>
        writeChainsFile({
          live: { ethereum: { rpc_url: chain.rpcUrl, chain_id: 31337 } },
          test: { tron: { rpc_url: proxy.url, chain_id: NILE_CHAIN_ID, ...extra } },
        });
      const { code, report: good } = await report({ CHAINS_FILE: tron({ http_api_url: proxy.httpUrl }) });
      const checks = byName(good);
      expect(checks.get('chain.test.tron.chain')).toMatchObject({ status: 'ok' });
      expect(checks.get('chain.test.tron.sync')).toMatchObject({ status: 'ok' });
      expect(checks.get('chain.test.tron.finalized')?.status).toBe('ok');
      expect(checks.get('chain.test.tron.http_api')?.status).toBe('ok');
      expect(good.checks.filter((c) => c.name.startsWith('chain.test.tron') && c.status !== 'ok')).toEqual([]);
      expect(code).toBe(good.ok ? 0 : 1);
      // Without the HTTP API, TRX is not taken: a warning that says so.
      const { report: noApi } = await report({ CHAINS_FILE: tron({}) });
      expect(byName(noApi).get('chain.test.tron.http_api')).toMatchObject({ status: 'warn' });
      expect(byName(noApi).get('chain.test.tron.http_api')?.detail).toContain('TRX is not taken');
      // A node of another Tron chain fails, naming the field.
      const { code: wrongCode, report: wrong } = await report({ CHAINS_FILE: tron({ chain_id: 728126428, http_api_url: proxy.httpUrl }) });
      expect(wrongCode).toBe(1);
      expect(byName(wrong).get('chain.test.tron.chain')).toMatchObject({ status: 'fail' });
      expect(byName(wrong).get('chain.test.tron.chain')?.detail).toContain('test.tron.chain_id');
    } finally {
      await proxy.stop();
    }
  });

  it('fails a litecoind started without txindex, naming txindex', async () => {
    const file = writeChainsFile({ test: { litecoin: { rpc_url: litecoinWithoutIndex.rpcUrl, chain: 'regtest' } } });
    const { code, report: result } = await report({ CHAINS_FILE: file });
    expect(code).toBe(1);
    const check = byName(result).get('chain.test.litecoin.txindex');
    expect(check).toMatchObject({ status: 'fail', txindex: false });
    expect(check?.detail).toContain('txindex=1');
    // The rest of that node is fine.
    for (const what of ['node', 'chain', 'sync']) expect(byName(result).get(`chain.test.litecoin.${what}`)).toMatchObject({ status: 'ok' });
  });

  it("fails a UTXO node whose getblock does not take verbosity 2 (as Dogecoin Core 1.14's), naming the call", async () => {
    // The real litecoind behind a relay that answers a numeric verbosity as such a node does.
    const older = new JsonRpcRelay(litecoin.rpcUrl, {
      answer: (call, answer) =>
        call.method === 'getblock' && typeof call.params?.[1] === 'number'
          ? { jsonrpc: '2.0', id: call.id, error: { code: -1, message: 'JSON value is not a boolean as expected' } }
          : answer,
    });
    await older.start();
    try {
      const file = writeChainsFile({ test: { litecoin: { rpc_url: older.url, chain: 'regtest' } } });
      const { code, report: result } = await report({ CHAINS_FILE: file });
      expect(code).toBe(1);
      const check = byName(result).get('chain.test.litecoin.blocks');
      expect(check).toMatchObject({ status: 'fail' });
      expect(check?.detail).toContain('getblock <hash> 2');
      expect(check?.detail).toContain('not a boolean');
      for (const what of ['node', 'chain', 'sync', 'txindex']) expect(byName(result).get(`chain.test.litecoin.${what}`)).toMatchObject({ status: 'ok' });
    } finally {
      await older.stop();
    }
  });

  it('fails nodes that are not synced: a Bitcoin node in its first sync, and an EVM node whose latest block is a day old', async () => {
    const file = writeChainsFile({
      live: { bitcoin: { rpc_url: syncing.url, chain: 'main' }, ethereum: { rpc_url: staleEvm.url, chain_id: 31337 } },
    });
    const run = await doctor({ CHAINS_FILE: file });
    expect(run.code).toBe(1);
    const checks = byName(JSON.parse(run.stdout) as Report);
    expect(checks.get('chain.live.bitcoin.chain')).toMatchObject({ status: 'ok' });
    const bitcoin = checks.get('chain.live.bitcoin.sync');
    expect(bitcoin).toMatchObject({ status: 'fail', blocks: 120_000, headers: 925_000, initialblockdownload: true });
    expect(bitcoin?.detail).toContain('initial block download');
    expect(checks.get('chain.live.bitcoin.txindex')).toMatchObject({ status: 'fail', txindex_synced: false });
    const ethereum = checks.get('chain.live.ethereum.sync');
    expect(ethereum).toMatchObject({ status: 'fail' });
    expect(ethereum?.latest_block_age_seconds).toBeGreaterThanOrEqual(86_400);
    // The node's credentials never show.
    expect(run.stdout).not.toContain('secret-password');
  });

  it('fails when no rate source answers, and warns when sources disagree beyond RATES_MAX_SPREAD or one of several is down', async () => {
    const closed = `http://127.0.0.1:${await freePort()}/rates.json`;
    const alone = await report({ RATE_SOURCES: closed });
    expect(alone.code).toBe(1);
    const down = byName(alone.report).get(`rates.source.${closed}`);
    expect(down).toMatchObject({ status: 'fail' });
    expect(down?.detail).toContain('did not answer');

    const far = `${rateFar.url}/rates.json`;
    const apart = await report({ RATE_SOURCES: `${rateA.url}/rates.json,${far},${closed}` });
    const checks = byName(apart.report);
    expect(checks.get(`rates.source.${closed}`)).toMatchObject({ status: 'warn' });
    expect(checks.get(`rates.source.${far}`)).toMatchObject({ status: 'ok' });
    const bitcoin = checks.get('rates.agreement.BITCOIN');
    expect(bitcoin).toMatchObject({ status: 'warn', low: { source: `${rateA.url}/rates.json`, rate: '90000' }, high: { source: far, rate: '120000' } });
    expect(bitcoin?.detail).toContain('RATES_MAX_SPREAD');
    // Within the spread elsewhere: only Bitcoin is named.
    expect(apart.report.checks.filter((c) => c.name.startsWith('rates.agreement')).map((c) => c.name)).toEqual(['rates.agreement.BITCOIN']);
    expect(apart.code).toBe(0);
  });

  it('counts only rates taken within RATES_MAX_AGE_SECONDS: a feed answering two-hour-old prices fails alone and warns beside a fresh one', async () => {
    // A feed whose upstream stopped: it still answers, with the prices of two hours ago (`taken_at`).
    const frozen = await fakeExchange(() => ({ ...rates('90000'), taken_at: Math.floor(Date.now() / 1000) - 7_200 }));
    try {
      const feed = `${frozen.url}/rates.json`;
      const alone = await report({ RATE_SOURCES: feed });
      expect(alone.code).toBe(1);
      const only = byName(alone.report).get(`rates.source.${feed}`);
      expect(only).toMatchObject({ status: 'fail', rates: 0 });
      expect(only?.detail).toContain('older than RATES_MAX_AGE_SECONDS');
      expect((only as unknown as { stale: Record<string, number> }).stale.BITCOIN).toBeGreaterThanOrEqual(7_200);

      const beside = await report({ RATE_SOURCES: `${rateA.url}/rates.json,${feed}` });
      const checks = byName(beside.report);
      expect(checks.get(`rates.source.${feed}`)).toMatchObject({ status: 'warn', rates: 0 });
      expect(checks.get(`rates.source.${rateA.url}/rates.json`)).toMatchObject({ status: 'ok', rates: 5 });
      // Old prices are not compared with fresh ones: one fresh source, no agreement to check.
      expect(beside.report.checks.filter((c) => c.name.startsWith('rates.agreement'))).toEqual([]);
      expect(checks.get('rates.fresh')).toBeUndefined(); // every currency has a fresh rate from the other source
      expect(beside.code).toBe(0);

      // A fresh source without Bitcoin beside the frozen one: Bitcoin's rate would only age.
      const noBitcoin = await fakeExchange(() => ({ rates: { ETHEREUM: '3000', LITECOIN: '80', USDT: '1', USDC: '1' } }));
      try {
        const partial = await report({ RATE_SOURCES: `${noBitcoin.url}/rates.json,${feed}` });
        expect(byName(partial.report).get('rates.fresh')).toMatchObject({ status: 'warn', currencies: ['BITCOIN'] });
      } finally {
        await noBitcoin.close();
      }
    } finally {
      await frozen.close();
    }
  });

  it('fails production settings in production and warns about them elsewhere', async () => {
    const dev = await report({ PUBLIC_BASE_URL: 'http://127.0.0.1:3000' });
    expect(byName(dev.report).get('settings.public_base_url')).toMatchObject({ status: 'warn' });
    // A regular file where the folder should be: nothing can be written under it (even as root).
    const notAFolder = join(mkdtempSync(join(tmpdir(), 'ipa-doctor-')), 'a-file');
    writeFileSync(notAFolder, 'not a folder');
    const production = await report({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'http://pay.example.test', FILES_DIR: notAFolder });
    expect(production.code).toBe(1);
    const checks = byName(production.report);
    expect(checks.get('settings.public_base_url')).toMatchObject({ status: 'fail' });
    expect(checks.get('settings.public_base_url')?.detail).toContain('https');
    expect(checks.get('settings.files_storage')).toMatchObject({ status: 'fail' });
    const redis = await report({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    expect(byName(redis.report).get('settings.redis')).toMatchObject({ status: 'warn' });
  });

  it('runs once after the service listens: a line per check that did not pass, a summary line and the preflight_checks gauge; health answers stay bare', async () => {
    const file = writeChainsFile({
      live: { ethereum: { rpc_url: chain.rpcUrl, chain_id: 31337 } },
      test: { litecoin: { rpc_url: litecoinWithoutIndex.rpcUrl, chain: 'regtest' } },
    });
    await chain.mine(1);
    const other = await startIsolatedService({ ...good, CHAINS_FILE: file });
    try {
      const summary = await eventually(async () => {
        const lines = linesWith(other.server, '"event":"preflight"');
        expect(lines).toHaveLength(1);
        return JSON.parse(lines[0]);
      });
      expect(summary).toMatchObject({ level: 40, fail: 1, warn: 0 });
      expect(summary.ok).toBeGreaterThan(5);
      expect(summary.msg).toContain('node dist/src/cli/main.js doctor');
      const failed = linesWith(other.server, '"event":"preflight_check"').map((l) => JSON.parse(l));
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ level: 40, check: 'chain.test.litecoin.txindex', status: 'fail' });
      expect(failed[0].msg).toContain('txindex=1');
      const metrics = await (await fetch(`${other.server.baseUrl}/metrics`)).text();
      expect(metrics).toMatch(/^preflight_checks\{status="fail"\} 1$/m);
      expect(metrics).toMatch(/^preflight_checks\{status="warn"\} 0$/m);
      expect(metrics).toMatch(new RegExp(`^preflight_checks\\{status="ok"\\} ${summary.ok}$`, 'm'));
      for (const path of ['/health', '/health/ready']) {
        const body = await (await fetch(`${other.server.baseUrl}${path}`)).text();
        expect(body).not.toMatch(/preflight|txindex|checks/);
      }
    } finally {
      await other.stop();
    }
  }, 120_000);
});
