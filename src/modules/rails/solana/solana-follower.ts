import type { Address } from '@solana/kit';
import type {
  BlockRef,
  CarriedAccount,
  ChainFollower,
  IncomingTransfer,
  PayoutTransaction,
  ScannedRange,
  TransactionBlockOptions,
  WatchedAddresses,
} from '../domain/payment-rail';
import { joinPaymentKey, splitPaymentKey } from './solana-keys';
import { solanaToken } from './solana-libs';
import { SolanaRpc, SolanaRpcError } from './solana-rpc';

/** getSignaturesForAddress's largest page. */
export const SIGNATURE_PAGE = 1000;

/**
 * How many signatures a step lists for reading: per wallet (its own account and its token accounts together),
 * per organization (all its polled wallets together) and for all wallets. A wallet with more waits for the next
 * steps (the watcher runs them at once, without its pause) while the others go on: one wallet's volume, or junk
 * sent to it, never holds up another's payments, and an organization with many polled wallets (wallets it
 * registered one after another, each still paid by watched addresses) never holds up another organization's.
 */
export interface ReadBudget {
  perWallet: number;
  /** All wallets of one organization (`WatchedAddresses.accountOwner`); unbounded when not given. */
  perOrganization?: number;
  /**
   * Listings (getSignaturesForAddress calls) per organization and step, whatever they list: a quiet account
   * lists nothing and so takes nothing of the signature budgets, but each listing is a call to the node, and
   * an organization that registered wallet after wallet would otherwise make the step ask about every one of
   * them. Its wallets past this are carried (read on in the next steps, from the first one left out).
   * Unbounded when not given.
   */
  perOrganizationListings?: number;
  perStep: number;
  /**
   * Steps in a row that a carried account's `before` may be unknown to the node before that part is given up
   * (ScannedRange.lost): a node that lost the signature (its ledger pruned) would otherwise fail every step
   * of every wallet for good. Default UNKNOWN_BEFORE_STEPS.
   */
  unknownBeforeSteps?: number;
}
export const READ_BUDGET: ReadBudget = { perWallet: 50, perOrganization: 100, perStep: 400, perOrganizationListings: 24 };
/** About ten minutes of steps failing with the watcher's backoff: far longer than an instance behind a load balancer takes to index a signature. */
export const UNKNOWN_BEFORE_STEPS = 30;

/**
 * Where a polled account stands when it is behind the shared cursor: every signature of it in slots up to
 * `readTo` is read (`until` the newest of them, when known). `part`: its signatures in (readTo, part.to]
 * are being read newest first; those older than `before` are still to read, and `top` is the part's newest.
 */
export interface AccountPosition {
  readTo: bigint;
  until?: string;
  part?: { to: bigint; top: string; before: string };
}

/** An account's position as the watcher keeps it (text, stored with the cursor). */
export function writePosition(p: AccountPosition): string {
  return JSON.stringify({ readTo: p.readTo.toString(), until: p.until ?? null, part: p.part ? { ...p.part, to: p.part.to.toString() } : null });
}

export function readPosition(text: string): AccountPosition {
  const raw = JSON.parse(text) as { readTo: string; until: string | null; part: { to: string; top: string; before: string } | null };
  return {
    readTo: BigInt(raw.readTo),
    ...(raw.until ? { until: raw.until } : {}),
    ...(raw.part ? { part: { to: BigInt(raw.part.to), top: raw.part.top, before: raw.part.before } } : {}),
  };
}

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
    preBalances: Array<number | bigint>;
    postBalances: Array<number | bigint>;
    preTokenBalances?: TokenBalance[] | null;
    postTokenBalances?: TokenBalance[] | null;
  } | null;
  transaction: { signatures: string[]; message: { accountKeys: Array<{ pubkey: string; signer?: boolean } | string> } };
}

/** A slot as the watcher's block: slots have no hash the watcher needs, their number names them. */
export function slotRef(slot: bigint, timestamp = 0n): BlockRef {
  return { number: slot, hash: `slot:${slot}`, parentHash: `slot:${slot - 1n}`, timestamp };
}

