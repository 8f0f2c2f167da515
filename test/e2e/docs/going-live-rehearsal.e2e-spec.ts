import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HDKey } from '@scure/bip32';
import * as btc from '@scure/btc-signer';
import { Webhook } from 'standardwebhooks';
import { LitecoinNode } from '../../chain/litecoin-node';
import { LocalChain } from '../../chain/local-chain';
import { createDatabase, dropDatabase } from '../../support/pg';
import { freePort, ROOT, runCli, RunningServer, startServer } from '../../support/server';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { Compose, environmentOf, interpolate, isApp, loadCompose, OPERATOR_ENV } from '../../tooling/compose-file';
import { addressAt, accountKey } from '../rails/rails-helpers';
import { fakeExchange, FakeExchange } from '../rates/rate-source-helpers';

/** The shell blocks of docs/going-live.md marked for the rehearsal, in order, as written. */
function rehearsalBlocks(guide: string): string[] {
  return [...guide.matchAll(/<!-- going-live-rehearsal -->\n```bash\n([\s\S]*?)\n```/g)].map((m) => m[1]);
}

/**
 * What a block shows its commands print: the comment lines right after a command line, up to the next
 * command or blank line (a comment after a comment or a blank line explains, it shows no output).
 */
function shownOutputs(block: string): string[] {
  const shown: string[] = [];
  let afterCommand = false;
  for (const line of block.split('\n')) {
    if (line.startsWith('# ')) {
      if (afterCommand) shown.push(line.slice(2));
    } else afterCommand = line.trim() !== '';
  }
  return shown;
}

