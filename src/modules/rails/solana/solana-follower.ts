import type { Address } from '@solana/kit';
import type { BlockRef, ChainFollower, IncomingTransfer, PayoutTransaction, ScannedRange, WatchedAddresses } from '../domain/payment-rail';
import { joinPaymentKey, splitPaymentKey } from './solana-keys';
import { solanaToken } from './solana-libs';
import { SolanaRpc } from './solana-rpc';

/** getSignaturesForAddress's largest page. */
export const SIGNATURE_PAGE = 1000;

interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
  blockTime?: number | null;
}
interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}
interface ParsedTransaction {
  slot: number;
  blockTime: number | null;
  meta: {
    err: unknown;
    preBalances: number[];
    postBalances: number[];
    preTokenBalances?: TokenBalance[] | null;
    postTokenBalances?: TokenBalance[] | null;
  } | null;
  transaction: { signatures: string[]; message: { accountKeys: Array<{ pubkey: string } | string> } };
}

/** A slot as the watcher's block: slots have no hash the watcher needs, their number names them. */
export function slotRef(slot: bigint, timestamp = 0n): BlockRef {
  return { number: slot, hash: `slot:${slot}`, parentHash: `slot:${slot - 1n}`, timestamp };
}

const accountKeysOf = (tx: ParsedTransaction): string[] => tx.transaction.message.accountKeys.map((k) => (typeof k === 'string' ? k : k.pubkey));

/** What a transaction added to an account's lamports (negative when it lost some), or null when the account is not in it. */
export function lamportsDelta(tx: ParsedTransaction, account: string): bigint | null {
  const index = accountKeysOf(tx).indexOf(account);
  if (index < 0 || !tx.meta) return null;
  return BigInt(tx.meta.postBalances[index] ?? 0) - BigInt(tx.meta.preBalances[index] ?? 0);
}

/** What a transaction added to a token account's balance in a mint (from pre/post token balances; missing before = 0). */
export function tokenDelta(tx: ParsedTransaction, tokenAccount: string, mint: string): bigint {
  const index = accountKeysOf(tx).indexOf(tokenAccount);
  if (index < 0 || !tx.meta) return 0n;
  const of = (list: TokenBalance[] | null | undefined): bigint => {
    const entry = (list ?? []).find((b) => b.accountIndex === index && b.mint === mint);
    return entry ? BigInt(entry.uiTokenAmount.amount) : 0n;
  };
  return of(tx.meta.postTokenBalances) - of(tx.meta.preTokenBalances);
}

/**
 * Follows Solana over its JSON-RPC. Slots are the watcher's blocks (numbered, no hash to follow: a slot's
 * "hash" is its number); the head is the `confirmed` slot, so a payment is seen (PENDING) once confirmed,
 * and the final block is the slot of the section's commitment (`finalized` by default), which completes it.
 *
 * A range of slots is read by account, never by payment address: each wallet that payment addresses were
 * handed out from, and its associated token account of each configured mint (a few accounts, whatever the
 * number of open invoices), with getSignaturesForAddress (newest first, pages of 1000 with `before`, and
 * `until` the newest signature the previous range ended on, so a quiet wallet costs one call a step). Each
 * successful transaction in the range is read once (getTransaction, jsonParsed; one the node lists but does not
 * return, or returns in another slot, fails the scan, so the whole range is read again) and its account keys are
 * matched against the watched payment keys (wallet + reference): a transfer counts for a reference of that
 * wallet, by what the wallet's lamports (SOL) or its associated token account's balance in the mint (pre
 * and post token balances) gained. What a transaction without a watched reference of the wallet gives the
 * wallet (typed by hand, sent from an exchange, a reference never handed out) is reported `toWallet`: the
 * watcher keeps it as an unmatched transfer of the wallet's organization. The polled wallets are the mode's
 * registered ones and those of still-watched payment addresses (`WatchedAddresses.accounts`).
 *
 * Slots have no hash, so the reorg check cannot see a confirmed transaction whose fork died:
 * `rechecksTransactions` has the watcher ask getSignatureStatuses again before a payment completes, and a
 * signature the node no longer knows once the commitment covers its slot is settled as a reorg's.
 */
