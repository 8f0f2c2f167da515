import { utxoAddressKey } from './utxo-address-key';
import type { BlockRef, ChainFollower, IncomingTransfer, PayoutTransaction, PayoutTransfer, ScannedRange, WatchedAddresses } from '../domain/payment-rail';

/** A JSON-RPC error answered by the node (code and message as Bitcoin Core writes them). */
export class UtxoRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (${code})`);
  }
}

/** Bitcoin Core's "No such mempool or blockchain transaction" (and "not found" answers alike). */
const NOT_FOUND = -5;
/** Answers of spendsFrom kept (a payout's inputs are read once while it is checked; about 100 bytes each). */
const SPENDS_KEPT = 10_000;
/** JSON-RPC's "Method not found" (a node older than the call). */
const METHOD_NOT_FOUND = -32601;

/** An output's script as the node describes it: `address` (newer nodes), or `addresses` with `type` (Litecoin Core 0.21, older Bitcoin Core). */
export interface RpcScript {
  type?: string;
  address?: string;
  addresses?: string[];
}
interface RpcOutput {
  value: string;
  n: number;
  scriptPubKey: RpcScript;
}
interface RpcTransaction {
  txid: string;
  /** Its inputs: the output each spends (a coinbase input has `coinbase` instead). */
  vin?: Array<{ txid?: string; vout?: number; coinbase?: string }>;
  vout: RpcOutput[];
  blockhash?: string;
  confirmations?: number;
}
interface RpcBlock {
  hash: string;
  height: number;
  time: number;
  previousblockhash?: string;
  tx: RpcTransaction[];
}

/** The fields of Bitcoin Core's `getblockchaininfo` the preflight reads (documented in its RPC help). */
export interface BlockchainInfo {
  chain: string;
  /** Height of the most-work fully validated chain. */
  blocks: number;
  /** Height of the most-work header chain the node knows. */
  headers: number;
  /** True while the node makes its first sync (Bitcoin Core 0.16 and later). */
  initialblockdownload?: boolean;
  verificationprogress?: number;
  pruned?: boolean;
}

/** A coin amount as the node prints it (`0.10000000`) in satoshis, exactly (the answer is read without floats). */
export function unitsOf(value: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,8}))?$/.exec(value);
  if (!match) throw new Error(`unexpected amount in the node's answer: ${value}`);
  return BigInt(match[1]) * 100_000_000n + BigInt((match[2] ?? '').padEnd(8, '0'));
}

/** Script types that pay exactly one address (what `address` means on the nodes that print only that). */
const SINGLE_ADDRESS_TYPES = new Set(['pubkeyhash', 'scripthash', 'witness_v0_keyhash', 'witness_v0_scripthash', 'witness_v1_taproot', 'witness_unknown']);

/**
 * The one address an output pays, or null when its script pays no single address. Newer nodes print
 * `address` only for such a script; older ones (Litecoin Core 0.21) print an `addresses` list for bare
 * multisig and bare pubkey scripts too, whose coins the other keys of the script (or a key no wallet
 * watches as that address) can spend: those, and any list but one address of a single-address type,
 * pay nobody. Payments and payout checks alike decide an output's address here.
 */
export function soleAddressOf(script: RpcScript): string | null {
  if (script.type !== undefined && !SINGLE_ADDRESS_TYPES.has(script.type)) return null;
  if (typeof script.address === 'string') return script.address || null;
  const list = script.addresses;
  if (script.type === undefined || !Array.isArray(list) || list.length !== 1 || typeof list[0] !== 'string') return null;
  return list[0] || null;
}

/**
 * What a transaction's outputs pay to `to`, in satoshis: every output to that address summed (a
 * wallet may split a payment into several outputs). Outputs without one address (OP_RETURN, bare
 * multisig: `soleAddressOf`) count for nothing.
 */
export function unitsPaidTo(vout: ReadonlyArray<{ value: string; scriptPubKey: RpcScript }>, to: string): bigint {
  const target = utxoAddressKey(to);
  let units = 0n;
  for (const o of vout) {
    const address = soleAddressOf(o.scriptPubKey);
    if (address && utxoAddressKey(address) === target) units += unitsOf(o.value);
  }
  return units;
}

