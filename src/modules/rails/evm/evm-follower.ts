import type { Address, PublicClient } from 'viem';
import { addressTopic, BloomKey, bloomKey, bloomMayHold, hexBytes } from './logs-bloom';
import { viem } from './viem';
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

const parseTransfer = () => viem().parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
let transfer: ReturnType<typeof parseTransfer> | null = null;
/** The ERC-20 Transfer event, parsed at its first use (viem loads then). */
const TRANSFER = () => (transfer ??= parseTransfer());

/**
 * Whether a block's bloom may hold a Transfer log of one of `tokens` to one of `watched` (any recipient when
 * the watched set is too large to list). Without a bloom nothing is ruled out.
 */
function mayHoldTransfers(bloom: Uint8Array | undefined, tokens: readonly string[], watched: ReadonlySet<string> | null): boolean {
  if (!bloom) return true;
  if (!bloomMayHold(bloom, transferTopicKey())) return false;
  if (!tokens.some((t) => bloomMayHold(bloom, keyOf(t, hexBytes)))) return false;
  if (watched === null) return true;
  for (const address of watched) if (bloomMayHold(bloom, keyOf(address, addressTopic))) return true;
  return false;
}

/** Blocks asked for their logs by hash at once. */
const BY_HASH_AT_ONCE = 8;

let transferKey: BloomKey | null = null;
const transferTopicKey = (): BloomKey => (transferKey ??= bloomKey(hexBytes(viem().toEventSelector(TRANSFER()))));
/** Bloom keys of addresses and token contracts, kept between steps (the watched set changes little). */
const keys = new Map<string, BloomKey>();
function keyOf(address: string, bytes: (address: string) => Uint8Array): BloomKey {
  const id = `${bytes === hexBytes ? 'contract' : 'topic'}:${address.toLowerCase()}`;
  let key = keys.get(id);
  if (!key) {
    if (keys.size >= 100_000) keys.clear();
    key = bloomKey(bytes(address));
    keys.set(id, key);
  }
  return key;
}

/**
 * Follows one EVM network over JSON-RPC with viem. A range is read in this order: its blocks one by
 * one (headers with hashes and parent hashes, and their transactions for native transfers); then the
 * Transfer logs of the configured token contracts (eth_getLogs over the range); then the receipts of
 * native transfers into our addresses (only a transaction that succeeded moved value; value moved by a
 * contract call to our address is not seen: docs/rails.md). Each transfer carries the block hash the
 * node gave with it, and the watcher checks those against the blocks read first. A log from any other
 * contract (a node that ignored the address filter) is never a transfer: it is returned as foreign.
 * A node behind a load balancer may answer the range's logs from a backend that has not reached its last
 * blocks yet, with nothing for them rather than an error: a block whose logs bloom may hold a Transfer
 * of a configured token to a watched address, and for which the answer has no log, is asked again by
 * its hash (EIP-234), which a backend without that block refuses (the step fails and is read again).
 * viem's own retries are off: the watcher retries with backoff and counts the faults.
 */
export class EvmFollower implements ChainFollower {
  private readonly client: PublicClient;
  /** How many blocks were asked for their logs again by hash because the range's answer had none for them (for tests and metrics). */
  crossChecked = 0;

