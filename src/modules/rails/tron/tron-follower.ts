import type {
  BlockRef,
  ChainFollower,
  IncomingTransfer,
  PayoutTransaction,
  PayoutTransfer,
  ScannedRange,
  TransactionBlockOptions,
  WatchedAddresses,
} from '../domain/payment-rail';
import { parseExact } from '../node-json';
import { hexToTron, tronToHex } from './tron-address';
import { JsonRpcClient, JsonRpcError, METHOD_NOT_FOUND } from './tron-json-rpc';

/** When a transfer is final: once the node's `finalized` (solidified) block covers it, or at the section's `confirmations`. */
export type TronFinality = 'solidified' | 'confirmations';

/** keccak-256 of `Transfer(address,address,uint256)`, the first topic of every ERC-20/TRC-20 Transfer log. */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

interface RpcTransaction {
  hash: string;
  from?: string;
  to: string | null;
  value: string;
}
interface RpcBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  transactions: Array<RpcTransaction | string>;
}
interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}
interface RpcReceipt {
  transactionHash: string;
  blockNumber: string;
  blockHash: string;
  status: string;
  logs: RpcLog[];
}

/** A transaction as java-tron's HTTP API shows it: the parts read here. */
interface WalletTransaction {
  raw_data?: { contract?: Array<{ type?: string; parameter?: { value?: { amount?: number | bigint | string; to_address?: string } } }> };
}

/**
 * At most this many TRX-looking transfers of one block are checked one transaction at a time
 * (`/wallet/gettransactionbyid`); with more, the block's transactions are read in one call.
 */
export const TRANSACTION_READS_PER_BLOCK = 3;

/** A non-2xx answer of the node's HTTP API. */
class HttpApiStatusError extends Error {
  constructor(
    path: string,
    readonly status: number,
  ) {
    super(`${path}: the node's HTTP API answered ${status}`);
  }
}

/** Whether the transaction is one TRX transfer (TransferContract) of exactly `units` sun to `to` (a T address). */
function paysTrx(tx: WalletTransaction, to: string, units: bigint): boolean {
  const contract = tx.raw_data?.contract;
  const value = contract?.[0]?.parameter?.value;
  if (!contract || contract.length !== 1 || contract[0].type !== 'TransferContract' || !value?.to_address || value.amount === undefined) return false;
  const paid = value.to_address.toLowerCase();
  return /^41[0-9a-f]{40}$/.test(paid) && hexToTron(`0x${paid.slice(2)}`) === to && BigInt(value.amount) === units;
}

const hex = (n: bigint): string => `0x${n.toString(16)}`;
const lower = (s: string): string => s.toLowerCase();

/**
 * Follows Tron over a java-tron-compatible JSON-RPC endpoint (its eth_* subset; addresses on the wire
 * are 20-byte hex, which the follower turns into the base58 `T...` form the service keeps). Never asks
 * for `pending` (java-tron refuses it). A range is read in this order:
 * 1. its blocks one by one with their transactions: the headers (hashes, parents), TRX sent by a
 *    transaction straight to an address (`to` and `value`), and which transactions call a configured
 *    token contract;
 * 2. the Transfer logs of the configured token contracts over the range (eth_getLogs by contract and
 *    topic; the service picks the recipients itself). java-tron's log index can miss blocks it indexed
 *    before its JSON-RPC was on, so a block holding transactions to a token contract for which the
 *    answer has no log is cross-checked against those transactions' receipts;
 * 3. the receipts of TRX transfers into our addresses (only a transaction that succeeded moved value),
 *    and each one's contract from the node's HTTP API (`/wallet/gettransactionbyid`, or the block's whole
 *    with `/wallet/getblockbynum` past TRANSACTION_READS_PER_BLOCK of them): the JSON-RPC shows a
 *    TRC-10 transfer (a token anyone can issue) with the same `to` and `value` as TRX, so only a
 *    TransferContract of that amount to that address counts. Without the HTTP API no TRX is reported.
 * Receipts come from eth_getBlockReceipts where the node has it, else one eth_getTransactionReceipt per
 * transaction (a node without the method answers -32601 once, and is not asked again). TRX moved by a
 * contract call and TRC-10 tokens are not seen (docs/rails.md). A log of any other contract is never
 * a transfer: it is returned as foreign.
 */