/** The outputs a transaction pays `to` with, each by its number (`unitsPaidTo` says which outputs pay that address). */
export function outputsPaidTo(vout: ReadonlyArray<RpcOutput>, to: string): PayoutTransfer[] {
  const out: PayoutTransfer[] = [];
  for (const o of vout) {
    const units = unitsPaidTo([o], to);
    if (units > 0n) out.push({ output: String(o.n), units });
  }
  return out;
}

/** The answer's JSON with every `"value": <number>` turned into a string, so amounts never pass through a float. */
function parseExactly(text: string): unknown {
  return JSON.parse(text.replace(/"value":\s*(-?\d+(?:\.\d+)?)(?=\s*[,}])/g, '"value":"$1"'));
}

/**
 * Follows one UTXO network over a Bitcoin Core-compatible JSON-RPC node (Bitcoin Core, Litecoin Core,
 * Dogecoin Core, Bitcoin Cash Node), credentials in the URL. A range is read block by block
 * (`getblockhash`, `getblock` with its transactions), each output matched against the watched
 * addresses: a set lookup in memory when the set is small, else one indexed query for the range's
 * recipients. The mempool is read the same way (`getrawmempool`, then `getrawtransaction` once per
 * new transaction). The output reference is the output's number (`vout`): the idempotency key is
 * `<network>:<txid>:<vout>`.
 */
export class UtxoFollower implements ChainFollower {
  private readonly url: string;
  private readonly auth: string | null;
  private id = 0;
  /** Outputs of the mempool's transactions read before (a transaction in the mempool does not change). */
  private readonly mempool = new Map<string, Array<{ address: string; units: bigint; n: number }>>();
  /**
   * Whether a transaction spends from an address, by `<txid> <address>` (spendsFrom): a transaction's inputs and
   * the outputs they spend never change, so each payout's inputs are read once, not on every check until it
   * completes. The oldest answer goes first past SPENDS_KEPT.
   */
  private readonly spends = new Map<string, boolean>();