/** A shown output as a pattern: `...` stands for any text (ids, addresses, amounts). */
function asPattern(shown: string): RegExp {
  const parts = shown.split('...').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`);
}

/** docker compose's merge of an override file: each service's environment map merged over the base one's. */
function withOverride(base: Compose, override: Compose | null): Compose {
  if (!override) return base;
  const merged: Compose = { ...base, services: { ...base.services } };
  for (const [name, service] of Object.entries(override.services ?? {})) {
    const current = merged.services[name] ?? {};
    merged.services[name] = { ...current, ...service, environment: { ...environmentOf(current), ...environmentOf(service) } };
  }
  return merged;
}

/** Litecoin's regtest parameters (its public testnet's addresses start tltc1, regtest's rltc1). */
const LTC_REGTEST = { bech32: 'rltc', pubKeyHash: 0x6f, scriptHash: 0x3a, wif: 0xef };
/** A Litecoin testnet account key m/84'/1'/0' as a wallet exports it (vpub: native segwit). */
const LTC_ACCOUNT = HDKey.fromMasterSeed(randomBytes(32), { public: 0x045f1cf6, private: 0x045f18bc }).derive("m/84'/1'/0'");
const LTC_FIRST_ADDRESS = btc.p2wpkh(LTC_ACCOUNT.deriveChild(0).deriveChild(0).publicKey!, LTC_REGTEST).address;
/** The test and live EVM wallets: two accounts of the test mnemonic (kept apart, as the guide advises). */
const EVM_TEST_ACCOUNT = 1;
const EVM_LIVE_ACCOUNT = 2;
/** Prices (USD) the local rate source answers for the live invoice's methods and the rest. */
const RATES = { ETHEREUM: '2000', USDT: '1', USDC: '1', LITECOIN: '80', BITCOIN: '60000' };

// Three nodes, a service started twice and a script that waits for confirmations.
jest.setTimeout(600_000);

/**
 * docs/going-live.md, section 6, run as written: the marked blocks in one shell, in a copy of the
 * deployment's files (docker-compose.yml, deploy/). Local stand-ins, nothing else changed:
 * - Sepolia is a Hardhat node answering chain id 11155111, Ethereum mainnet another answering 1, and
 *   Litecoin's testnet a Litecoin Core node in regtest: the chains file's `"chain": "test"` is read as
 *   `"regtest"` (the one change made to it). A block is mined on each every second, as the networks do.
 * - `docker compose up -d` is a shell function handing over to this test, which starts the first replica
 *   of docker-compose.yml with the environment compose would give it: the shipped file merged with the
 *   override the blocks write, interpolated from the shell's environment, CHAINS_FILE read from the
 *   folder's deploy/chains.json. Only the database, the listening address, Redis (none) and the webhook
 *   guard (the endpoint is a local receiver) differ from a container's, and TRUST_PROXY names loopback.
 * - The service is in production mode behind the HTTPS rule; curl sends `X-Forwarded-Proto: https` from
 *   loopback (its ~/.curlrc), as Caddy does. The payer's wallet pays each `Pay <uri>` line as it is printed.
 */
describe('docs/going-live.md: the rehearsal in test mode, then live, run as written', () => {
  const guide = readFileSync(join(ROOT, 'docs', 'going-live.md'), 'utf8');
  const blocks = rehearsalBlocks(guide);

  it('has its blocks marked and names the test that runs them', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const script = blocks.join('\n');
    for (const text of [
      'cat > deploy/chains.json',
      'docker-compose.override.yml',
      'ALLOW_NO_LIVE_RAILS=true docker compose up -d',
      '$API/wallets',
      '$LIVE_KEY',
    ])
      expect(script).toContain(text);
    // Credentials never in the chains file: every rpc_url is a ${NAME} reference.
    for (const [, url] of script.matchAll(/"rpc_url": "([^"]*)"/g)) expect(url).toMatch(/^\$\{[A-Z_]+\}$/);
    expect(guide).toContain('test/e2e/docs/going-live-rehearsal.e2e-spec.ts');
    expect(blocks.flatMap(shownOutputs).length).toBeGreaterThanOrEqual(10);
  });

  describe('on local nodes', () => {
    const pgServer = process.env.TEST_PG_SERVER_URL;
    let databaseUrl: string | undefined;
    const dataDir = mkdtempSync(join(tmpdir(), 'ipa-rehearsal-data-'));
    let sepolia: LocalChain;
    let mainnet: LocalChain;
    let litecoin: LitecoinNode;
    let rates: FakeExchange;
    let receiver: WebhookReceiver;
    let miner: NodeJS.Timeout | undefined;
    let mined: Promise<unknown> = Promise.resolve();
    let replica: RunningServer | undefined;
    const replicaOutputs: string[] = [];

    beforeAll(async () => {
      if (pgServer) databaseUrl = await createDatabase(pgServer);
      [sepolia, mainnet, litecoin] = await Promise.all([LocalChain.start({ chainId: 11155111 }), LocalChain.start({ chainId: 1 }), LitecoinNode.start()]);
      rates = await fakeExchange(() => ({ taken_at: new Date().toISOString(), rates: RATES }));
      receiver = await WebhookReceiver.start();
      // Blocks keep coming, as on the public networks, so payments get their confirmations.
      miner = setInterval(() => {
        mined = mined.then(() => Promise.all([sepolia.mine(1), mainnet.mine(1), litecoin.mine(1)]).catch(() => undefined));
      }, 1000);
    }, 180_000);

    afterAll(async () => {
      if (miner) clearInterval(miner);
      await mined;
      await replica?.stop();
      await Promise.all([sepolia?.stop(), mainnet?.stop(), litecoin?.stop(), rates?.close(), receiver?.stop()]);
      if (pgServer && databaseUrl) await dropDatabase(pgServer, databaseUrl);
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('registers a watch-only key per mode, and completes test invoices on Litecoin and Sepolia and a live one on Ethereum', async () => {
      // The deployment's files, as an operator has them.
      const dir = mkdtempSync(join(tmpdir(), 'ipa-rehearsal-'));
      cpSync(join(ROOT, 'docker-compose.yml'), join(dir, 'docker-compose.yml'));
      cpSync(join(ROOT, 'deploy'), join(dir, 'deploy'), { recursive: true });
      const home = join(dir, 'home');
      mkdirSync(home);
      // Caddy's part: every request arrives from loopback (a trusted proxy) saying the client used HTTPS.
      writeFileSync(join(home, '.curlrc'), 'header = "X-Forwarded-Proto: https"\n');
      const handover = join(dir, 'handover');
      mkdirSync(handover);

      // The organization, made with the CLI as production.md shows (its database migrated first).
      const dbEnv = databaseUrl ? { DATABASE_URL: databaseUrl } : { DATABASE_URL: undefined, DATA_DIR: dataDir };
      expect((await runCli(['migrate'], dbEnv, { process: true })).code).toBe(0);
      const created = await runCli(['org:create', '--name', 'Rehearsal shop'], dbEnv, { process: true });
      expect(created.code).toBe(0);
      const org = JSON.parse(created.stdout) as { test_key: string; live_key: string };

      const port = await freePort();
      // The operator's values (the guide's exports), pointing at the local stand-ins.
      const operator: Record<string, string> = {
        ...OPERATOR_ENV,
        API: `http://127.0.0.1:${port}`,
        TEST_KEY: org.test_key,
        LIVE_KEY: org.live_key,
        SEPOLIA_RPC_URL: sepolia.rpcUrl,
        LTC_TESTNET_RPC_URL: litecoin.rpcUrl,
        ETH_RPC_URL: mainnet.rpcUrl,
        EVM_TEST_XPUB: accountKey(EVM_TEST_ACCOUNT).publicExtendedKey,
        EVM_LIVE_XPUB: accountKey(EVM_LIVE_ACCOUNT).publicExtendedKey,
        LTC_TEST_XPUB: LTC_ACCOUNT.publicExtendedKey,
        HOOK_URL: receiver.url('/hooks'),
        RATE_SOURCES: `${rates.url}/rates.json`,
      };

      /** `docker compose up -d`: (re)starts the first replica as compose would, with the shell's environment. */
      const composeUp = async (shellEnv: Record<string, string>) => {
        await replica?.stop();
        replica = undefined;
        const override = join(dir, 'docker-compose.override.yml');
        const compose = withOverride(
          loadCompose(readFileSync(join(dir, 'docker-compose.yml'), 'utf8')),
          existsSync(override) ? loadCompose(readFileSync(override, 'utf8')) : null,
        );
        const [, app] = Object.entries(compose.services).find(([, s]) => isApp(s))!;
        const env: Record<string, string | undefined> = {};
        for (const [name, value] of Object.entries(environmentOf(app))) if (value !== null) env[name] = interpolate(value, shellEnv);
        // The bind mount of deploy/chains.json, read where it lies, with the public testnet read as regtest.
        const mount = (app.volumes as string[]).map((v) => v.split(':')).find(([, target]) => target === env.CHAINS_FILE)!;
        const chains = readFileSync(join(dir, mount[0]), 'utf8');
        expect(chains).toContain('"chain": "test"');
        const local = join(handover, 'chains.json');
        writeFileSync(local, chains.replace(/"chain": "test"/g, '"chain": "regtest"'));
        env.CHAINS_FILE = local;
        delete env.PORT;
        const server = await startServer({
          databaseUrl,
          dataDir,
          port,
          // TRUST_PROXY names the proxy's address: Caddy's fixed one there, loopback (curl) here.
          env: {
            ...env,
            DATABASE_URL: undefined,
            REDIS_URL: undefined,
            HOST: '127.0.0.1',
            TRUST_PROXY: 'loopback',
            WEBHOOK_ALLOW_PRIVATE: 'true',
            LOG_LEVEL: 'info',
          },
          // the rehearsal runs the service as the operator does: a process of its own
          process: true,
        });
        replica = server;
        replicaOutputs.push('');
        const index = replicaOutputs.length - 1;
        const keep = () => (replicaOutputs[index] = server.output());
        server.process!.stdout?.on('data', keep);
        keep();
      };

      const prelude = [
        'set -euo pipefail',
        // docker compose up -d, handed over to the test; the shell's environment (with any VAR=... prefix) goes along.
        'docker() {',
        '  [ "$*" = "compose up -d" ] || { echo "the rehearsal stands in for docker compose up -d only, not: docker $*" >&2; return 1; }',
        '  env -0 > "$HANDOVER/env"; echo "@@compose-up"',
        '  until [ -e "$HANDOVER/done" ]; do sleep 0.2; done',
        '  local outcome; outcome=$(cat "$HANDOVER/done"); rm "$HANDOVER/done"; [ "$outcome" = ok ]',
        '}',
      ];
      writeFileSync(join(dir, 'rehearsal.sh'), [...prelude, ...blocks].join('\n') + '\n');
      const shell: ChildProcess = spawn('bash', ['rehearsal.sh'], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', HANDOVER: handover, ...operator },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      const paid: string[] = [];
      const failures: string[] = [];
      let pending = Promise.resolve();
      const onLine = (line: string) => {
        if (line === '@@compose-up') {
          const shellEnv = Object.fromEntries(
            readFileSync(join(handover, 'env'), 'utf8')
              .split('\0')
              .filter((e) => e.includes('='))
              .map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]),
          );
          pending = pending.then(() =>
            composeUp(shellEnv).then(
              () => writeFileSync(join(handover, 'done'), 'ok'),
              (e: Error) => {
                failures.push(`docker compose up -d: ${e.message}`);
                writeFileSync(join(handover, 'done'), 'failed');
              },
            ),
          );
          return;
        }
        const pay = /^Pay (\S+)$/.exec(line);
        if (!pay) return;
        // The payer's wallet reads the payment request (EIP-681 or BIP21) and pays it.
        const uri = pay[1];
        pending = pending.then(async () => {
          try {
            const evm = /^ethereum:(0x[0-9a-fA-F]{40})@(\d+)\?value=(\d+)$/.exec(uri);
            const ltc = /^litecoin:(\w+)\?amount=([\d.]+)$/.exec(uri);
            if (evm) {
              const chain = [sepolia, mainnet].find((c) => c.chainId === Number(evm[2]));
              if (!chain) throw new Error(`no local chain answers chain id ${evm[2]}`);
              await chain.receipt(await chain.sendNative(0, evm[1], BigInt(evm[3])));
            } else if (ltc) await litecoin.send(ltc[1], ltc[2]);
            else throw new Error(`a payment request the payer's wallet cannot read: ${uri}`);
            paid.push(uri);
          } catch (e) {
            failures.push(`paying ${uri}: ${(e as Error).message}`);
          }
        });
      };
      let partial = '';
      shell.stdout!.on('data', (d: Buffer) => {
        stdout += d;
        partial += d;
        const lines = partial.split('\n');
        partial = lines.pop()!;
        lines.forEach(onLine);
      });
      shell.stderr!.on('data', (d: Buffer) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => {
          shell.kill('SIGKILL');
          resolve(null);
        }, 420_000);
        shell.once('exit', (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
      await pending;
      const explain = () =>
        `exit ${code}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}\n--- failures ---\n${failures.join('\n')}\n--- service ---\n${replicaOutputs.join('\n=== restart ===\n').slice(-6000)}`;
      if (code !== 0 || failures.length) throw new Error(`the rehearsal did not run through: ${explain()}`);
      rmSync(dir, { recursive: true, force: true });

      // What the guide shows each command prints, in order.
      const printed = stdout.split('\n').filter((line) => line !== '' && line !== '@@compose-up');
      const shown = blocks.flatMap(shownOutputs).map((line) => line.replace('tltc1q', 'rltc1q'));
      expect(printed.length).toBe(shown.length);
      shown.forEach((expected, i) => expect([i, printed[i]]).toEqual([i, expect.stringMatching(asPattern(expected))]));
      expect(stderr).toBe('');

      // The first start, with the opt-out and no live section: warned, not refused.
      expect(replicaOutputs).toHaveLength(2);
      const [rehearsal, live] = replicaOutputs;
      expect(rehearsal).toMatch(/"level":40,.*live mode can take no payment.*starting anyway because ALLOW_NO_LIVE_RAILS=true/);
      expect(live).not.toContain('live mode can take no payment');
      // The URLs the references expanded to are not logged.
      for (const output of replicaOutputs) for (const url of [sepolia.rpcUrl, mainnet.rpcUrl, litecoin.rpcUrl]) expect(output).not.toContain(url);

      // The watch-only keys' first addresses, per mode.
      const wallets = printed.filter((line) => line.includes('first_address')).map((line) => JSON.parse(line) as { first_address: string });
      expect(wallets.map((w) => w.first_address)).toEqual([addressAt(EVM_TEST_ACCOUNT, 0), LTC_FIRST_ADDRESS, addressAt(EVM_LIVE_ACCOUNT, 0)]);
      // Each invoice paid to its wallet's first address: Sepolia and Litecoin in test mode, Ethereum mainnet live.
      expect(paid).toEqual([
        `ethereum:${addressAt(EVM_TEST_ACCOUNT, 0)}@11155111?value=50000000000000000`,
        `litecoin:${LTC_FIRST_ADDRESS}?amount=0.5`,
        // 10 USD at 2000 USD per Ether.
        `ethereum:${addressAt(EVM_LIVE_ACCOUNT, 0)}@1?value=5000000000000000`,
      ]);
      expect(await sepolia.public.getBalance({ address: addressAt(EVM_TEST_ACCOUNT, 0) })).toBe(50_000_000_000_000_000n);
      expect(await mainnet.public.getBalance({ address: addressAt(EVM_LIVE_ACCOUNT, 0) })).toBe(5_000_000_000_000_000n);
      const completed = printed
        .filter((line) => line.includes('"status":"COMPLETED"'))
        .map((line) => JSON.parse(line) as { id: string; payments: Array<{ status: string; confirmations: number }> });
      // One payment each, completed at (or, as the watcher goes on counting, past) the required confirmations.
      expect(completed.map((c) => c.payments.length)).toEqual([1, 1, 1]);
      completed.forEach((c, i) => expect(c.payments[0].confirmations).toBeGreaterThanOrEqual([12, 6, 12][i]));

      // The webhook endpoint of each mode received the payments' events, signed with that endpoint's secret.
      const secrets = printed.filter((line) => line.includes('"secret"')).map((line) => (JSON.parse(line) as { secret: string }).secret);
      expect(secrets).toHaveLength(2);
      const [testSecret, liveSecret] = secrets;
      const hooks = await receiver.waitFor(
        (all) => completed.every((invoice) => all.some((w) => w.json?.type === 'invoice.completed' && w.json.data.object.id === invoice.id)),
        30_000,
      );
      for (const hook of hooks) {
        const secret = hook.json.mode === 'live' ? liveSecret : testSecret;
        expect(() => new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>)).not.toThrow();
      }
      for (const [invoice, mode] of completed.map((c, i) => [c.id, i < 2 ? 'test' : 'live'] as const)) {
        const types = hooks
          .filter((w) => w.json.data.object.id === invoice || w.json.data.object.invoice_id === invoice)
          .map((w) => [w.json.type, w.json.mode]);
        expect(types).toEqual(
          expect.arrayContaining([
            ['payment.created', mode],
            ['payment.updated', mode],
            ['invoice.completed', mode],
          ]),
        );
      }
    });
  });
});
