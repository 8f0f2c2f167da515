import { createHash, randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { type Address, getBase58Decoder, getCompiledTransactionMessageDecoder, getSignatureFromTransaction, lamports, type Transaction } from '@solana/kit';
import { getMintDecoder, getTokenDecoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { LiteSVM } from 'litesvm';

interface Call {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params?: unknown[];
}
type Commitment = 'processed' | 'confirmed' | 'finalized';
interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}
/** One landed transaction as the bed remembers it (litesvm keeps no balances before and after, nor an index by account). */
interface Landed {
  signature: string;
  slot: number;
  blockTime: number;
  err: unknown;
  accountKeys: Array<{ pubkey: string; signer: boolean; writable: boolean; source: 'transaction' }>;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  fee: number;
  recentBlockhash: string;
  logs: string[];
}
/** A transaction seen at `processed` only, not executed yet: it may still land, or be dropped. */
interface Held {
  signature: string;
  tx: Transaction;
  slot: number;
}

/** What a test may change while the bed runs. */
export interface SolanaBedOptions {
  /** Slots the `confirmed` commitment stays below the newest (processed) slot. */
  confirmedLag: number;
  /** Slots the `finalized` commitment stays below the newest slot. */
  finalizedLag: number;
  /** Whether getHealth answers "ok" (else the documented "node is behind" error). */
  healthy: boolean;
  /**
   * Slots the node answering getSignaturesForAddress stays behind the one answering getSlot: an RPC provider
   * behind a load balancer whose instances are not all caught up. That instance lists only the signatures of
   * slots it has reached, and refuses a `minContextSlot` above its slot as a node does (-32016).
   */
  listingLag: number;
}

const b58 = getBase58Decoder();
const SLOT_MS = 400;
const uiAmount = (amount: bigint, decimals: number): string => {
  const text = amount.toString().padStart(decimals + 1, '0');
  const whole = text.slice(0, text.length - decimals);
  const fraction = text.slice(text.length - decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
};

/**
 * A stand-in for a Solana node's JSON-RPC (no validator can be installed here): litesvm (the Solana
 * runtime in-process, with the real System, SPL Token and Associated Token Account programs) runs the
 * transactions, and this server answers, in Solana's documented JSON-RPC shapes as we read them, the
 * methods the service calls: getGenesisHash, getHealth, getSlot, getBlockTime, getBalance,
 * getAccountInfo, getSignaturesForAddress, getTransaction (jsonParsed), getSignatureStatuses,
 * getBlock (`transactionDetails: "signatures"` only), getLatestBlockhash. Anything else is -32601.
 *
 * What litesvm does not keep, the bed does: one slot per landed transaction (slots in between are
 * empty, `advance` adds some), the index of signatures by account (newest first, `before`, `until`,
 * `limit`), each transaction's balances before and after, in lamports and in tokens (pre/post token
 * balances of every token account it names), and block times (a slot every 400 ms from the start).
 * Commitments lag the newest slot by `confirmedLag` and `finalizedLag`. A transaction submitted with
 * `hold` is only simulated: it is `processed` (getSignatureStatuses shows it; getSignaturesForAddress and
 * getTransaction, which take `confirmed` at least, do not) until `land` executes it in a new slot or
 * `drop` forgets it, as a cluster drops a transaction whose fork dies before it is confirmed. getSignaturesForAddress
 * honours `minContextSlot` (error -32016 "Minimum context slot has not been reached", data `{contextSlot}`, when
 * the answering node's slot at the commitment is below it), and `listingLag` has it answered by a node some
 * slots behind the one getSlot asks (a load balancer's lagging instance). `rollBack`
 * forgets a landed transaction that is `confirmed` but not yet `finalized`, as the node answers once the fork
 * that held it died: its signature unknown to every method, and its slot skipped (getBlock -32007 "Slot
 * was skipped"; a slot the commitment has not reached is -32004 "Block not available"). `reland` moves such a
 * transaction to a new slot instead: the same transaction included again by the surviving fork. `withholdStatus` has
 * getSignatureStatuses answer null for a landed signature some times: an instance behind a load balancer
 * that has not reached its slot, or whose status cache no longer holds it; `failBlock` has getBlock answer an
 * error for a slot (a ledger that no longer holds it).
 *
 * Not reproduced: forks and votes (commitments are a fixed lag; a rollback is the node forgetting one signature), empty slots (every slot
 * without a landed transaction is a block without transactions, never skipped, unless a rollback emptied it),
 * fees other than litesvm's, rent and priority fees, address lookup tables, Token-2022, rate limits and
 * getSignaturesForAddress's real history depth. `calls` counts the requests by method.
 */
export class SolanaRpcServer {
  readonly svm = new LiteSVM();
  readonly genesisHash = b58.decode(new Uint8Array(randomBytes(32)));
  readonly options: SolanaBedOptions = { confirmedLag: 0, finalizedLag: 4, healthy: true, listingLag: 0 };
  readonly calls = new Map<string, number>();
  /** The signatures getTransaction was asked for, in the order asked. */
  readonly transactionsAsked: string[] = [];
  /** getSignaturesForAddress calls refused because the answering node had not reached their `minContextSlot`. */
  refusedListings = 0;
  private server: Server | null = null;
  private slotNow = 1;
  private readonly startMs = Date.now();
  private readonly landed = new Map<string, Landed>();
  private readonly byAccount = new Map<string, Landed[]>();
  private readonly held = new Map<string, Held>();
  /** Signatures getTransaction answers null for, and how many more times (`withholdTransaction`). */
  private readonly withheld = new Map<string, number>();
  /** Signatures getSignatureStatuses answers null for, and how many more times (`withholdStatus`). */
  private readonly statusWithheld = new Map<string, number>();
  /** Slots whose block a rollback took back: skipped on the surviving fork. */
  private readonly skipped = new Set<number>();
  /** Slots getBlock answers an error for (`failBlock`): a node whose ledger no longer holds them. */
  private readonly blockErrors = new Map<number, { code: number; message: string }>();
  url = '';

  constructor(options: Partial<SolanaBedOptions> = {}) {
    Object.assign(this.options, options);
    this.svm.warpToSlot(BigInt(this.slotNow));
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    return this.url;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }

  /** The newest slot, and the slot a commitment covers. */
  slot(commitment: Commitment = 'processed'): number {
    const lag = commitment === 'processed' ? 0 : commitment === 'confirmed' ? this.options.confirmedLag : this.options.finalizedLag;
    return Math.max(this.slotNow - lag, 0);
  }

  /**
   * getTransaction answers null for `signature` the next `times` times it is asked, while
   * getSignaturesForAddress lists it: a node behind a load balancer whose instances have not all
   * indexed the transaction yet.
   */
  withholdTransaction(signature: string, times: number): void {
    this.withheld.set(signature, times);
  }

  /**
   * getSignatureStatuses answers null for a landed `signature` the next `times` times it is asked, while
   * every other method shows it.
   */
  withholdStatus(signature: string, times: number): void {
    this.statusWithheld.set(signature, times);
  }

  /**
   * getBlock answers `code` (default -32001, the block cleaned up from the node's ledger) for `slot` until told
   * otherwise (`null`).
   */
  failBlock(
    slot: number,
    error: { code: number; message: string } | null = { code: -32001, message: `Block ${slot} cleaned up, does not exist on node` },
  ): void {
    if (error) this.blockErrors.set(slot, error);
    else this.blockErrors.delete(slot);
  }

  /** The slot a landed transaction is in (undefined when none holds it). */
  slotOf(signature: string): number | undefined {
    return this.landed.get(signature)?.slot;
  }

  /** Empty slots pass (the commitments follow). */
  advance(slots: number): void {
    this.slotNow += slots;
    this.svm.warpToSlot(BigInt(this.slotNow));
  }

  blockTime(slot: number): number {
    return Math.floor((this.startMs + slot * SLOT_MS) / 1000);
  }

  /** The blockhash a wallet signs with now (a new one after every landed transaction). */
  latestBlockhash(): string {
    return this.svm.latestBlockhash();
  }

  airdrop(address: string, amount: bigint): void {
    const result = this.svm.airdrop(address as Address, lamports(amount));
    if (!result || 'err' in result) throw new Error(`airdrop to ${address} failed`);
  }

  /**
   * A signed transaction as a wallet sends it: executed by litesvm in a new slot (its balances read
   * before and after), indexed by every account it names, its signature returned; a failed one lands too
   * (with its error, nothing moved), as on a cluster. `hold`: only simulated, kept `processed` (see the class).
   */
  submit(tx: Transaction, options: { hold?: boolean } = {}): string {
    const signature = getSignatureFromTransaction(tx);
    if (options.hold) {
      const simulated = this.svm.simulateTransaction(tx);
      if ('err' in simulated && typeof simulated.err === 'function') throw new Error(`the held transaction would fail: ${String(simulated.err())}`);
      this.advance(1);
      this.held.set(signature, { signature, tx, slot: this.slotNow });
      return signature;
    }
    this.execute(tx, signature);
    return signature;
  }

  /** A held transaction lands now (in a new slot). */
  land(signature: string): void {
    const held = this.held.get(signature);
    if (!held) throw new Error(`no held transaction ${signature}`);
    this.held.delete(signature);
    this.execute(held.tx, signature);
  }

  /** A held transaction is dropped: no commitment ever shows it again. */
  drop(signature: string): void {
    if (!this.held.delete(signature)) throw new Error(`no held transaction ${signature}`);
  }

  /**
   * A landed transaction that was `confirmed` but not `finalized` is rolled back: the fork that held it dies
   * (its slot is skipped on the surviving fork). From then on the node answers as Solana's JSON-RPC does for a
   * signature it does not know: getSignatureStatuses `null` for it, getTransaction `null`, and
   * getSignaturesForAddress no longer lists it. Its slot stays as an empty slot and later slots go on. The
   * accounts keep what it moved (litesvm cannot undo a transaction); nothing the watcher reads shows them.
   * A finalized transaction cannot be rolled back (error).
   */
  rollBack(signature: string): void {
    const entry = this.landed.get(signature);
    if (!entry) throw new Error(`no landed transaction ${signature}`);
    if (this.status(entry.slot) === 'finalized') throw new Error(`transaction ${signature} is finalized: no fork can take it back`);
    this.landed.delete(signature);
    if (![...this.landed.values()].some((e) => e.slot === entry.slot)) this.skipped.add(entry.slot);
    for (const [account, list] of this.byAccount) {
      const kept = list.filter((e) => e.signature !== signature);
      if (kept.length) this.byAccount.set(account, kept);
      else this.byAccount.delete(account);
    }
  }

  /**
   * A landed transaction that was `confirmed` but not `finalized` lands again in a new slot: the fork that
   * held it died (its old slot skipped, as after `rollBack`) and the surviving fork included the same
   * transaction later. Every method then shows it in the new slot.
   */
  reland(signature: string): number {
    const entry = this.landed.get(signature);
    if (!entry) throw new Error(`no landed transaction ${signature}`);
    if (this.status(entry.slot) === 'finalized') throw new Error(`transaction ${signature} is finalized: no fork can take it back`);
    const old = entry.slot;
    this.advance(1);
    entry.slot = this.slotNow;
    entry.blockTime = this.blockTime(this.slotNow);
    if (![...this.landed.values()].some((e) => e.slot === old)) this.skipped.add(old);
    return entry.slot;
  }

  private execute(tx: Transaction, signature: string): void {
    const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    const keys = message.staticAccounts.map(String);
    const { numSignerAccounts, numReadonlySignerAccounts, numReadonlyNonSignerAccounts } = message.header;
    const writable = (i: number) =>
      i < numSignerAccounts ? i < numSignerAccounts - numReadonlySignerAccounts : i < keys.length - numReadonlyNonSignerAccounts;
    const preBalances = keys.map((k) => Number(this.svm.getBalance(k as Address) ?? 0n));
    const preTokenBalances = this.tokenBalances(keys);
    this.advance(1);
    const result = this.svm.sendTransaction(tx);
    const failed = 'err' in result && typeof result.err === 'function';
    const meta = failed ? (result as { meta(): { logs(): string[] } }).meta() : (result as unknown as { logs(): string[] });
    const entry: Landed = {
      signature,
      slot: this.slotNow,
      blockTime: this.blockTime(this.slotNow),
      err: failed ? { InstructionError: String((result as { err(): unknown }).err()) } : null,
      accountKeys: keys.map((pubkey, i) => ({ pubkey, signer: i < numSignerAccounts, writable: writable(i), source: 'transaction' as const })),
      preBalances,
      postBalances: keys.map((k) => Number(this.svm.getBalance(k as Address) ?? 0n)),
      preTokenBalances,
      postTokenBalances: this.tokenBalances(keys),
      fee: 5000 * numSignerAccounts,
      recentBlockhash: String(message.lifetimeToken),
      logs: meta.logs(),
    };
    this.landed.set(signature, entry);
    for (const key of new Set(keys)) {
      const list = this.byAccount.get(key) ?? [];
      list.push(entry);
      this.byAccount.set(key, list);
    }
    this.svm.expireBlockhash();
  }

  /** Token balances of the SPL Token accounts among `keys`, as getTransaction's meta writes them. */
  private tokenBalances(keys: string[]): TokenBalance[] {
    const out: TokenBalance[] = [];
    keys.forEach((key, accountIndex) => {
      const account = this.svm.getAccount(key as Address);
      if (!account.exists || account.programAddress !== TOKEN_PROGRAM_ADDRESS || account.data.length !== 165) return;
      const token = getTokenDecoder().decode(account.data);
      const mint = this.svm.getAccount(token.mint);
      const decimals = mint.exists ? getMintDecoder().decode(mint.data).decimals : 0;
      const text = uiAmount(token.amount, decimals);
      out.push({
        accountIndex,
        mint: token.mint,
        owner: token.owner,
        programId: TOKEN_PROGRAM_ADDRESS,
        uiTokenAmount: { amount: token.amount.toString(), decimals, uiAmount: Number(text), uiAmountString: text },
      });
    });
    return out;
  }

  private visible(entry: Landed, commitment: Commitment): boolean {
    return entry.slot <= this.slot(commitment);
  }

  private commitmentOf(config: unknown, lowest: Commitment = 'processed'): Commitment {
    const wanted = (config as { commitment?: Commitment } | undefined)?.commitment ?? 'finalized';
    if (wanted === 'processed' && lowest === 'confirmed')
      throw Object.assign(new Error('Method does not support commitment below `confirmed`'), { code: -32602 });
    return wanted;
  }

  private status(slot: number): Commitment {
    return slot <= this.slot('finalized') ? 'finalized' : slot <= this.slot('confirmed') ? 'confirmed' : 'processed';
  }

  /** One method's answer (or a thrown { code, message }). */
  answer(method: string, params: unknown[]): unknown {
    switch (method) {
      case 'getGenesisHash':
        return this.genesisHash;
      case 'getHealth':
        if (!this.options.healthy) throw Object.assign(new Error('Node is behind by 250 slots'), { code: -32005 });
        return 'ok';
      case 'getSlot':
        return this.slot(this.commitmentOf(params[0]));
      case 'getBlockTime':
        return Number(params[0]) <= this.slotNow ? this.blockTime(Number(params[0])) : null;
      case 'getLatestBlockhash':
        return { context: { slot: this.slotNow }, value: { blockhash: this.latestBlockhash(), lastValidBlockHeight: this.slotNow + 150 } };
      case 'getBalance': {
        this.commitmentOf(params[1]);
        return { context: { slot: this.slotNow }, value: Number(this.svm.getBalance(String(params[0]) as Address) ?? 0n) };
      }
      case 'getAccountInfo': {
        const account = this.svm.getAccount(String(params[0]) as Address);
        const value = account.exists
          ? {
              lamports: Number(account.lamports),
              owner: account.programAddress,
              data: [Buffer.from(account.data).toString('base64'), 'base64'],
              executable: account.executable,
              rentEpoch: 0,
              space: account.data.length,
            }
          : null;
        return { context: { slot: this.slotNow }, value };
      }
      case 'getSignaturesForAddress':
        return this.signaturesFor(String(params[0]), params[1] ?? {});
      case 'getTransaction': {
        this.transactionsAsked.push(String(params[0]));
        const commitment = this.commitmentOf(params[1], 'confirmed');
        const entry = this.landed.get(String(params[0]));
        const withheld = this.withheld.get(String(params[0])) ?? 0;
        if (withheld > 0) {
          this.withheld.set(String(params[0]), withheld - 1);
          return null;
        }
        if (!entry || !this.visible(entry, commitment)) return null;
        return {
          slot: entry.slot,
          blockTime: entry.blockTime,
          version: 0,
          meta: {
            err: entry.err,
            status: entry.err === null ? { Ok: null } : { Err: entry.err },
            fee: entry.fee,
            preBalances: entry.preBalances,
            postBalances: entry.postBalances,
            preTokenBalances: entry.preTokenBalances,
            postTokenBalances: entry.postTokenBalances,
            innerInstructions: [],
            logMessages: entry.logs,
            rewards: [],
            loadedAddresses: { writable: [], readonly: [] },
            computeUnitsConsumed: 0,
          },
          transaction: {
            signatures: [entry.signature],
            message: { accountKeys: entry.accountKeys, instructions: [], recentBlockhash: entry.recentBlockhash, addressTableLookups: [] },
          },
        };
      }
      case 'getBlock': {
        const failed = this.blockErrors.get(Number(params[0]));
        if (failed) throw Object.assign(new Error(failed.message), { code: failed.code });
        return this.blockAt(Number(params[0]), params[1] ?? {});
      }
      case 'getSignatureStatuses': {
        const signatures = (params[0] ?? []) as string[];
        return {
          context: { slot: this.slotNow },
          value: signatures.map((s) => {
            const withheld = this.statusWithheld.get(s) ?? 0;
            if (withheld > 0) {
              this.statusWithheld.set(s, withheld - 1);
              return null;
            }
            const held = this.held.get(s);
            if (held) return { slot: held.slot, confirmations: 0, err: null, status: { Ok: null }, confirmationStatus: 'processed' };
            const entry = this.landed.get(s);
            if (!entry) return null;
            const status = this.status(entry.slot);
            return {
              slot: entry.slot,
              confirmations: status === 'finalized' ? null : this.slotNow - entry.slot,
              err: entry.err,
              status: entry.err === null ? { Ok: null } : { Err: entry.err },
              confirmationStatus: status,
            };
          }),
        };
      }
      default:
        throw Object.assign(new Error('Method not found'), { code: -32601 });
    }
  }

  /** getBlock with `transactionDetails: "signatures"`: the block of a slot the commitment covers. */
  private blockAt(slot: number, config: { commitment?: Commitment; transactionDetails?: string }): unknown {
    const commitment = this.commitmentOf(config, 'confirmed');
    if (config.transactionDetails !== 'signatures') {
      throw Object.assign(new Error('this bed serves getBlock with transactionDetails "signatures" only'), { code: -32602 });
    }
    if (!Number.isSafeInteger(slot) || slot < 0 || slot > this.slot(commitment)) {
      throw Object.assign(new Error(`Block not available for slot ${slot}`), { code: -32004 });
    }
    if (this.skipped.has(slot)) {
      throw Object.assign(new Error(`Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`), { code: -32007 });
    }
    const hash = (n: number) => b58.decode(createHash('sha256').update(`${this.genesisHash}:${n}`).digest());
    return {
      blockhash: hash(slot),
      previousBlockhash: hash(Math.max(slot - 1, 0)),
      parentSlot: Math.max(slot - 1, 0),
      blockHeight: slot,
      blockTime: this.blockTime(slot),
      signatures: [...this.landed.values()].filter((e) => e.slot === slot).map((e) => e.signature),
    };
  }

  private signaturesFor(
    address: string,
    config: { limit?: number; before?: string; until?: string; commitment?: Commitment; minContextSlot?: number },
  ): unknown[] {
    const commitment = this.commitmentOf(config, 'confirmed');
    const limit = Math.min(Math.max(config.limit ?? 1000, 1), 1000);
    // The answering node's slot at the commitment: behind by `listingLag` when a lagging instance answers.
    const reached = Math.max(this.slot(commitment) - this.options.listingLag, 0);
    if (config.minContextSlot !== undefined && config.minContextSlot > reached) {
      this.refusedListings++;
      throw Object.assign(new Error('Minimum context slot has not been reached'), { code: -32016, data: { contextSlot: reached } });
    }
    // A node that has not reached a slot knows nothing of it; one that does not know `before` answers an empty list.
    const newestFirst = [...(this.byAccount.get(address) ?? [])].reverse().filter((e) => this.visible(e, commitment) && e.slot <= reached);
    let start = 0;
    if (config.before) {
      const at = newestFirst.findIndex((e) => e.signature === config.before);
      start = at < 0 ? newestFirst.length : at + 1;
    }
    const out: unknown[] = [];
    for (const entry of newestFirst.slice(start)) {
      if (config.until && entry.signature === config.until) break;
      if (out.length >= limit) break;
      out.push({
        signature: entry.signature,
        slot: entry.slot,
        err: entry.err,
        memo: null,
        blockTime: entry.blockTime,
        confirmationStatus: this.status(entry.slot),
      });
    }
    return out;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    let call: Call;
    try {
      call = JSON.parse(body) as Call;
    } catch {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
      return;
    }
    this.calls.set(call.method, (this.calls.get(call.method) ?? 0) + 1);
    let answer: object;
    try {
      answer = { jsonrpc: '2.0', id: call.id, result: this.answer(call.method, call.params ?? []) };
    } catch (e) {
      const error = e as { code?: number; message?: string; data?: unknown };
      answer = {
        jsonrpc: '2.0',
        id: call.id,
        error: { code: error.code ?? -32603, message: error.message ?? 'Internal error', ...(error.data !== undefined ? { data: error.data } : {}) },
      };
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  }

  /** Requests answered so far, all methods together. */
  totalCalls(): number {
    return [...this.calls.values()].reduce((a, b) => a + b, 0);
  }
}
