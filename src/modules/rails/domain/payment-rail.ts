import type { PreflightCheck } from '../../../shared/preflight/preflight-check';
import type { NetworkConfig, RailMode } from './chains-config';

/**
 * The port every chain adapter implements, one folder per chain family (`evm/`, `utxo/`, `tron/`,
 * `solana/`), each registered once in `rail-adapters.ts`. Invoices and payments never see it: the
 * rails module hands out deposit addresses through it and its watcher reports what it finds through
 * the payments module's public command. Nothing here names a family: the registry lists them.
 */
export type ChainFamily = string;

/** A watch-only account key as the service keeps it (never a private key). */
export interface AccountKey {
  /** The key as the merchant's wallet exported it (an extended public key or an output descriptor), trimmed. */
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
  /** The chain the node serves (NetworkConfig.chain). */
  chain: string;
  /** Amount in the smallest unit of the currency (wei, satoshi, token units). */
  units: bigint;
  /** The asset's on-chain reference (a token contract), or null for the network's own coin. */
  asset: string | null;
  /** The asset's decimals, where the standard writes the amount in the coin (Solana Pay); the family's coin's when absent. */
  decimals?: number;
  /** A key the payment must carry to be told apart (a Solana Pay reference), where the family has one. */
  reference?: string | null;
  /** Who asks (the merchant's name) and what for (the invoice), where the standard shows them. */
  label?: string | null;
  message?: string | null;
}

/** Keys, addresses and payment requests of one chain family (on one network and chain, where those matter). */
export interface RailKeys {
  /** Checks a watch-only account key (format, checksum, depth, network); a private key or a mnemonic is a problem. */
  checkAccountKey(text: string): AccountKeyCheck;
  /** The fingerprint of an account key that passed checkAccountKey (AccountKey.fingerprint). */
  fingerprint(accountKey: string): string;
  /** The address at `index` of the receive chain of an account key that passed checkAccountKey, as the watcher matches it. */
  deriveAddress(accountKey: string, index: number): string;
  /** The address in the form the chain's users see (checksummed). */
  displayAddress(address: string): string;
  /** A URI a wallet app opens to pay (the chain's payment-URI standard); null on a chain that has none (Tron). */
  paymentUri(request: PaymentRequest): string | null;
  /**
   * Families whose payment addresses are one wallet plus a reference (Solana Pay): the reference of a
   * payment address, shown beside the wallet's address (displayAddress). Absent elsewhere.
   */
  referenceOf?(address: string): string | null;
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
  /** Our address that received it, as deriveAddress wrote it. */
  to: string;
  /** The asset's on-chain reference (a token contract, lower case), or null for the network's own coin. */
  asset: string | null;
  /** Amount in the smallest unit. */
  units: bigint;
  txHash: string;
  /**
   * Which transfer of the transaction or block it is: the last part of the idempotency key
   * `<network>:<tx_hash>:<output>` (a log index or `native`, an output number).
   */
  output: string;
  /** The output's position shown to people (`log_index` of an unmatched transfer), or null. */
  position: number | null;
  blockNumber: bigint;
  blockHash: string;
  /**
   * A family whose payment addresses are one wallet plus a reference (Solana Pay): true for money that
   * reached a polled wallet itself in a transaction carrying no reference of a watched payment address.
   * `to` is then the wallet; no invoice is known, and the watcher keeps it as an unmatched transfer of the
   * organization that registered the wallet (never a payment). Absent elsewhere.
   */
  toWallet?: boolean;
  /**
   * With `toWallet`: the transaction carries the references of more than one watched payment address of
   * the wallet, so which invoice it pays cannot be told; kept as unmatched for that reason.
   */
  severalReferences?: boolean;
}

/**
 * A polled account that could not be read up to the range's end within a step's budget, and where it
 * stands, in the adapter's own words. The watcher stores it with the cursor and hands it back on the next
 * steps (and after a restart), until the account has caught up.
 */
export interface CarriedAccount {
  account: string;
  position: string;
}

/**
 * Which addresses are ours. A small set is given whole (`addresses`), so the node can filter on it;
 * a large one is null, and `resolve` is asked which of the recipients seen in the range are ours
 * (an indexed lookup), so a scan costs the same for 1 or 100,000 watched addresses.
 */