  constructor(rpcUrl: string, timeoutMs = 10_000) {
    const { createPublicClient, http } = viem();
    this.client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0, timeout: timeoutMs }) });
  }

  /** The chain id (eth_chainId), as a decimal string. */
  async chain(): Promise<string> {
    return String(await this.client.getChainId());
  }

  async head(): Promise<bigint> {
    return this.client.getBlockNumber({ cacheTime: 0 });
  }

  async block(number: bigint): Promise<BlockRef> {
    const b = await this.client.getBlock({ blockNumber: number });
    if (b.hash === null) throw new Error(`block ${number} is still pending`);
    return { number, hash: b.hash.toLowerCase(), parentHash: b.parentHash.toLowerCase(), timestamp: b.timestamp };
  }

  async scan(range: { from: bigint; to: bigint }, watched: WatchedAddresses, tokens: readonly string[]): Promise<ScannedRange> {
    const nothingWatched = watched.addresses !== null && watched.addresses.size === 0;
    const blocks: BlockRef[] = [];
    const seen: IncomingTransfer[] = [];
    const foreign: ScannedRange['foreign'] = [];
    /** Each block's logs bloom, for the check of the logs answer (step 2). */
    const blooms = new Map<bigint, Uint8Array>();
    // 1. The blocks, before anything else of the range.
    for (let n = range.from; n <= range.to; n++) {
      const block = await this.client.getBlock({ blockNumber: n, includeTransactions: !nothingWatched });
      if (block.hash === null) throw new Error(`block ${n} is still pending`);
      const ref = { number: n, hash: block.hash.toLowerCase(), parentHash: block.parentHash.toLowerCase(), timestamp: block.timestamp };
      blocks.push(ref);
      if (block.logsBloom) blooms.set(n, hexBytes(block.logsBloom));
      for (const tx of block.transactions) {
        if (typeof tx === 'string') continue;
        const to = tx.to?.toLowerCase();
        if (!to || tx.value === 0n || (watched.addresses && !watched.addresses.has(to))) continue;
        seen.push({ to, asset: null, units: tx.value, txHash: tx.hash.toLowerCase(), output: 'native', position: null, blockNumber: n, blockHash: ref.hash });
      }
    }
    if (nothingWatched) return { blocks, transfers: [], foreign };
    // 2. The token transfers of the range, each with the block hash the node gives it.
    if (tokens.length) {
      const configured = new Set(tokens.map((t) => t.toLowerCase()));
      const filter = { address: tokens as Address[], event: TRANSFER(), args: watched.addresses ? { to: [...watched.addresses] as Address[] } : undefined };
      const logs = await this.client.getLogs({ ...filter, fromBlock: range.from, toBlock: range.to });
      const answered = new Set(logs.map((log) => log.blockNumber));
      const doubtful = blocks.filter((b) => !answered.has(b.number) && mayHoldTransfers(blooms.get(b.number), tokens, watched.addresses));
      // A few at a time: on a busy chain whose blooms are nearly full most blocks of a catch-up are doubtful.
      for (let i = 0; i < doubtful.length; i += BY_HASH_AT_ONCE) {
        const batch = doubtful.slice(i, i + BY_HASH_AT_ONCE);
        this.crossChecked += batch.length;
        const answers = await Promise.all(batch.map((block) => this.client.getLogs({ ...filter, blockHash: block.hash as `0x${string}` })));
        for (const answer of answers) logs.push(...answer);
      }
      for (const log of logs) {
        const to = log.args.to?.toLowerCase();
        if (!to || log.removed || log.blockNumber === null || log.transactionHash === null || log.logIndex === null || !log.args.value) continue;
        const contract = log.address.toLowerCase();
        if (!configured.has(contract)) {
          if (!watched.addresses || watched.addresses.has(to)) foreign.push({ asset: contract, txHash: log.transactionHash.toLowerCase() });
          continue;
        }
        seen.push({
          to,
          asset: contract,
          units: log.args.value,
          txHash: log.transactionHash.toLowerCase(),
          output: String(log.logIndex),
          position: log.logIndex,
          blockNumber: log.blockNumber,
          blockHash: (log.blockHash ?? '').toLowerCase(),
        });
      }
    }
    if (!seen.length) return { blocks, transfers: [], foreign };
    // 3. Which recipients are ours, and whether each native transfer succeeded (in the block read).
    const ours = watched.addresses ?? (await watched.resolve([...new Set(seen.map((t) => t.to))]));
    const transfers: IncomingTransfer[] = [];
    for (const transfer of seen) {
      if (!ours.has(transfer.to)) continue;
      if (transfer.asset === null) {
        const receipt = await this.client.getTransactionReceipt({ hash: transfer.txHash as `0x${string}` });
        if (receipt.status !== 'success') continue;
        transfers.push({ ...transfer, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash.toLowerCase() });
      } else transfers.push(transfer);
    }
    return { blocks, transfers, foreign };
  }

  /** The node shows a pending transaction (eth_getTransactionByHash answers it with no block). */
  readonly showsUnmined = true;

  /** A transaction mined again after a reorg is executed again, against the new fork's state. */
  readonly rerunsTransactions = true;

  /**
   * A reported payout: the transaction by its hash (pending ones included), then, once mined, its
   * receipt. To the destination count the transaction's own value (a coin payout) or each Transfer log
   * of the token contract (a token payout); value moved by a contract call is not seen. A transaction the
   * node shows in a block but without its receipt is unknown, never waiting unmined: such an answer comes
   * from a node that lacks the receipt (pruned, an index behind, one of a load-balanced set), and taken as
   * unmined it would let an old transfer to the address pass for a new payout.
   */
  async transactionTransfers(txHash: string, to: string, token: string | null): Promise<PayoutTransaction | null> {
    const hash = txHash as `0x${string}`;
    let tx;
    try {
      tx = await this.client.getTransaction({ hash });
    } catch (e) {
      if ((e as Error).name === 'TransactionNotFoundError') return null;
      throw e;
    }
    if (tx.blockNumber === null) return { blockNumber: null, success: true, transfers: [] };
    let receipt;
    try {
      receipt = await this.client.getTransactionReceipt({ hash });
    } catch (e) {
      // Mined, but the node gives no receipt: unknown until it does (asked again, within the grace).
      if ((e as Error).name === 'TransactionReceiptNotFoundError') return null;
      throw e;
    }
    const target = to.toLowerCase();
    const transfers: PayoutTransfer[] = [];
    // Tokens leaving the destination: the destination acting in the transaction, whoever sent it (a contract
    // wallet's swap or its transfer to itself is sent by its owner or a relayer, not from its address).
    let fromDestination = false;
    if (receipt.status === 'success') {
      const tokenLogs = viem().parseEventLogs({ abi: [TRANSFER()], logs: receipt.logs, eventName: 'Transfer', strict: true });
      fromDestination = tokenLogs.some((log) => log.args.from.toLowerCase() === target);
      if (token === null) {
        if (tx.to?.toLowerCase() === target && tx.value > 0n) transfers.push({ output: 'native', units: tx.value });
      } else {
        for (const log of tokenLogs) {
          if (log.address.toLowerCase() !== token.toLowerCase() || log.args.to.toLowerCase() !== target || log.logIndex === null) continue;
          transfers.push({ output: String(log.logIndex), units: log.args.value });
        }
      }
    }
    const byDestination = transfers.length > 0 && (tx.from.toLowerCase() === target || fromDestination);
    return { blockNumber: receipt.blockNumber, success: receipt.status === 'success', transfers, ...(byDestination ? { byDestination } : {}) };
  }

  /** Whether a transaction is in the canonical chain now, and in which block (with `succeeded`, only where it succeeded). */
  async transactionBlock(txHash: string, _seenIn?: bigint, options: TransactionBlockOptions = {}): Promise<bigint | null> {
    try {
      const receipt = await this.client.getTransactionReceipt({ hash: txHash as `0x${string}` });
      if (options.succeeded && receipt.status !== 'success') return null;
      return receipt.blockNumber;
    } catch (e) {
      if ((e as Error).name === 'TransactionReceiptNotFoundError') return null;
      throw e;
    }
  }
}
