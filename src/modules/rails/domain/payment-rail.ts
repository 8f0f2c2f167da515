/**
 * The port every chain adapter implements (evm/ today; UTXO chains, Tron and Solana later as their
 * own folders). Invoices and payments never see it: the rails module hands out deposit addresses
 * through it and its watcher reports what it finds through the payments module's public command.
 */
export const CHAIN_FAMILIES = ['evm'] as const;
export type ChainFamily = (typeof CHAIN_FAMILIES)[number];

/** A watch-only account key as the service keeps it (never a private key). */
export interface AccountKey {
  /** The extended public key as the merchant's wallet exported it. */
  text: string;
  /** Address at index 0 of the receive chain, for the merchant to compare with their wallet. */
  firstAddress: string;
  /**
   * What identifies the key whatever its serialization: a hash of the chain family, the public key
   * and the chain code (not the depth, parent fingerprint, child number or version bytes, which a
   * wallet may export differently for the same key). One address-index counter per fingerprint.
   */
  fingerprint: string;
}

export type AccountKeyCheck = { ok: true; key: AccountKey } | { ok: false; problem: string };

/** A payment request a wallet app can open: what to send, where, on which chain. */
export interface PaymentRequest {
  address: string;
  chainId: number;
  /** Amount in the smallest unit of the currency (wei, token units). */
  units: bigint;
  /** Token contract, or null for the network's own coin. */
  token: string | null;
}

/** Keys, addresses and payment requests of one chain family. */
export interface RailKeys {
  readonly family: ChainFamily;
  /** Checks a watch-only account key (format, checksum, depth); a private key or a mnemonic is a problem. */
  checkAccountKey(text: string): AccountKeyCheck;
  /** The fingerprint of an account key that passed checkAccountKey (AccountKey.fingerprint). */
  fingerprint(accountKey: string): string;
  /** The address at `index` of the receive chain of an account key that passed checkAccountKey. */
  deriveAddress(accountKey: string, index: number): string;
  /** The address in the form the chain's users see (checksummed). */
  displayAddress(address: string): string;
  /** A URI a wallet app opens to pay (EIP-681 on EVM chains). */
  paymentUri(request: PaymentRequest): string;
}

/** A block as the watcher remembers it (the cursor, and ancestors for reorg checks). */
export interface BlockRef {
  number: bigint;
  hash: string;
  parentHash: string;
  /** Block time, seconds since the epoch. */
  timestamp: bigint;
}

/** A transfer into one of our addresses, as a chain adapter reports it. */
export interface IncomingTransfer {
  /** Our address that received it (lower case). */
  to: string;
  /** Token contract (lower case), or null for the network's own coin. */
  token: string | null;
  /** Amount in the smallest unit. */
  units: bigint;
  txHash: string;
  /** Index of the token's Transfer log in its block, or null for a native transfer. */
  logIndex: number | null;
  blockNumber: bigint;
  blockHash: string;
}

/**
 * Which addresses are ours. A small set is given whole (`addresses`), so the node can filter on it;
 * a large one is null, and `resolve` is asked which of the recipients seen in the range are ours
 * (an indexed lookup), so a scan costs the same for 1 or 100,000 watched addresses.
 */
export interface WatchedAddresses {
  addresses: ReadonlySet<string> | null;
  resolve(candidates: string[]): Promise<ReadonlySet<string>>;
}

/** What a chain adapter read of one range of blocks, in the order it read it. */
export interface ScannedRange {
  /** Every block of the range, in order, read before anything else of the range. */
  blocks: BlockRef[];
  /** Transfers into our addresses, each with the hash of the block the node said it is in. */
  transfers: IncomingTransfer[];
  /**
   * Transfers of contracts that are not configured tokens (a node that ignores the contract filter
   * of its log query answers them): never counted, reported so the watcher can say so.
   */
  foreign: Array<{ contract: string; txHash: string }>;
}

/**
 * Following one network: its chain id, the head, blocks by number, and what a range of blocks holds
 * for our addresses. Every call may fail (RPC faults); the watcher retries.
 */
export interface ChainFollower {
  /** The chain id the node says it serves. */
  chainId(): Promise<number>;
  head(): Promise<bigint>;
  block(number: bigint): Promise<BlockRef>;
  /**
   * The blocks of [from, to] (headers first), then the transfers of `tokens` and of the network's
   * coin into watched addresses within them. The answer is as the node gave it: the watcher checks
   * that it is one view of one chain (scannedRangeProblem) before it records anything.
   */
  scan(range: { from: bigint; to: bigint }, watched: WatchedAddresses, tokens: readonly string[]): Promise<ScannedRange>;
  /** The block a transaction is in on the canonical chain now, or null when it is in none. */
  transactionBlock(txHash: string): Promise<bigint | null>;
  /**
   * A mined transaction's payment to `to` (any case): the units it moved there of the coin (token
   * null: the transaction's own value) or of the token (its Transfer logs), whether it succeeded, and
   * its block. Null when the node does not know it as mined.
   */
  transactionTransfers(txHash: string, to: string, token: string | null): Promise<{ blockNumber: bigint; success: boolean; units: bigint } | null>;
}