/** getBlock's answers for a slot with no block on the chain the node follows (skipped, or its fork died). */
const SLOT_SKIPPED = -32007;
const LONG_TERM_SLOT_SKIPPED = -32009;

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
 * The name of what a payout transaction paid a destination wallet, the last part of its key in the payouts'
 * transfers (one transfer pays one payout): `native:<wallet>` for its lamports, `spl:<wallet>:<mint>` for its
 * associated token account of the mint. Before, they were `native` and `spl` whatever the wallet
 * (migrations/payouts/1796008600000-solana-payout-transfers-per-destination rewrote those held then); a
 * transfer still says so (`formerly`), since an instance of the previous version may hold one under that
 * name while an upgrade rolls out.
 */
export function payoutOutput(wallet: string, mint: string | null): string {
  return mint === null ? `native:${wallet}` : `spl:${wallet}:${mint}`;
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
 * A step lists at most a budget of signatures per wallet, per organization and overall, and asks for at most a
 * number of listings per organization however quiet its accounts (`READ_BUDGET`),
 * organizations taking turns first and each one's wallets taking turns within its share: a wallet with more (junk sent to it in bulk) is carried, its accounts' positions handed back to the
 * watcher (`ScannedRange.carried`, stored with the cursor) and read on in the next steps, their transfers
 * reported apart (`ScannedRange.earlier`), while the cursor and the other wallets move on. A transaction naming
 * more than one watched reference of the wallet is money to the wallet (`severalReferences`), no invoice's.
 *
 * Slots have no hash, so the reorg check cannot see a confirmed transaction whose fork died:
 * `rechecksTransactions` has the watcher ask getSignatureStatuses again before a payment completes, and a
 * signature the node no longer knows once the commitment covers its slot is settled as a reorg's.
 */
export class SolanaFollower implements ChainFollower {
  readonly rpc: SolanaRpc;
  readonly rechecksTransactions = true;
  private readonly atas = new Map<string, string>();
  /** Per polled account that kept up: the newest signature at or below the last range's end, and that end. */
  private readonly until = new Map<string, { signature: string; to: bigint }>();
  /** Which organization comes first in the next step (and which of each wallet's accounts). */
  private turn = 0;
  /** Per organization, which of its wallets comes first in the next step: the first one the last step left out. */
  private readonly firstWallet = new Map<string, number>();
  /** getSignaturesForAddress calls made (counted per organization against `perOrganizationListings`). */
  private listings = 0;
  /** Steps in a row each carried part's `before` was unknown to the node, by `<account> <before>`. */
  private readonly unknownBefore = new Map<string, number>();
  /** The parts given up in the scan under way (ScannedRange.lost). */
  private lost: Array<{ account: string; before: string }> = [];

  constructor(
    rpcUrl: string,
    private readonly commitment: 'finalized' | 'confirmed',
    timeoutMs?: number,
    private readonly budget: ReadBudget = READ_BUDGET,
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

  /**
   * One page of an account's signatures, newest first (`before`/`until` exclusive), from a node that has reached
   * slot `to`, the end of the range the step reads (`minContextSlot`). Behind a load balancer the head comes from
   * one node and this list may come from another a few slots behind: without the bound, that node would list
   * nothing of the slots it has not reached yet, the account would be taken as read up to `to`, and a healthy
   * node listing those payments next step would see them as already read, so they would never be recorded. With
   * it, a node behind answers an error (-32016, "Minimum context slot has not been reached"): the step fails
   * and is read again, from where it stood, once the node has caught up.
   */
  private page(account: string, limit: number, to: bigint, before?: string, until?: string): Promise<SignatureInfo[]> {
    this.listings++;
    return this.rpc.call<SignatureInfo[]>('getSignaturesForAddress', [
      account,
      { limit, commitment: 'confirmed', minContextSlot: Number(to), ...(before ? { before } : {}), ...(until ? { until } : {}) },
    ]);
  }

  /**
   * The page of an account's signatures older than `before` (one a previous page listed), down to `until`. A
   * node that does not know `before` (an instance behind the load balancer that has not indexed it yet, or that
   * lost it) answers an empty page, exactly as when nothing is left above `until`: taken as the end, the rest of
   * the range below `before` would never be read, and the account's position would move past it. So an empty
   * page is the end only when the node knows `before` (getSignatureStatuses, asked only then); otherwise the step
   * fails and is read again from where it stood.
   */
  private async below(account: string, limit: number, to: bigint, before: string, until?: string): Promise<SignatureInfo[]> {
    const page = await this.page(account, limit, to, before, until);
    const key = `${account} ${before}`;
    if (!page.length && (await this.transactionBlock(before)) === null) {
      // A signature the node keeps not knowing, step after step, is one it lost (a ledger pruned below it): the
      // rest of the part below it cannot be read from this node. Given up (reported as lost, logged as an error)
      // rather than failing every wallet's step for good.
      const misses = (this.unknownBefore.get(key) ?? 0) + 1;
      if (misses < (this.budget.unknownBeforeSteps ?? UNKNOWN_BEFORE_STEPS)) {
        this.unknownBefore.set(key, misses);
        throw new Error(
          `getSignaturesForAddress lists nothing of ${account} older than ${before}, a signature the node does not know; the range is read again`,
        );
      }
      this.unknownBefore.delete(key);
      this.lost.push({ account, before });
      return [];
    }
    this.unknownBefore.delete(key);
    return page;
  }

  /**
   * The next signatures of an account, at most `budget` of them, from where it stands (`position`) up to the
   * range's end `to`: first the rest of a part it was reading (newest first, below `before`), then the slots
   * above `readTo`. Returns them (failed ones too: they are listed, not read) and where the account stands
   * afterwards. A busy account whose signatures above `readTo` do not fit starts a part: the newest `budget`
   * are read now and the older ones in the next steps, so nothing of it is passed over however far the
   * shared cursor moves meanwhile.
   */
  private async next(account: string, position: AccountPosition, to: bigint, budget: number): Promise<{ listed: SignatureInfo[]; position: AccountPosition }> {
    const listed: SignatureInfo[] = [];
    let at = position;
    if (budget <= 0) return { listed, position: at };
    if (at.part) {
      const part = at.part;
      const page = await this.below(account, Math.min(budget, SIGNATURE_PAGE), to, part.before, at.until);
      let done = page.length < Math.min(budget, SIGNATURE_PAGE);
      for (const s of page) {
        if (BigInt(s.slot) <= at.readTo) {
          done = true;
          break;
        }
        listed.push(s);
      }
      at = done ? { readTo: part.to, until: part.top } : { ...at, part: { ...part, before: page[page.length - 1].signature } };
      if (!done || listed.length >= budget) return { listed, position: at };
    }
    if (at.readTo >= to) return { listed, position: at };
    const room = budget - listed.length;
    const fresh: SignatureInfo[] = [];
    let before: string | undefined;
    let full = false;
    for (;;) {
      const page = before ? await this.below(account, SIGNATURE_PAGE, to, before, at.until) : await this.page(account, SIGNATURE_PAGE, to, undefined, at.until);
      let older = false;
      for (const s of page) {
        const slot = BigInt(s.slot);
        if (slot > to) continue;
        if (slot <= at.readTo) {
          older = true;
          break;
        }
        if (fresh.length >= room) {
          full = true;
          break;
        }
        fresh.push(s);
      }
      if (older || full || page.length < SIGNATURE_PAGE) break;
      before = page[page.length - 1].signature;
    }
    listed.push(...fresh);
    if (full) at = { ...at, part: { to, top: fresh[0].signature, before: fresh[fresh.length - 1].signature } };
    else at = { readTo: to, until: fresh[0]?.signature ?? at.until };
    return { listed, position: at };
  }

  private transaction(signature: string): Promise<ParsedTransaction | null> {
    return this.rpc.call<ParsedTransaction | null>('getTransaction', [
      signature,
      { encoding: 'jsonParsed', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
    ]);
  }

  async scan(
    range: { from: bigint; to: bigint },
    watched: WatchedAddresses,
    assets: readonly string[],
    carried: readonly CarriedAccount[] = [],
  ): Promise<ScannedRange> {
    const blocks: BlockRef[] = [];
    for (let slot = range.from; slot <= range.to; slot++) blocks.push(slotRef(slot));
    const wallets = watched.accounts
      ? await watched.accounts()
      : [...new Set([...(watched.addresses ?? [])].map((key) => splitPaymentKey(key)?.wallet).filter((w): w is string => !!w))];
    const behind = new Map(carried.map((c) => [c.account, readPosition(c.position)]));
    // Which accounts of which wallets listed each signature (a wallet itself, or its token account of a mint).
    const found = new Map<string, { slot: bigint; wallets: Map<string, Set<string>> }>();
    const stillBehind: CarriedAccount[] = [];
    this.lost = [];
    // Organizations take turns at the front, so the step's budget never always runs out on the same ones, and so
    // do each organization's wallets within its share (from the first one the last step left out), and each
    // wallet's accounts (a wallet flooded with junk does not keep its token accounts from being read).
    const turn = this.turn++;
    const rotated = <T>(items: readonly T[]): T[] => {
      const start = items.length ? turn % items.length : 0;
      return [...items.slice(start), ...items.slice(0, start)];
    };
    const byOwner = new Map<string, string[]>();
    for (const wallet of wallets) {
      const owner = watched.accountOwner?.(wallet) ?? wallet;
      byOwner.set(owner, [...(byOwner.get(owner) ?? []), wallet]);
    }
    let left = this.budget.perStep;
    const ownerBudget = this.budget.perOrganization ?? Number.POSITIVE_INFINITY;
    for (const [owner, ownerWallets] of rotated([...byOwner.entries()])) {
      let ownerLeft = Math.min(ownerBudget, left);
      let listingsLeft = this.budget.perOrganizationListings ?? Number.POSITIVE_INFINITY;
      // From the first wallet the last step left out for want of listings, so that each gets its turn.
      const start = (this.firstWallet.get(owner) ?? 0) % ownerWallets.length;
      let asked = 0;
      let leftOut = false;
      for (const wallet of [...ownerWallets.slice(start), ...ownerWallets.slice(0, start)]) {
        let walletLeft = Math.min(this.budget.perWallet, ownerLeft);
        const accounts = [wallet, ...(await Promise.all(assets.map((mint) => this.tokenAccount(wallet, mint))))];
        const first = turn % accounts.length;
        let whole = true;
        for (const account of [...accounts.slice(first), ...accounts.slice(0, first)]) {
          const cached = this.until.get(account);
          const from = behind.get(account) ?? { readTo: range.from - 1n, until: cached && cached.to === range.from - 1n ? cached.signature : undefined };
          // Out of listings or signatures: not asked (budget 0), so carried from where it stands.
          const budget = listingsLeft > 0 ? walletLeft : 0;
          if (budget <= 0) whole = false;
          const made = this.listings;
          const { listed, position } = await this.next(account, from, range.to, budget);
          listingsLeft -= this.listings - made;
          walletLeft -= listed.length;
          ownerLeft -= listed.length;
          left -= listed.length;
          for (const s of listed) {
            if (s.err !== null && s.err !== undefined) continue;
            const entry = found.get(s.signature) ?? { slot: BigInt(s.slot), wallets: new Map<string, Set<string>>() };
            entry.wallets.set(wallet, (entry.wallets.get(wallet) ?? new Set<string>()).add(account));
            found.set(s.signature, entry);
          }
          if (position.part || position.readTo < range.to) {
            stillBehind.push({ account, position: writePosition(position) });
            this.until.delete(account);
          } else if (position.until) this.until.set(account, { signature: position.until, to: range.to });
          else this.until.delete(account);
        }
        // The wallets asked in order up to the first left out: the next step starts there.
        if (!whole) leftOut = true;
        if (!leftOut) asked++;
      }
      // At least one on, so that wallets left out for want of signatures (junk sent to them) take turns at the front.
      this.firstWallet.set(owner, start + Math.max(1, asked));
    }
    const transfers: IncomingTransfer[] = [];
    const earlier = { blocks: new Map<bigint, BlockRef>(), transfers: [] as IncomingTransfer[] };
    const ordered = [...found.entries()].sort(([, a], [, b]) => (a.slot === b.slot ? 0 : a.slot < b.slot ? -1 : 1));
    for (const [signature, { slot: listed, wallets: forWallets }] of ordered) {
      const tx = await this.transaction(signature);
      // The node listed it but does not return it there (not indexed yet on the instance that answered,
      // behind a load balancer; or moved): the step fails and is read again later from where it stood, never
      // passed over, since neither the cursor nor an account's position moves until a scan returns.
      if (!tx?.meta || BigInt(tx.slot) !== listed) {
        throw new Error(
          `getTransaction does not return ${signature}, listed in slot ${listed} (answered ${tx ? `slot ${tx.slot}` : 'null'}); the range is read again`,
        );
      }
      if (tx.meta.err !== null) continue;
      const slot = listed;
      const block = slotRef(slot, BigInt(tx.blockTime ?? 0));
      // A busy wallet's older transactions, read in a later step than their slot's: reported apart, with their slots.
      const out = slot < range.from ? earlier.transfers : transfers;
      if (slot < range.from) earlier.blocks.set(slot, block);
      else blocks[Number(slot - range.from)] = block;
      for (const [wallet, accounts] of forWallets) out.push(...(await this.credits(tx, signature, slot, wallet, accounts, watched, assets)));
    }
    return {
      blocks,
      transfers,
      foreign: [],
      earlier: { blocks: [...earlier.blocks.values()], transfers: earlier.transfers },
      carried: stillBehind,
      ...(this.lost.length ? { lost: this.lost } : {}),
    };
  }

  /**
   * What a successful transaction gave a wallet, for the wallet's accounts that listed it: its lamports
   * (the wallet itself) and its token account's balance in each mint. One watched reference of the wallet:
   * the payment address's transfers. None, or more than one (which invoice it pays cannot be told): money to
   * the wallet, kept as unmatched for its organization.
   */
  private async credits(
    tx: ParsedTransaction,
    signature: string,
    slot: bigint,
    wallet: string,
    accounts: ReadonlySet<string>,
    watched: WatchedAddresses,
    assets: readonly string[],
  ): Promise<IncomingTransfer[]> {
    const candidates = [...new Set(accountKeysOf(tx))].map((k) => joinPaymentKey(wallet, k));
    const ours = watched.addresses ?? (await watched.resolve(candidates));
    const references = candidates.filter((c) => ours.has(c));
    // Every credit of the transaction, in one order (its index names the idempotency key), each with the account it reached.
    const credits: Array<{ asset: string | null; units: bigint; account: string }> = [];
    const lamports = lamportsDelta(tx, wallet);
    if (lamports !== null && lamports > 0n) credits.push({ asset: null, units: lamports, account: wallet });
    for (const mint of assets) {
      const account = await this.tokenAccount(wallet, mint);
      const units = tokenDelta(tx, account, mint);
      if (units > 0n) credits.push({ asset: mint, units, account });
    }
    const out: IncomingTransfer[] = [];
    for (const [i, credit] of credits.entries()) {
      // Each account's credit is reported when that account's signatures reach it (a wallet's accounts may stand apart).
      if (!accounts.has(credit.account)) continue;
      const at = { units: credit.units, txHash: signature, position: null, blockNumber: slot, blockHash: `slot:${slot}` };
      if (references.length === 1) {
        const ref = splitPaymentKey(references[0])!.reference;
        // The idempotency key `solana:<signature>:<reference>` (a second asset of the same transaction: `:<mint>` added).
        out.push({ ...at, to: references[0], asset: credit.asset, output: i === 0 ? ref : `${ref}:${credit.asset ?? 'native'}` });
      } else {
        // No reference of a watched payment address (none, or one the service never handed out for this wallet),
        // or several: money to the wallet all the same, kept as unmatched under `solana:<signature>:<wallet>:<mint|native>`.
        out.push({
          ...at,
          to: wallet,
          asset: credit.asset,
          output: `${wallet}:${credit.asset ?? 'native'}`,
          toWallet: true,
          ...(references.length > 1 ? { severalReferences: true } : {}),
        });
      }
    }
    return out;
  }

  /**
   * The slot a signature is in now (`confirmed` at least), or null. A null status is not believed on its own
   * when the slot it was seen in (`seenIn`) is known: an instance behind a load balancer that has not reached
   * that slot, or one whose status cache no longer holds it, answers null for a transaction that is there, and
   * a null here cancels a payment. The block of that slot at the section's commitment decides: it lists the
   * signature (it is there), it does not, or the slot was skipped (-32007, -32009: the fork that held it
   * died), and only these last two are none. Any other answer (the block not available on that node yet,
   * cleaned up, no history) fails the call, and the watcher asks again on a later step.
   */
  async transactionBlock(txHash: string, seenIn?: bigint, options: TransactionBlockOptions = {}): Promise<bigint | null> {
    const answer = await this.rpc.call<{ value: Array<{ slot: number; confirmationStatus?: string | null; err?: unknown } | null> }>('getSignatureStatuses', [
      [txHash],
      { searchTransactionHistory: true },
    ]);
    const status = answer.value[0];
    if (status && (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized')) {
      // A transaction whose execution failed (`err`) is in its slot all the same, and pays nobody.
      return options.succeeded && status.err !== null && status.err !== undefined ? null : BigInt(status.slot);
    }
    if (status || seenIn === undefined) return null;
    return (await this.blockSignatures(seenIn))?.includes(txHash) ? seenIn : null;
  }

  /** The signatures of the block in `slot` at the section's commitment; null when the slot was skipped. */
  private async blockSignatures(slot: bigint): Promise<string[] | null> {
    try {
      const block = await this.rpc.call<{ signatures?: string[] } | null>('getBlock', [
        Number(slot),
        { commitment: this.commitment, transactionDetails: 'signatures', rewards: false, maxSupportedTransactionVersion: 0 },
      ]);
      if (!block || !Array.isArray(block.signatures)) throw new Error(`getBlock answered no signatures for slot ${slot}`);
      return block.signatures;
    } catch (error) {
      if (error instanceof SolanaRpcError && (error.code === SLOT_SKIPPED || error.code === LONG_TERM_SLOT_SKIPPED)) return null;
      throw error;
    }
  }

  /**
   * A reported payout: its slot, whether it succeeded, and what it paid `to` in the asset: the lamports
   * `to` gained (SOL), or what `to`'s associated token account of the mint gained (SPL). That gain is one
   * transfer, named by the account it reached: `native:<wallet>`, `spl:<wallet>:<mint>` (the wallet and
   * mint its token account is derived from). One transaction may pay several wallets (a merchant batching
   * refunds), each its own transfer; what it paid one wallet in several instructions is one sum, so one
   * transfer. Null when the node does not know the signature (at `confirmed`).
   */
  async transactionTransfers(txHash: string, to: string, token: string | null): Promise<PayoutTransaction | null> {
    const tx = await this.transaction(txHash);
    if (!tx) return null;
    const success = !!tx.meta && tx.meta.err === null;
    let units = 0n;
    if (success) units = token === null ? (lamportsDelta(tx, to) ?? 0n) : tokenDelta(tx, await this.tokenAccount(to, token), token);
    const transfers = success && units > 0n ? [{ output: payoutOutput(to, token), formerly: token === null ? 'native' : 'spl', units }] : [];
    // The destination among the signers: its own transaction (a swap into the asset), no payout to it.
    const byDestination = transfers.length > 0 && tx.transaction.message.accountKeys.some((k) => typeof k !== 'string' && k.signer === true && k.pubkey === to);
    return { blockNumber: BigInt(tx.slot), success, transfers, ...(byDestination ? { byDestination } : {}) };
  }
}