export class TronFollower implements ChainFollower {
  private readonly rpc: JsonRpcClient;
  /** Whether the node has eth_getBlockReceipts (undefined until it was asked once). */
  private blockReceipts: boolean | undefined;
  /** How many blocks were cross-checked against receipts because the log answer had nothing for them (for tests and metrics). */
  crossChecked = 0;

  /** TRX-looking transfers into our addresses the HTTP API showed to be something else (a TRC-10 token...), never counted. */
  notTrx = 0;
  /** Blocks whose transactions were read whole from the HTTP API (more TRX-looking transfers to watched addresses than TRANSACTION_READS_PER_BLOCK). */
  blockReads = 0;
  /** The HTTP API answered getblockbynum as a method it lacks: transactions are read one at a time. */
  blockReadsUnsupported = false;

  /** A transaction mined again after a reorg is executed again, against the new fork's state. */
  readonly rerunsTransactions = true;

  constructor(
    rpcUrl: string,
    private readonly finality: TronFinality,
    private readonly confirmations: number,
    /** The node's HTTP API (`/wallet/gettransactionbyid`); null: TRX transfers are not reported at all. */
    private readonly httpApiUrl: string | null = null,
    private readonly timeoutMs = 10_000,
  ) {
    this.rpc = new JsonRpcClient(rpcUrl, timeoutMs);
  }

  /** The chain id (eth_chainId), as a decimal string. */
  async chain(): Promise<string> {
    return BigInt(await this.rpc.call<string>('eth_chainId')).toString();
  }

  async head(): Promise<bigint> {
    return BigInt(await this.rpc.call<string>('eth_blockNumber'));
  }

  async block(number: bigint): Promise<BlockRef> {
    return refOf(number, await this.rpc.call<RpcBlock | null>('eth_getBlockByNumber', [hex(number), false]));
  }

  /**
   * The highest final block: the node's `finalized` (solidified) block (never above `head`: a step that reads
   * one above it fails and is read again), or with `finality:
   * "confirmations"` the block `confirmations` below the head counting it (head - confirmations + 1): below
   * `head` when the caller read it this step, else below the node's head now.
   */
  async finalized(head?: bigint): Promise<bigint> {
    if (this.finality === 'confirmations') return (head ?? (await this.head())) - BigInt(this.confirmations) + 1n;
    const block = await this.rpc.call<RpcBlock | null>('eth_getBlockByNumber', ['finalized', false]);
    if (!block) throw new Error('the node has no finalized block');
    const final = BigInt(block.number);
    // Above the head read this step, the two answers came from two views of the chain (instances behind a load
    // balancer, one on a fork the other left): nothing is taken as final from them, and the step is read again.
    if (head !== undefined && final > head) throw new Error(`the node's solidified block ${final} is above the head ${head} it answered this step`);
    return final;
  }

