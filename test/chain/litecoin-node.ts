import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/server';

const LITECOIND = process.env.LITECOIND ?? '/usr/lib/litecoin/litecoind';
const USER = 'rails';
const PASSWORD = 'regtest-password';

/**
 * A real Litecoin Core node (Debian's `litecoind`) in regtest, for one test file: its own data
 * folder and free loopback ports, a wallet (`payer`) funded by 101 blocks mined to it. `kill()`
 * and `stop()` end it; the folder is removed at stop. It keeps a transaction index (`txindex=1`, as
 * the rails want) unless started with `{ txindex: false }`.
 */
export class LitecoinNode {
  private process: ChildProcess | null = null;
  private output = '';
  private id = 0;
  private payerAddress = '';

  private constructor(
    readonly rpcPort: number,
    readonly datadir: string,
  ) {}

  /** The JSON-RPC URL with its credentials, as CHAINS_FILE takes it. */
  get rpcUrl(): string {
    return `http://${USER}:${PASSWORD}@127.0.0.1:${this.rpcPort}`;
  }

  static async start(options: { txindex?: boolean } = {}): Promise<LitecoinNode> {
    const node = new LitecoinNode(await freePort(), mkdtempSync(join(tmpdir(), 'ipa-litecoind-')));
    const p2p = await freePort();
    const child = spawn(
      LITECOIND,
      [
        '-regtest',
        `-datadir=${node.datadir}`,
        `-rpcport=${node.rpcPort}`,
        `-port=${p2p}`,
        '-rpcbind=127.0.0.1',
        '-rpcallowip=127.0.0.1',
        `-rpcuser=${USER}`,
        `-rpcpassword=${PASSWORD}`,
        '-listen=0',
        '-server=1',
        `-txindex=${options.txindex === false ? 0 : 1}`,
        '-fallbackfee=0.0002',
        '-printtoconsole=1',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (d) => (node.output = (node.output + d).slice(-20_000)));
    child.stderr?.on('data', (d) => (node.output = (node.output + d).slice(-20_000)));
    node.process = child;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`litecoind exited: ${node.output}`);
      try {
        await node.rpc('getblockchaininfo');
        break;
      } catch (e) {
        if (Date.now() > deadline) throw new Error(`litecoind did not answer: ${(e as Error).message}\n${node.output}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    await node.rpc('createwallet', ['payer']);
    node.payerAddress = await node.rpc<string>('getnewaddress', ['', 'bech32']);
    await node.mine(101);
    return node;
  }

  async rpc<T = any>(method: string, params: unknown[] = []): Promise<T> {
    const res = await fetch(`http://127.0.0.1:${this.rpcPort}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` },
      body: JSON.stringify({ jsonrpc: '1.0', id: ++this.id, method, params }),
    });
    const body = (await res.json()) as { result: T; error: { code: number; message: string } | null };
    if (body.error) throw new Error(`${method}: ${body.error.message} (${body.error.code})`);
    return body.result;
  }

  /**
   * Mines `n` blocks (their reward to `to`, by default the payer's address); their hashes. After
   * `invalidateblock`, a block mined at once to the same address would be the taken-back block again
   * (same parent, transactions and time), which the node refuses: mine to another address then.
   */
  async mine(n: number, to = this.payerAddress): Promise<string[]> {
    return this.rpc<string[]>('generatetoaddress', [n, to]);
  }

  /**
   * A double-spend, as a miner working for the payer would make it: mines one block holding a new
   * transaction of the payer's wallet that spends the same coins as `txid` (which must wait in the
   * mempool with its inputs confirmed), paying `outputs` (address -> coin amount; by default 0.01 back
   * to the payer) and the rest back as change. The node then drops `txid` from its mempool: it can
   * never be mined. The block's hash and the new transaction's id.
   */
  async mineConflicting(txid: string, outputs?: Record<string, string>): Promise<{ block: string; txid: string }> {
    if ((await this.rpc<string[]>('getmempoolancestors', [txid])).length) throw new Error(`${txid} spends unconfirmed coins: mine them first`);
    const tx = await this.rpc<{ vin: Array<{ txid: string; vout: number }> }>('getrawtransaction', [txid, true]);
    const pays = outputs ?? { [await this.rpc<string>('getnewaddress', ['', 'bech32'])]: '0.01' };
    const inputs = tx.vin.map((i) => ({ txid: i.txid, vout: i.vout }));
    const funded = await this.rpc<{ psbt: string }>('walletcreatefundedpsbt', [inputs, [pays], 0, { add_inputs: false }]);
    const signed = await this.rpc<{ psbt: string }>('walletprocesspsbt', [funded.psbt]);
    const final = await this.rpc<{ hex: string; complete: boolean }>('finalizepsbt', [signed.psbt]);
    if (!final.complete) throw new Error('the conflicting transaction could not be signed');
    const { hash } = await this.rpc<{ hash: string }>('generateblock', [this.payerAddress, [final.hex]]);
    return { block: hash, txid: (await this.rpc<{ txid: string }>('decoderawtransaction', [final.hex])).txid };
  }

  /** Sends `amount` (a coin amount, e.g. '0.5') from the payer's wallet; the transaction id. */
  async send(address: string, amount: string): Promise<string> {
    return this.rpc<string>('sendtoaddress', [address, amount]);
  }

  /** One transaction paying several outputs (address -> coin amount). */
  async sendMany(outputs: Record<string, string>): Promise<string> {
    return this.rpc<string>('sendmany', ['', outputs]);
  }

  /** The output number of `address` in a transaction. */
  async voutOf(txid: string, address: string): Promise<number> {
    const tx = await this.rpc<{ vout: Array<{ n: number; scriptPubKey: { address?: string; addresses?: string[] } }> }>('getrawtransaction', [txid, true]);
    const out = tx.vout.find((o) => (o.scriptPubKey.address ?? o.scriptPubKey.addresses?.[0]) === address);
    if (!out) throw new Error(`${txid} pays nothing to ${address}`);
    return out.n;
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.process = null;
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
      clearTimeout(timer);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    rmSync(this.datadir, { recursive: true, force: true });
  }
}