export interface WatchedAddresses {
  addresses: ReadonlySet<string> | null;
  resolve(candidates: string[]): Promise<ReadonlySet<string>>;
  /**
   * The wallets to poll, for a family whose payment addresses are one wallet plus a reference each
   * (`<wallet>/<reference>`, Solana): the mode's active registered wallets of the family and the wallets
   * the watched addresses pay, a few accounts however many invoices are open, instead of every payment
   * address. Money reaching one of them without a watched reference is reported with `toWallet`.
   */
  accounts?(): Promise<readonly string[]>;
  /** The organization that polls `account` (one of accounts()), for budgets shared by an organization's wallets. */
  accountOwner?(account: string): string | undefined;
}

/** What a chain adapter read of one range of blocks, in the order it read it. */
export interface ScannedRange {
  /** Every block of the range, in order, read before anything else of the range. */
  blocks: BlockRef[];
  /** Transfers into our addresses, in chain order, each with the hash of the block the node said it is in. */
  transfers: IncomingTransfer[];
  /**
   * Transfers of assets that are not configured (a node that ignores a contract filter answers
   * them): never counted, reported so the watcher can say so.
   */
  foreign: Array<{ asset: string; txHash: string }>;
  /**
   * Followers that poll accounts (Solana): transfers in blocks below the range, read now from a busy
   * account's backlog carried over from earlier steps, with those blocks; recorded as the range's are.
   */
  earlier?: { blocks: BlockRef[]; transfers: IncomingTransfer[] };
  /** The accounts still behind after this range (none: every account caught up), stored with the cursor. */
  carried?: CarriedAccount[];
  /**
   * Followers that poll accounts: parts of an account's backlog the node can no longer list (it lost the
   * signature the part stopped at, its ledger pruned), given up so the watcher goes on; logged as errors.
   */
  lost?: Array<{ account: string; before: string }>;
}

/**
 * Following one network: the chain its node serves, the head, blocks by number, and what a range of
 * blocks holds for our addresses. Every call may fail (RPC faults); the watcher retries.
 */