  async scan(range: { from: bigint; to: bigint }, watched: WatchedAddresses, tokens: readonly string[]): Promise<ScannedRange> {
    const nothingWatched = watched.addresses !== null && watched.addresses.size === 0;
    const blocks: BlockRef[] = [];
    /** Transfer logs of contracts that are not configured (a node that ignored the address filter), with their recipient. */
    const foreign: Array<{ asset: string; txHash: string; to: string }> = [];
    const contracts = new Map(tokens.map((t) => [lower(tronToHex(t)), t]));
    const natives: IncomingTransfer[] = [];
    /** Block number -> hashes of its transactions that call a configured token contract. */
    const tokenCalls = new Map<bigint, string[]>();

    // 1. The blocks, before anything else of the range.
    for (let n = range.from; n <= range.to; n++) {
      const block = await this.rpc.call<RpcBlock | null>('eth_getBlockByNumber', [hex(n), !nothingWatched]);
      const ref = refOf(n, block);
      blocks.push(ref);
      for (const tx of block!.transactions) {
        if (typeof tx === 'string' || !tx.to) continue;
        const to = lower(tx.to);
        if (contracts.has(to)) tokenCalls.set(n, [...(tokenCalls.get(n) ?? []), lower(tx.hash)]);
        const value = BigInt(tx.value ?? '0x0');
        if (value === 0n || this.httpApiUrl === null) continue;
        natives.push({
          to: hexToTron(to),
          asset: null,
          units: value,
          txHash: lower(tx.hash),
          output: 'native',
          position: null,
          blockNumber: n,
          blockHash: ref.hash,
        });
      }
    }
    if (nothingWatched) return { blocks, transfers: [], foreign: [] };

    // 2. The token transfers of the range, each with the block hash the node gives it.
    const logs: RpcLog[] = [];
    if (contracts.size) {
      const answer = await this.rpc.call<RpcLog[]>('eth_getLogs', [
        { fromBlock: hex(range.from), toBlock: hex(range.to), address: [...contracts.keys()], topics: [TRANSFER_TOPIC] },
      ]);
      logs.push(...answer);
      const answered = new Set(answer.filter((l) => contracts.has(lower(l.address))).map((l) => BigInt(l.blockNumber)));
      for (const [n, calls] of tokenCalls) {
        if (answered.has(n)) continue;
        // Nothing in the answer for a block that calls a token contract: read the calls' receipts.
        this.crossChecked++;
        const receipts = await this.receipts(n, calls);
        for (const hash of calls) {
          const receipt = receipts.get(hash);
          if (!receipt) throw new Error(`no receipt for transaction ${hash} of block ${n}`);
          if (BigInt(receipt.status) === 1n) logs.push(...receipt.logs.filter((l) => lower(l.topics[0] ?? '') === TRANSFER_TOPIC));
        }
      }
    }
    const tokenTransfers: IncomingTransfer[] = [];
    for (const log of logs) {
      if (log.removed || log.topics.length !== 3 || lower(log.topics[0]) !== TRANSFER_TOPIC || !/^0x[0-9a-fA-F]{1,64}$/.test(log.data)) continue;
      const to = hexToTron(`0x${log.topics[2].slice(-40)}`);
      const contract = lower(log.address);
      const asset = contracts.get(contract);
      if (!asset) {
        foreign.push({ asset: hexToTron(contract), txHash: lower(log.transactionHash), to });
        continue;
      }
      const index = Number(BigInt(log.logIndex));
      tokenTransfers.push({
        to,
        asset,
        units: BigInt(log.data),
        txHash: lower(log.transactionHash),
        output: String(index),
        position: index,
        blockNumber: BigInt(log.blockNumber),
        blockHash: lower(log.blockHash),
      });
    }

    // Ours only: the watched set when it is given whole, else the recipients the service resolves.
    const candidates = [...natives, ...tokenTransfers, ...foreign];
    if (!candidates.length) return { blocks, transfers: [], foreign: [] };
    const ours = watched.addresses ?? (await watched.resolve([...new Set(candidates.map((t) => t.to))]));
    const foreignOurs = foreign.filter((f) => ours.has(f.to)).map(({ asset, txHash }) => ({ asset, txHash }));
    const transfers: IncomingTransfer[] = [];

    // 3. Only a TRX transfer whose transaction succeeded moved value; its block is the receipt's.
    const nativeOurs = natives.filter((t) => ours.has(t.to));
    const byBlock = new Map<bigint, IncomingTransfer[]>();
    for (const t of nativeOurs) byBlock.set(t.blockNumber, [...(byBlock.get(t.blockNumber) ?? []), t]);
    for (const [n, list] of byBlock) {
      const receipts = await this.receipts(
        n,
        list.map((t) => t.txHash),
      );
      const succeeded: Array<{ transfer: IncomingTransfer; receipt: RpcReceipt }> = [];
      for (const transfer of list) {
        const receipt = receipts.get(transfer.txHash);
        if (!receipt) throw new Error(`no receipt for transaction ${transfer.txHash} of block ${n}`);
        if (BigInt(receipt.status) === 1n) succeeded.push({ transfer, receipt });
      }
      // More than a few in one block (TRC-10 junk or TRX dust sent in bulk to watched addresses, or a busy
      // merchant): the block's transactions in one call rather than one call each, so what anyone sends costs
      // the step at most a few calls a block, never one per transfer.
      const shown =
        succeeded.length > TRANSACTION_READS_PER_BLOCK && !this.blockReadsUnsupported
          ? await this.blockTransactions(n, lower(succeeded[0].receipt.blockHash))
          : null;
      for (const { transfer, receipt } of succeeded) {
        const tx = shown ? shown.get(transfer.txHash.replace(/^0x/, '')) : await this.walletTransaction(transfer.txHash);
        if (!tx) throw new Error(`the node's HTTP API does not show transaction ${transfer.txHash} in block ${n}; the range is read again`);
        if (!paysTrx(tx, transfer.to, transfer.units)) {
          this.notTrx++;
          continue;
        }
        transfers.push({ ...transfer, blockNumber: BigInt(receipt.blockNumber), blockHash: lower(receipt.blockHash) });
      }
    }
    transfers.push(...tokenTransfers.filter((t) => ours.has(t.to)));
    return { blocks, transfers, foreign: foreignOurs };
  }