  constructor(
    rpcUrl: string,
    private readonly timeoutMs = 10_000,
  ) {
    const url = new URL(rpcUrl);
    this.auth = url.username ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` : null;
    url.username = '';
    url.password = '';
    this.url = url.toString();
  }

  private async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.auth ? { authorization: this.auth } : {}) },
      body: JSON.stringify({ jsonrpc: '1.0', id: ++this.id, method, params }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text();
    let body: { result?: T; error?: { code: number; message: string } | null };
    try {
      body = parseExactly(text) as typeof body;
    } catch {
      throw new Error(`${method}: HTTP ${res.status}, not a JSON-RPC answer`);
    }
    if (body.error) throw new UtxoRpcError(method, body.error.code, body.error.message);
    if (!res.ok) throw new Error(`${method}: HTTP ${res.status}`);
    return body.result as T;
  }

  /** `main`, `test` or `regtest`, as getblockchaininfo names the chain. */
  async chain(): Promise<string> {
    return (await this.call<{ chain: string }>('getblockchaininfo')).chain;
  }

  /** `getblockchaininfo` as the node answers it (the chain, how far it is, whether it is still in its first sync). */
  async blockchainInfo(): Promise<BlockchainInfo> {
    return this.call<BlockchainInfo>('getblockchaininfo');
  }

  /** `getindexinfo`'s answer (`{ txindex: { synced, best_block_height } }` with the index on); null from a node without the call. */
  async indexInfo(): Promise<Record<string, { synced?: boolean; best_block_height?: number }> | null> {
    try {
      return (await this.call<Record<string, { synced?: boolean; best_block_height?: number }>>('getindexinfo')) ?? {};
    } catch (e) {
      if (e instanceof UtxoRpcError && e.code === METHOD_NOT_FOUND) return null;
      throw e;
    }
  }

  /**
   * Whether the node keeps its transaction index (`txindex=1`): `getindexinfo` (Bitcoin Core 0.21 and
   * later, Litecoin Core 0.21) names `txindex` when it is on (still syncing or not) and answers `{}`
   * when it is off; null from a node without the call.
   */
  async transactionIndex(): Promise<boolean | null> {
    try {
      const indexes = await this.call<Record<string, unknown>>('getindexinfo');
      return Object.prototype.hasOwnProperty.call(indexes ?? {}, 'txindex');
    } catch (e) {
      if (e instanceof UtxoRpcError && e.code === METHOD_NOT_FOUND) return null;
      throw e;
    }
  }

  /**
   * Whether the node answers `getblock <hash> 2` (a block with its decoded transactions), as the watcher
   * reads every block: null when it does, else the node's refusal (Dogecoin Core 1.14 takes only true/false there).
   */
  async verboseBlockProblem(): Promise<string | null> {
    const hash = await this.call<string>('getbestblockhash');
    try {
      const block = await this.call<RpcBlock>('getblock', [hash, 2]);
      const first = Array.isArray(block?.tx) ? block.tx[0] : undefined;
      return first && typeof first === 'object' && Array.isArray(first.vout) ? null : 'its answer holds no decoded transactions';
    } catch (e) {
      if (e instanceof UtxoRpcError) return e.message;
      throw e;
    }
  }

  async head(): Promise<bigint> {
    return BigInt(await this.call<number>('getblockcount'));
  }

  async block(number: bigint): Promise<BlockRef> {
    const hash = await this.call<string>('getblockhash', [Number(number)]);
    const header = await this.call<{ time: number; previousblockhash?: string }>('getblockheader', [hash]);
    return { number, hash, parentHash: header.previousblockhash ?? '', timestamp: BigInt(header.time) };
  }

  async scan(range: { from: bigint; to: bigint }, watched: WatchedAddresses): Promise<ScannedRange> {
    const blocks: BlockRef[] = [];
    const seen: IncomingTransfer[] = [];
    for (let n = range.from; n <= range.to; n++) {
      const hash = await this.call<string>('getblockhash', [Number(n)]);
      const block = await this.call<RpcBlock>('getblock', [hash, 2]);
      const ref = { number: n, hash: block.hash, parentHash: block.previousblockhash ?? '', timestamp: BigInt(block.time) };
      blocks.push(ref);
      for (const tx of block.tx) seen.push(...this.outputsOf(tx.txid, tx.vout, watched, n, block.hash));
    }
    return { blocks, transfers: await this.ours(seen, watched), foreign: [] };
  }

  /** Outputs of the mempool's transactions into watched addresses (block number -1, no block hash). */
  async pending(watched: WatchedAddresses): Promise<{ transfers: IncomingTransfer[]; txids: ReadonlySet<string> }> {
    const txids = new Set(await this.call<string[]>('getrawmempool'));
    for (const txid of this.mempool.keys()) if (!txids.has(txid)) this.mempool.delete(txid);
    const seen: IncomingTransfer[] = [];
    for (const txid of txids) {
      let outputs = this.mempool.get(txid);
      if (!outputs) {
        try {
          const tx = await this.call<RpcTransaction>('getrawtransaction', [txid, true]);
          outputs = tx.vout.flatMap((o) => {
            const address = soleAddressOf(o.scriptPubKey);
            return address ? [{ address, units: unitsOf(o.value), n: o.n }] : [];
          });
        } catch (e) {
          if (e instanceof UtxoRpcError && e.code === NOT_FOUND) continue; // mined or evicted since getrawmempool
          throw e;
        }
        this.mempool.set(txid, outputs);
      }
      for (const o of outputs) {
        if (o.units === 0n || (watched.addresses && !watched.addresses.has(o.address))) continue;
        seen.push({ to: o.address, asset: null, units: o.units, txHash: txid, output: String(o.n), position: o.n, blockNumber: -1n, blockHash: '' });
      }
    }
    return { transfers: await this.ours(seen, watched), txids };
  }

  private outputsOf(txid: string, vout: RpcOutput[], watched: WatchedAddresses, blockNumber: bigint, blockHash: string): IncomingTransfer[] {
    const out: IncomingTransfer[] = [];
    for (const o of vout) {
      const address = soleAddressOf(o.scriptPubKey);
      if (!address || (watched.addresses && !watched.addresses.has(address))) continue;
      const units = unitsOf(o.value);
      if (units === 0n) continue;
      out.push({ to: address, asset: null, units, txHash: txid, output: String(o.n), position: o.n, blockNumber, blockHash });
    }
    return out;
  }

  /** Of the outputs seen, those into our addresses (the large set is asked once for all the recipients). */
  private async ours(seen: IncomingTransfer[], watched: WatchedAddresses): Promise<IncomingTransfer[]> {
    if (!seen.length || watched.addresses) return seen;
    const ours = await watched.resolve([...new Set(seen.map((t) => t.to))]);
    return seen.filter((t) => ours.has(t.to));
  }

  /** Whether a block is on the active chain (a block taken back by a reorg or invalidateblock answers -1 confirmations). */
  async onChain(blockHash: string): Promise<boolean> {
    try {
      return (await this.call<{ confirmations: number }>('getblockheader', [blockHash])).confirmations >= 0;
    } catch (e) {
      if (e instanceof UtxoRpcError && e.code === NOT_FOUND) return false;
      throw e;
    }
  }

  /** The node shows a transaction in its mempool (getrawtransaction answers it without a block). */
  readonly showsUnmined = true;

  /**
   * A reported payout (a refund paid out from the merchant's wallet): `getrawtransaction` finds it in
   * the mempool (no block yet) or, mined, through the node's `txindex=1`; its block's height from
   * `getblockheader`. Its transfers are the outputs paying `to` (each counted on its own, by its
   * number). Null when the node does not know it, or only in a block taken back. A UTXO transaction
   * in a block always succeeded; the chain has no tokens, so `token` is always null here.
   */
  async transactionTransfers(txHash: string, to: string, token: string | null): Promise<PayoutTransaction | null> {
    if (!/^[0-9a-fA-F]{64}$/.test(txHash)) return null;
    let tx: RpcTransaction;
    try {
      tx = await this.call<RpcTransaction>('getrawtransaction', [txHash.toLowerCase(), true]);
    } catch (e) {
      if (e instanceof UtxoRpcError && e.code === NOT_FOUND) return null;
      throw e;
    }
    if (!tx.blockhash) return { blockNumber: null, success: true, transfers: [] };
    if (!tx.confirmations || tx.confirmations <= 0) return null;
    const header = await this.call<{ height: number; confirmations: number }>('getblockheader', [tx.blockhash]);
    if (header.confirmations <= 0) return null;
    const transfers = token === null ? outputsPaidTo(tx.vout, to) : [];
    const byDestination = transfers.length > 0 && (await this.spendsFrom(tx, to));
    return { blockNumber: BigInt(header.height), success: true, transfers, ...(byDestination ? { byDestination } : {}) };
  }

  /**
   * Whether one of a transaction's inputs spends an output paid to `to` (its previous transaction read
   * through `txindex`): the destination's own transaction, its change coming back to it, is no payout.
   */
  private async spendsFrom(tx: RpcTransaction, to: string): Promise<boolean> {
    const key = `${tx.txid} ${to}`;
    const known = this.spends.get(key);
    if (known !== undefined) return known;
    let found = false;
    for (const input of tx.vin ?? []) {
      if (!input.txid || input.vout === undefined) continue; // a coinbase input spends nothing
      const previous = await this.call<RpcTransaction>('getrawtransaction', [input.txid, true]);
      const spent = previous.vout.find((o) => o.n === input.vout);
      if (spent && outputsPaidTo([spent], to).length > 0) {
        found = true;
        break;
      }
    }
    this.spends.set(key, found);
    if (this.spends.size > SPENDS_KEPT) this.spends.delete(this.spends.keys().next().value!);
    return found;
  }

  /** The block a transaction is in on the active chain now; null when it is in none (in the mempool, or unknown to the node). */
  async transactionBlock(txHash: string): Promise<bigint | null> {
    try {
      const tx = await this.call<RpcTransaction>('getrawtransaction', [txHash, true]);
      if (!tx.blockhash || !tx.confirmations || tx.confirmations <= 0) return null;
      const header = await this.call<{ height: number; confirmations: number }>('getblockheader', [tx.blockhash]);
      return header.confirmations > 0 ? BigInt(header.height) : null;
    } catch (e) {
      if (e instanceof UtxoRpcError && e.code === NOT_FOUND) return null;
      throw e;
    }
  }
}
