import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../support/server';

/** The README's shell blocks marked `<!-- readme-walkthrough -->`, in order, as written. */
function walkthroughBlocks(readme: string): string[] {
  return [...readme.matchAll(/<!-- readme-walkthrough -->\n```bash\n([\s\S]*?)\n```/g)].map((m) => m[1]);
}

/** What the README says the wallet's first address (and so the first deposit address) is. */
const FIRST_ADDRESS = '0x8C8d35429F74ec245F8Ef2f4Fd1e551cFF97d650';
/** Hardhat's account #0: the payer, which holds the test USDT. */
const PAYER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
/**
 * Files the walkthrough writes in the folder it runs in, not linked from the repository. `dist` among them:
 * its `npm start` and `npm run cli` build into the folder's own `dist`, never under the feet of other tests
 * running the repository's build; `scripts` is copied (not linked) so the build script finds that folder.
 */
const WRITTEN = new Set(['data', 'dist', 'scripts', 'chains.json', 'hardhat.log', 'service.log', 'webhooks.log', '.env', '.git']);

/** A network namespace of its own (root with unshare), so the walkthrough's fixed ports 3000 and 8545 are free. */
function ownNetwork(): boolean {
  if (process.getuid?.() !== 0) return false;
  return spawnSync('unshare', ['--net', 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore' }).status === 0;
}

async function waitGone(path: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (existsSync(path) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
}

// The walkthrough builds the service, starts a chain, the service with its embedded database and the CLI several times.
jest.setTimeout(420_000);

describe('README: the local-chain walkthrough, run literally', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('has its blocks marked, and names the first address and the test that runs it', () => {
    const blocks = walkthroughBlocks(readme);
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const script = blocks.join('\n');
    // Everything the blocks use is defined by an earlier line of theirs.
    for (const variable of ['USDT', 'LIVE_KEY', 'INVOICE', 'ADDRESS']) expect(script).toMatch(new RegExp(`^${variable}=`, 'm'));
    expect(script).toContain(FIRST_ADDRESS);
    expect(script).not.toContain('shop.example.com');
    expect(readme).toContain('test/e2e/docs/readme-walkthrough.e2e-spec.ts');
  });

  it('prints the key, creates the invoice, receives the webhooks and completes the local-chain payment', async () => {
    // A fresh folder that looks like the repository (its files linked) but keeps what the walkthrough writes.
    const dir = mkdtempSync(join(tmpdir(), 'ipa-readme-'));
    chmodSync(dir, 0o755); // as a clone is: the embedded server's user passes through it when the test runs as root
    for (const entry of readdirSync(ROOT)) if (!WRITTEN.has(entry)) symlinkSync(join(ROOT, entry), join(dir, entry));
    cpSync(join(ROOT, 'scripts'), join(dir, 'scripts'), { recursive: true });
    writeFileSync(join(dir, 'walkthrough.sh'), ['set -e', ...walkthroughBlocks(readme)].join('\n') + '\n');

    const isolated = ownNetwork();
    const command = isolated ? ['unshare', '--net', 'bash', '-c', 'ip link set lo up && exec bash walkthrough.sh'] : ['bash', 'walkthrough.sh'];
    // A reader's shell: none of the test run's database or service settings.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? dir, LANG: 'C.UTF-8' };
    const child = spawn(command[0], command.slice(1), { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const stopAll = () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    try {
      // A service that fails to start leaves the script waiting for it, as it would leave a reader: stop there.
      const serviceLog = () => (existsSync(join(dir, 'service.log')) ? readFileSync(join(dir, 'service.log'), 'utf8') : '');
      const code = await new Promise<number | null | 'timeout' | 'start-up failed'>((resolve) => {
        const watch = setInterval(() => /Start-up failed/.test(serviceLog()) && finish('start-up failed'), 500);
        const timer = setTimeout(() => finish('timeout'), 360_000);
        const finish = (outcome: number | null | 'timeout' | 'start-up failed') => {
          clearInterval(watch);
          clearTimeout(timer);
          resolve(outcome);
        };
        void exited.then(finish);
      });
      output += `\n--- service.log ---\n${serviceLog()}`;
      if (code !== 0) throw new Error(`the walkthrough ended with ${code}${isolated ? '' : ' (ports 3000 and 8545 must be free)'}; it printed:\n${output}`);

      // 1. The test USDT's address.
      expect(output).toMatch(/^Test USDT: 0x[0-9a-fA-F]{40}$/m);
      // 3. The live key, printed.
      expect(output).toMatch(/^Live key: sk_live_[A-Za-z0-9_-]{20,}$/m);
      // 4. The wallet, with the first address the README names.
      expect(output).toMatch(new RegExp(`^\\{"id":"wallet_[^"]+","first_address":"${FIRST_ADDRESS}"\\}$`, 'm'));
      // 5. The listener, ready before anything happens.
      expect(output).toMatch(/^Ready: printing payment\.created, payment\.updated, invoice\.completed events as they arrive \(endpoint webhook_\S+\)\.$/m);
      // 6. The invoice and its deposit address: the wallet's, not the payer's own account.
      const [, invoiceId, address] = /^Invoice (invoice_\S+): send 25 USDT to (0x[0-9a-fA-F]{40})$/m.exec(output) ?? [];
      expect(invoiceId).toBeDefined();
      expect(address).toBe(FIRST_ADDRESS);
      expect(address).not.toBe(PAYER);
      expect(output).toContain(`Payer's page: http://127.0.0.1:3000/checkout/${invoiceId}`);
      // 7. The transfer's hash, printed by the send.
      expect(output).toMatch(/^0x[0-9a-f]{64}$/m);
      // 7-8. The webhooks, received and verified by the listener, and the invoice completed.
      for (const type of ['payment.created', 'payment.updated', 'invoice.completed']) {
        expect(output).toMatch(new RegExp(`^\\S+ {2}${type.replace('.', '\\.')} event_\\S+ {2}received$`, 'm'));
      }
      expect(output).not.toContain('rejected a delivery');
      expect(output).toMatch(/^\{"id":"invoice_[^"]+","status":"COMPLETED","substatus":null,/m);
    } finally {
      stopAll();
      await exited;
      // The embedded database stops with the service; the folder goes once it has.
      await waitGone(join(dir, 'data', 'postgres', 'postmaster.pid'), 20_000);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