export interface ChainFollower {
  /** The chain the node says it serves, in the form NetworkConfig.chain has. */
  chain(): Promise<string>;
  head(): Promise<bigint>;
  block(number: bigint): Promise<BlockRef>;
  /**
   * The blocks of [from, to] (headers first), then the transfers of `assets` and of the network's
   * coin into watched addresses within them. The answer is as the node gave it: the watcher checks
   * that it is one view of one chain (scannedRangeProblem) before it records anything. `carried`: the
   * accounts the previous step left behind (ScannedRange.carried), to be read on from where they stand.
   */
  scan(range: { from: bigint; to: bigint }, watched: WatchedAddresses, assets: readonly string[], carried?: readonly CarriedAccount[]): Promise<ScannedRange>;
  /**
   * The block a transaction is in on the canonical chain now, or null when it is in none. `seenIn`: the
   * block it was seen in before, when the caller knows it (chains that recheck transactions use it to
   * verify a "none" before it is believed). `succeeded`: null also when it is in a block but failed there
   * (EVM and Tron: its receipt's status; Solana: its status's error), as a transaction mined again after a
   * reorg may (the payer's funds moved first on the new fork): a failed transaction pays nobody.
   */
  transactionBlock(txHash: string, seenIn?: bigint, options?: TransactionBlockOptions): Promise<bigint | null>;
  /**
   * A transaction a merchant reports as a payout to `to` (any case): its block (null while it is not
   * mined), whether it succeeded, and each of its transfers that pays that one address in the asked
   * asset (token null: the transaction's own value; else the token's Transfer logs; on a UTXO chain
   * each output whose script pays exactly that address; on Solana what the address's balance gained,
   * one transfer named after it). Value moved inside contracts is not seen.
   * Null when the node does not know the hash. Every family has it: refunds' payout verification reads it.
   */
  transactionTransfers(txHash: string, to: string, token: string | null): Promise<PayoutTransaction | null>;
  /**
   * True when the node shows a transaction before it is mined (EVM `eth_getTransactionByHash`, a UTXO
   * node's mempool through `getrawtransaction`): a hash it does not know is then no payout. A family
   * without it (no mempool query) takes an unknown hash for a while (REFUND_TX_GRACE_SECONDS).
   */
  readonly showsUnmined?: boolean;
  /**
   * Chains whose transactions run again where a reorg mines them again (EVM and Tron: a contract call is
   * executed against the new fork's state): one may succeed there and yet move another amount or pay
   * someone else (a swap's output, a wallet's "send all"). Before a transfer in doubt keeps its payment
   * because its transaction is in a block again, the watcher then asks `transactionTransfers` whether it
   * still pays the recipient the amount recorded. A UTXO transaction's id fixes its outputs: no need there.
   */
  readonly rerunsTransactions?: boolean;
  /**
   * Chains whose blocks carry no hash the reorg check could compare (Solana's slots are numbers only): a
   * confirmed transaction whose fork dies is not seen by the reorg check, the node simply stops knowing
   * its signature. With it, before a transfer is reported with its required confirmations (or as final),
   * the watcher asks `transactionBlock` again: one the node no longer knows once the final block covers
   * its block is put in doubt and settled as a reorg's (its payment CANCELLED); one not final yet waits.
   * Transfers in doubt are then also settled at the end of every scan that reached the head (such chains'
   * heads move every step, so a step without a new block may never come).
   */
  readonly rechecksTransactions?: boolean;
  /**
   * Chains whose node names a final block (Tron's solidified block, or a fixed depth below the head):
   * the highest block that cannot be taken back. A transfer at or below it counts as final: the watcher
   * reports it with at least its required confirmations (so it completes), whatever its count. `head`: the
   * head the caller read this step; a final block counted as a depth below the head is counted from it, so
   * the two agree (a head read again a moment later would make a transfer final at a lower count).
   */
  finalized?(head?: bigint): Promise<bigint>;
  /**
   * Nodes that can say so: whether a block is on the node's active chain. With it, a chain that got
   * shorter (blocks taken back, none yet in their place) is a reorg; without it, a head below the
   * cursor is a node behind, waited for.
   */
  onChain?(blockHash: string): Promise<boolean>;
  /**
   * Chains with a mempool: the transfers into watched addresses of transactions not yet in a block
   * (block number -1, no block hash), and the ids of every transaction the mempool holds now.
   */
  pending?(watched: WatchedAddresses): Promise<{ transfers: IncomingTransfer[]; txids: ReadonlySet<string> }>;
  /**
   * Nodes that need a transaction index to find a mined transaction by its id (UTXO nodes, `txindex=1`):
   * whether the node keeps one; null when the node cannot say (too old to answer the question).
   */
  transactionIndex?(): Promise<boolean | null>;
}

/**
 * One transfer of a payout transaction to the destination: which, and how much. `output` tells it apart from
 * the transaction's other transfers, whatever their destinations (it keys the transfers payouts hold): a log
 * index, an output number, `native` where a transaction pays one recipient its coin (EVM, Tron), or on Solana,
 * where one transaction pays many, the destination's part (`native:<wallet>`, `spl:<wallet>:<mint>`).
 */
export interface PayoutTransfer {
  output: string;
  /**
   * The name the same transfer had before `output` named it so (Solana's `native` and `spl`, one per
   * transaction, before they named the wallet paid): a payout holding that name may hold this transfer, so
   * no other payout takes it.
   */
  formerly?: string;
  units: bigint;
}

/** A reported payout transaction as a node shows it (ChainFollower.transactionTransfers). */
export interface PayoutTransaction {
  /** The block it is in on the node's chain now; null while it waits unmined (pending, in the mempool). */
  blockNumber: bigint | null;
  success: boolean;
  /** Its transfers to the destination in the asked asset (empty while unmined or when it failed). */
  transfers: PayoutTransfer[];
  /**
   * The destination itself sent it (EVM and Tron: its `from`; Solana: among its signers; UTXO: one of its
   * inputs spends an output of the destination's): the payer's own transaction (a swap, a change output, a
   * transfer to themselves), never a payout to them. Read only when it has transfers to the destination.
   */
  byDestination?: boolean;
}

/** How `ChainFollower.transactionBlock` asks. */
export interface TransactionBlockOptions {
  /** Only a block where the transaction succeeded counts (null for a failed one). */
  succeeded?: boolean;
}

/** A payer's payout address checked for one network: its normalised form, or a problem naming how to fix it. */
export type PayoutAddressCheck = { ok: true; address: string } | { ok: false; problem: string };

/** A reported payout transaction id checked for the family's form: its normalised form, or a problem. */
export type TransactionIdCheck = { ok: true; id: string } | { ok: false; problem: string };