export class SolanaFollower implements ChainFollower {
  readonly rpc: SolanaRpc;
  readonly rechecksTransactions = true;
  private readonly atas = new Map<string, string>();
  /** Per polled account: the newest signature at or below the last range's end, and that end. */
  private readonly until = new Map<string, { signature: string; to: bigint }>();

  constructor(
    rpcUrl: string,
    private readonly commitment: 'finalized' | 'confirmed',
    timeoutMs?: number,
  ) {
    this.rpc = new SolanaRpc(rpcUrl, timeoutMs);
  }

  chain(): Promise<string> {
    return this.rpc.call<string>('getGenesisHash');
  }

  async head(): Promise<bigint> {
    return BigInt(await this.rpc.call<number>('getSlot', [{ commitment: 'confirmed' }]));
  }

  async finalized(): Promise<bigint> {
    return BigInt(await this.rpc.call<number>('getSlot', [{ commitment: this.commitment }]));
  }

  block(number: bigint): Promise<BlockRef> {
    return Promise.resolve(slotRef(number));
  }

  /** The associated token account of a wallet for a mint (SPL Token program), derived once. */
  async tokenAccount(wallet: string, mint: string): Promise<string> {
    const key = `${wallet}/${mint}`;
    let found = this.atas.get(key);
    if (!found) {
      const { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } = solanaToken();
      [found] = await findAssociatedTokenPda({ owner: wallet as Address, mint: mint as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
      this.atas.set(key, found);
    }
    return found;
  }

  /** The successful signatures of an account in [from, to], newest first as the node gives them. */
  private async signatures(account: string, from: bigint, to: bigint): Promise<SignatureInfo[]> {
    const cached = this.until.get(account);
    const until = cached && cached.to === from - 1n ? cached.signature : undefined;
    const found: SignatureInfo[] = [];
    let newestInRange: string | undefined;
    let before: string | undefined;
    for (;;) {
      const page = await this.rpc.call<SignatureInfo[]>('getSignaturesForAddress', [
        account,
        { limit: SIGNATURE_PAGE, commitment: 'confirmed', ...(before ? { before } : {}), ...(until ? { until } : {}) },
      ]);
      let older = false;
      for (const s of page) {
        const slot = BigInt(s.slot);
        if (slot > to) continue;
        if (slot < from) {
          older = true;
          break;
        }
        newestInRange ??= s.signature;
        if (s.err === null || s.err === undefined) found.push(s);
      }
      if (older || page.length < SIGNATURE_PAGE) break;
      before = page[page.length - 1].signature;
    }
    const next = newestInRange ?? until;
    if (next) this.until.set(account, { signature: next, to });
    else this.until.delete(account);
    return found;
  }

  private transaction(signature: string): Promise<ParsedTransaction | null> {
    return this.rpc.call<ParsedTransaction | null>('getTransaction', [
      signature,
      { encoding: 'jsonParsed', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
    ]);
  }

  async scan(range: { from: bigint; to: bigint }, watched: WatchedAddresses, assets: readonly string[]): Promise<ScannedRange> {
    const blocks: BlockRef[] = [];
    for (let slot = range.from; slot <= range.to; slot++) blocks.push(slotRef(slot));
    const wallets = watched.accounts
      ? await watched.accounts()
      : [...new Set([...(watched.addresses ?? [])].map((key) => splitPaymentKey(key)?.wallet).filter((w): w is string => !!w))];
    // Which wallets each signature was found for (its own account or one of its token accounts).
    const found = new Map<string, { slot: bigint; wallets: Set<string> }>();
    for (const wallet of wallets) {
      const accounts = [wallet, ...(await Promise.all(assets.map((mint) => this.tokenAccount(wallet, mint))))];
      for (const account of accounts) {
        for (const s of await this.signatures(account, range.from, range.to)) {
          const entry = found.get(s.signature) ?? { slot: BigInt(s.slot), wallets: new Set<string>() };
          entry.wallets.add(wallet);
          found.set(s.signature, entry);
        }
      }
    }
    const transfers: IncomingTransfer[] = [];
    const ordered = [...found.entries()].sort(([, a], [, b]) => (a.slot === b.slot ? 0 : a.slot < b.slot ? -1 : 1));
    for (const [signature, { slot: listed, wallets: forWallets }] of ordered) {
      const tx = await this.transaction(signature);
      // The node listed it in this range but does not return it there (not indexed yet on the instance that
      // answered, behind a load balancer; or moved): the range is read again later, never passed over, since
      // the cursor moves past it once this scan returns.
      if (!tx?.meta || BigInt(tx.slot) !== listed) {
        throw new Error(
          `getTransaction does not return ${signature}, listed in slot ${listed} (answered ${tx ? `slot ${tx.slot}` : 'null'}); the range is read again`,
        );
      }
      if (tx.meta.err !== null) continue;
      const slot = listed;
      const keys = accountKeysOf(tx);
      blocks[Number(slot - range.from)] = slotRef(slot, BigInt(tx.blockTime ?? 0));
      for (const wallet of forWallets) {
        const candidates = keys.map((k) => joinPaymentKey(wallet, k));
        const ours = watched.addresses ?? (await watched.resolve(candidates));
        const reference = candidates.find((c) => ours.has(c));
        const credits: Array<{ asset: string | null; units: bigint }> = [];
        const lamports = lamportsDelta(tx, wallet);
        if (lamports !== null && lamports > 0n) credits.push({ asset: null, units: lamports });
        for (const mint of assets) {
          const units = tokenDelta(tx, await this.tokenAccount(wallet, mint), mint);
          if (units > 0n) credits.push({ asset: mint, units });
        }
        const ref = reference ? splitPaymentKey(reference)!.reference : null;
        for (const [i, credit] of credits.entries()) {
          const at = { units: credit.units, txHash: signature, position: null, blockNumber: slot, blockHash: `slot:${slot}` };
          if (ref !== null) {
            // The idempotency key `solana:<signature>:<reference>` (a second asset of the same transaction: `:<mint>` added).
            transfers.push({ ...at, to: reference!, asset: credit.asset, output: i === 0 ? ref : `${ref}:${credit.asset ?? 'native'}` });
          } else {
            // No reference of a watched payment address (none, or one the service never handed out for this
            // wallet): money to the wallet all the same, kept as unmatched under `solana:<signature>:<wallet>:<mint|native>`.
            transfers.push({ ...at, to: wallet, asset: credit.asset, output: `${wallet}:${credit.asset ?? 'native'}`, toWallet: true });
          }
        }
      }
    }
    return { blocks, transfers, foreign: [] };
  }

  async transactionBlock(txHash: string): Promise<bigint | null> {
    const answer = await this.rpc.call<{ value: Array<{ slot: number; confirmationStatus?: string | null } | null> }>('getSignatureStatuses', [
      [txHash],
      { searchTransactionHistory: true },
    ]);
    const status = answer.value[0];
    return status && (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized') ? BigInt(status.slot) : null;
  }

  /**
   * A reported payout: its slot, whether it succeeded, and what it paid `to` in the asset: the lamports
   * `to` gained (SOL, output `native`), or what `to`'s associated token account of the mint gained (SPL,
   * output `spl`). Null when the node does not know the signature (at `confirmed`).
   */
  async transactionTransfers(txHash: string, to: string, token: string | null): Promise<PayoutTransaction | null> {
    const tx = await this.transaction(txHash);
    if (!tx) return null;
    const success = !!tx.meta && tx.meta.err === null;
    let units = 0n;
    if (success) units = token === null ? (lamportsDelta(tx, to) ?? 0n) : tokenDelta(tx, await this.tokenAccount(to, token), token);
    return {
      blockNumber: BigInt(tx.slot),
      success,
      transfers: success && units > 0n ? [{ output: token === null ? 'native' : 'spl', units }] : [],
    };
  }
}
