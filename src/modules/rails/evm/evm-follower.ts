import { Address, createPublicClient, http, parseAbiItem, PublicClient } from 'viem';
import type { BlockRef, ChainFollower, IncomingTransfer, WatchedAddresses } from '../domain/payment-rail';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

/**
 * Follows one EVM network over JSON-RPC with viem. Token transfers are the Transfer logs of the
 * configured token contracts (eth_getLogs over the range); native transfers are the transactions of
 * each block whose `to` is ours, with a value, and whose receipt says they succeeded (value moved by
 * a contract call to our address is not seen: docs/rails.md). viem's own retries are off: the
 * watcher retries with backoff and counts the faults.
 */
export class EvmFollower implements ChainFollower {
  private readonly client: PublicClient;

  constructor(rpcUrl: string, timeoutMs = 10_000) {
    this.client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0, timeout: timeoutMs }) }) as PublicClient;
  }

  async head(): Promise<bigint> {
    return this.client.getBlockNumber({ cacheTime: 0 });
  }

  async block(number: bigint): Promise<BlockRef> {
    const b = await this.client.getBlock({ blockNumber: number });
    if (b.hash === null) throw new Error(`block ${number} is still pending`);
    return { number, hash: b.hash.toLowerCase(), parentHash: b.parentHash.toLowerCase(), timestamp: b.timestamp };
  }

  async transfers(range: { from: bigint; to: bigint }, watched: WatchedAddresses, tokens: readonly string[], native: boolean): Promise<IncomingTransfer[]> {
    if (watched.addresses && watched.addresses.size === 0) return [];
    const seen: IncomingTransfer[] = [];
    if (tokens.length) {
      const logs = await this.client.getLogs({
        address: tokens as Address[], event: TRANSFER, fromBlock: range.from, toBlock: range.to,
        args: watched.addresses ? { to: [...watched.addresses] as Address[] } : undefined,
      });
      for (const log of logs) {
        const to = log.args.to?.toLowerCase();
        if (!to || log.removed || log.blockNumber === null || log.transactionHash === null || log.logIndex === null || !log.args.value) continue;
        seen.push({
          to, token: log.address.toLowerCase(), units: log.args.value, txHash: log.transactionHash.toLowerCase(), logIndex: log.logIndex,
          blockNumber: log.blockNumber, blockHash: (log.blockHash ?? '').toLowerCase(),
        });
      }
    }
    if (native) {
      for (let n = range.from; n <= range.to; n++) {
        const block = await this.client.getBlock({ blockNumber: n, includeTransactions: true });
        for (const tx of block.transactions) {
          const to = tx.to?.toLowerCase();
          if (!to || tx.value === 0n || (watched.addresses && !watched.addresses.has(to))) continue;
          seen.push({ to, token: null, units: tx.value, txHash: tx.hash.toLowerCase(), logIndex: null, blockNumber: n, blockHash: (block.hash ?? '').toLowerCase() });
        }
      }
    }
    if (!seen.length) return [];
    const ours = watched.addresses ?? (await watched.resolve([...new Set(seen.map((t) => t.to))]));
    const found: IncomingTransfer[] = [];
    for (const transfer of seen) {
      if (!ours.has(transfer.to)) continue;
      if (transfer.token === null) {
        // A native transfer moved value only if its transaction succeeded.
        const receipt = await this.client.getTransactionReceipt({ hash: transfer.txHash as `0x${string}` });
        if (receipt.status !== 'success') continue;
      }
      found.push(transfer);
    }
    return found;
  }

  /** Whether a transaction is in the canonical chain now, and in which block. */
  async transactionBlock(txHash: string): Promise<bigint | null> {
    try {
      const receipt = await this.client.getTransactionReceipt({ hash: txHash as `0x${string}` });
      return receipt.blockNumber;
    } catch (e) {
      if ((e as Error).name === 'TransactionReceiptNotFoundError') return null;
      throw e;
    }
  }
}