  /**
   * Whether a transaction is a TRX transfer (TransferContract) of these units to this address, as the node's
   * HTTP API shows it. java-tron's JSON-RPC writes a TRC-10 transfer (TransferAssetContract, a token anyone
   * can issue) and some other contracts with the same `to` and `value` as a TRX transfer, so the value alone
   * proves nothing.
   */
  private async isTrxTransfer(txHash: string, to: string, units: bigint): Promise<boolean> {
    return paysTrx(await this.walletTransaction(txHash), to, units);
  }

  /** A transaction as the node's HTTP API shows it (`/wallet/gettransactionbyid`); an error when it does not know it. */
  private async walletTransaction(txHash: string): Promise<WalletTransaction> {
    const tx = (await this.httpApi('gettransactionbyid', { value: txHash.replace(/^0x/, '') })) as WalletTransaction;
    if (!tx.raw_data?.contract) throw new Error(`gettransactionbyid: the node's HTTP API does not know ${txHash}`);
    return tx;
  }

  /**
   * The transactions of block `n` as the node's HTTP API shows them (`/wallet/getblockbynum`), by id (hex, no
   * 0x). The block must be the one the receipts named (`hash`): a node that moved to another fork meanwhile
   * fails the step, which reads the range again.
   */
  private async blockTransactions(n: bigint, hash: string): Promise<Map<string, WalletTransaction> | null> {
    this.blockReads++;
    let answer: unknown;
    try {
      answer = await this.httpApi('getblockbynum', { num: Number(n) });
    } catch (error) {
      // A provider whose HTTP API lacks the method (a gateway serving gettransactionbyid alone): one read per
      // transaction, as before, from now on, rather than every step failing on the block.
      if (!(error instanceof HttpApiStatusError) || ![404, 405, 501].includes(error.status)) throw error;
      this.blockReadsUnsupported = true;
      return null;
    }
    const block = answer as { blockID?: string; transactions?: Array<WalletTransaction & { txID?: string }> };
    if (!block.blockID || `0x${block.blockID.toLowerCase()}` !== hash) {
      throw new Error(`getblockbynum: the node's HTTP API shows block ${n} as ${block.blockID ?? 'unknown'}, not ${hash}; the range is read again`);
    }
    return new Map((block.transactions ?? []).filter((tx) => tx.txID).map((tx) => [tx.txID!.toLowerCase(), tx]));
  }