/** What a refund's payout URI asks the merchant's wallet to send. */
export interface PayoutUriRequest {
  /** Network slug (ethereum, bitcoin_cash, tron...). */
  network: string;
  /**
   * The chain the mode's configured node serves (NetworkConfig.chain), or null when the mode has no
   * rail on the network (test mode only: nobody sends it, the merchant simulates the payout).
   */
  chain: string | null;
  /** The destination, as checkPayoutAddress normalised it. */
  address: string;
  /** Amount in the smallest unit. */
  units: bigint;
  /** The same amount in the coin, a decimal string (EIP-681 takes units, BIP21 the coin amount). */
  amount: string;
  /** The token contract, or null for the network's coin. */
  asset: string | null;
}

/** Payout address rules of a network no adapter serves yet: checked for test-mode claims only (no payout is read on it). */
export interface PayoutAddressRule {
  /** The network slugs it checks. */
  readonly networks: readonly string[];
  checkPayoutAddress(network: string, mode: RailMode, address: string): PayoutAddressCheck;
}

/** Where a provider id is paid: its network, and the configured asset slug (null = the network's coin). */
export interface RailRoute {
  network: string;
  asset: string | null;
}

/** What the shared CHAINS_FILE reader hands an adapter: one network's section of one mode. */
export interface SectionInput {
  mode: RailMode;
  network: string;
  value: Record<string, unknown>;
  /** `test.ethereum`: the prefix of every problem's field. */
  path: string;
}

/** What a family's preflight of one network is given besides the network's configuration. */
export interface RailPreflightSettings {
  /** Now, for the age of the node's latest block. */
  now: Date;
  /** Time each call to the node has to answer, in ms. */
  timeoutMs: number;
}

/** One chain family's adapter bundle: everything the rails module needs to serve it. */
export interface RailAdapter {
  readonly family: ChainFamily;
  /** The network slugs it serves (CHAINS_FILE keys; the network part of provider ids). */
  readonly networks: readonly string[];
  /** True when a wallet serves one network (POST /wallets names it); false when one key serves every network of the family. */
  readonly walletPerNetwork: boolean;
  /**
   * The POST /wallets field a wallet of the family is registered by: `xpub` (an account key, the default)
   * or `address` (a family whose wallets have no extended key, Solana: the wallet's address).
   */
  readonly walletField?: 'xpub' | 'address';
  /** Where a catalog provider id is paid on this family, or null when it is not. */
  routeOf(providerId: string): RailRoute | null;
  /** Checks one network's CHAINS_FILE section, pushing problems that name their field; null when it has problems. */
  parseSection(input: SectionInput, problems: string[]): NetworkConfig | null;
  /** The chain a wallet's key belongs to when CHAINS_FILE names none for its network and mode. */
  defaultChain(mode: RailMode, network: string): string;
  /** Keys and addresses for a network (null: a family-wide wallet) on a chain. */
  keys(network: string | null, chain: string): RailKeys;
  /** A follower of one configured network. */
  follower(config: NetworkConfig): ChainFollower;
  /**
   * The go-live checks of one configured network's node (`cli doctor`), asked through the family's own
   * calls: the node answers, serves the configured chain, is synced, and keeps what the watcher needs (a
   * transaction index, where the family needs one). Named `chain.<mode>.<network>.<what>` (checkName);
   * never throws: a node that does not answer is a failed check. Checks every family shares (the
   * confirmations settings, the wallets) are the rails module's, not the adapter's.
   */
  preflight(config: NetworkConfig, settings: RailPreflightSettings): Promise<PreflightCheck[]>;
  /**
   * A payer's refund address on one of its networks, in the mode (live takes mainnet addresses only,
   * test mode test-chain ones only where the family tells them apart), trimmed: its normalised form
   * (checksummed, with its prefix), or a problem naming how to fix it. Never throws.
   */
  checkPayoutAddress(network: string, mode: RailMode, address: string): PayoutAddressCheck;
  /** The payment request a merchant's wallet opens to send a refund (the family's payment-URI standard); null on a chain that has none (Tron). */
  payoutUri(request: PayoutUriRequest): string | null;
  /** A reported payout transaction's id (already trimmed and lower-cased) checked for the family's form, normalised as the follower reads it. */
  checkTransactionId(text: string): TransactionIdCheck;
}