  /** One call to the node's HTTP API, its answer read exactly (an amount past 2^53 sun, 9 billion TRX, is not rounded through a float). */
  private async httpApi(path: string, body: unknown): Promise<unknown> {
    const response = await fetch(`${this.httpApiUrl}/wallet/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!response.ok) throw new HttpApiStatusError(path, response.status);
    return parseExact(await response.text());
  }

  /**
   * A reported payout to `to` (a base58 `T...` address): the block of its receipt, whether it succeeded,
   * and what it paid that address in the asked asset. A TRC-20 token: each Transfer log of the token's
   * contract in the receipt whose recipient is `to` (its log index names it). TRX (token null): the
   * transaction's own value when it is sent straight to `to`, counted only when the node's HTTP API shows
   * a TransferContract of that amount to that address, as the scan counts TRX (a TRC-10 transfer looks
   * the same on the JSON-RPC); without the HTTP API no TRX is seen. java-tron shows no transaction before
   * it is in a block, so an unknown hash is taken for a while (no `showsUnmined`). A transaction the node
   * shows without its receipt is unknown too: such an answer comes from a node that lacks the receipt, never
   * from an unmined payout, and taken as one it would let an old transfer to the address pass for a new payout.
   */
  async transactionTransfers(txHash: string, to: string, token: string | null): Promise<PayoutTransaction | null> {
    const receipt = await this.rpc.call<RpcReceipt | null>('eth_getTransactionReceipt', [txHash]);
    if (!receipt || !receipt.blockNumber) return null;
    const success = BigInt(receipt.status) === 1n;
    const target = lower(tronToHex(to));
    const transfers: PayoutTransfer[] = [];
    let tx: RpcTransaction | null | undefined;
    // Tokens leaving the destination: the destination acting in the transaction, whoever sent it (a call made
    // on its behalf, or its transfer to itself, may be sent by someone else).
    const fromDestination =
      success &&
      receipt.logs.some(
        (log) => !log.removed && log.topics.length === 3 && lower(log.topics[0]) === TRANSFER_TOPIC && `0x${lower(log.topics[1]).slice(-40)}` === target,
      );
    if (success && token === null) {
      tx = await this.rpc.call<RpcTransaction | null>('eth_getTransactionByHash', [txHash]);
      const value = BigInt(tx?.value ?? '0x0');
      if (tx?.to && lower(tx.to) === target && value > 0n && this.httpApiUrl !== null && (await this.isTrxTransfer(txHash, to, value))) {
        transfers.push({ output: 'native', units: value });
      }
    } else if (success) {
      const contract = lower(tronToHex(token!));
      for (const log of receipt.logs) {
        if (log.removed || lower(log.address) !== contract || log.topics.length !== 3 || lower(log.topics[0]) !== TRANSFER_TOPIC) continue;
        if (!/^0x[0-9a-fA-F]{1,64}$/.test(log.data) || `0x${lower(log.topics[2]).slice(-40)}` !== target) continue;
        transfers.push({ output: String(Number(BigInt(log.logIndex))), units: BigInt(log.data) });
      }
    }
    // Who sent it matters only when it pays the destination (the payer's own transaction is no payout).
    if (transfers.length > 0 && tx === undefined) tx = await this.rpc.call<RpcTransaction | null>('eth_getTransactionByHash', [txHash]);
    const byDestination = transfers.length > 0 && ((!!tx?.from && lower(tx.from) === target) || fromDestination);
    return { blockNumber: BigInt(receipt.blockNumber), success, transfers, ...(byDestination ? { byDestination } : {}) };
  }

  /** Whether a transaction is in the node's chain now, and in which block (with `succeeded`, only where it succeeded: status 1). */
  async transactionBlock(txHash: string, _seenIn?: bigint, options: TransactionBlockOptions = {}): Promise<bigint | null> {
    const receipt = await this.rpc.call<RpcReceipt | null>('eth_getTransactionReceipt', [txHash]);
    if (!receipt || !receipt.blockNumber) return null;
    if (options.succeeded && !(/^0x[0-9a-fA-F]+$/.test(receipt.status) && BigInt(receipt.status) === 1n)) return null;
    return BigInt(receipt.blockNumber);
  }

  /** The receipts of some transactions of one block, by hash: the block's receipts at once where the node can. */
  private async receipts(block: bigint, hashes: readonly string[]): Promise<Map<string, RpcReceipt>> {
    const wanted = new Set(hashes);
    const out = new Map<string, RpcReceipt>();
    if (this.blockReceipts !== false) {
      try {
        const all = await this.rpc.call<RpcReceipt[] | null>('eth_getBlockReceipts', [hex(block)]);
        this.blockReceipts = true;
        for (const r of all ?? []) if (wanted.has(lower(r.transactionHash))) out.set(lower(r.transactionHash), r);
        return out;
      } catch (e) {
        if (!(e instanceof JsonRpcError) || e.code !== METHOD_NOT_FOUND) throw e;
        this.blockReceipts = false;
      }
    }
    for (const hash of wanted) {
      const receipt = await this.rpc.call<RpcReceipt | null>('eth_getTransactionReceipt', [hash]);
      if (receipt) out.set(hash, receipt);
    }
    return out;
  }
}

function refOf(number: bigint, block: RpcBlock | null): BlockRef {
  if (!block) throw new Error(`block ${number} is not known to the node yet`);
  if (BigInt(block.number) !== number) throw new Error(`asked for block ${number}, the node answered block ${BigInt(block.number)}`);
  return { number, hash: lower(block.hash), parentHash: lower(block.parentHash), timestamp: BigInt(block.timestamp) };
}
