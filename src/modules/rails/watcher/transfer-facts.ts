/**
 * The watcher's arithmetic on transfers: their idempotency key, their price, their confirmations and
 * the block ranges a step reads. Pure: no Nest, no database, no node.
 */
import { Money } from '../../../shared/money/money';

/** The idempotency key of a transfer's payment: `<network>:<tx_hash>:<output>` (the adapter's output reference). */
export function transferKey(network: string, transfer: { txHash: string; output: string | number }): string {
  return `${network}:${transfer.txHash}:${transfer.output}`;
}

/** A transfer's amount in the currency, exact: its smallest units over 10^decimals, as a plain decimal string. */
export function priceOf(units: bigint, decimals: number): string {
  return new Money(units.toString()).div(new Money(10).pow(decimals)).toFixed();
}

/** Confirmations of a transfer mined in `block` when the head is `head`: the block itself counts as one. */
export function confirmationsAt(head: bigint, block: bigint): number {
  return Number(head - block + 1n);
}

/**
 * The count to report for a mined transfer. On a chain that names its final block (Tron's solidified block,
 * or its section's confirmations; Solana's commitment), finality is that block's to say (decisions §23,
 * §24): covered by it, at least the requirement (final whatever the count); above it, below the requirement
 * whatever the count (a merchant's lower requirement, or slots skipped, never complete it early). Without
 * one (EVM, UTXO), the count itself.
 */
export function countedConfirmations(head: bigint, block: bigint, final: bigint | null, required: number): number {
  const count = confirmationsAt(head, block);
  if (final === null) return count;
  return block <= final ? Math.max(count, required) : Math.max(0, Math.min(count, required - 1));
}

/** The last block of the range a step reads from `from`: at most `maxRange` blocks, never past the head. */
export function rangeEnd(from: bigint, head: bigint, maxRange: number): bigint {
  return head < from + BigInt(maxRange) - 1n ? head : from + BigInt(maxRange) - 1n;
}

/** How far the cursor is behind the head (0 when at or above it). */
export function lagOf(head: bigint, cursor: bigint): number {
  return Number(head > cursor ? head - cursor : 0n);
}

/** Where the cursor starts on first start: just below start_block when configured, else at the head (the next block on). */
export function firstBlock(startBlock: bigint | null | undefined, head: bigint): bigint {
  return startBlock ?? head + 1n;
}

export interface ScannedTransfer {
  asset: string | null;
  txHash: string;
  blockNumber: bigint;
}

/**
 * Splits a range's transfers by asset: those of the coin (asset null) or a configured asset, in chain
 * order (by block; within a block as the adapter gave them, a stable sort), and those of any other
 * asset, which are never counted (and never as the coin).
 */
export function sortTransfers<T extends ScannedTransfer>(
  transfers: readonly T[],
  configured: ReadonlySet<string>,
): { counted: T[]; foreign: Array<{ asset: string; txHash: string }> } {
  const foreign = transfers.filter((t) => t.asset !== null && !configured.has(t.asset)).map((t) => ({ asset: t.asset!, txHash: t.txHash }));
  const counted = transfers.filter((t) => t.asset === null || configured.has(t.asset));
  counted.sort((a, b) => (a.blockNumber === b.blockNumber ? 0 : a.blockNumber < b.blockNumber ? -1 : 1));
  return { counted, foreign };
}

/**
 * A range's transfers in turns across their owners (decisions §22): every owner's first transfer, then
 * every owner's second, and so on, owners in the order their first transfer comes; each owner's own
 * transfers stay in chain order. All of them are recorded before the cursor moves, so this changes no
 * outcome, only who waits: one organization's thousand transfers in a range no longer make another's
 * payment in that range wait until they are all recorded.
 */
export function inTurns<T>(transfers: readonly T[], ownerOf: (transfer: T) => string): T[] {
  const lines = new Map<string, T[]>();
  for (const transfer of transfers) {
    const owner = ownerOf(transfer);
    const line = lines.get(owner);
    if (line) line.push(transfer);
    else lines.set(owner, [transfer]);
  }
  const turns: T[] = [];
  for (let turn = 0; turns.length < transfers.length; turn++) {
    for (const line of lines.values()) if (turn < line.length) turns.push(line[turn]);
  }
  return turns;
}

/** How far a block's stamped time may be from the time it was made (Bitcoin allows two hours either way; other chains far less). */
export const BLOCK_TIME_MARGIN_MS = 2 * 60 * 60_000;

/** The time stamped on a block, as a Date (its timestamp is in seconds); null when the adapter does not read it (0: Solana's slots). */
export function blockTimeOf(block: { timestamp: bigint }): Date | null {
  return block.timestamp > 0n ? new Date(Number(block.timestamp) * 1000) : null;
}

/**
 * The time a cursor keeps for the next scan's windows (watchedAsOf): the time stamped on its block when the
 * chain stamps one. A chain whose blocks carry none (Solana's slots) keeps the time the step that reached the
 * head began instead, since every block after that head was made after it; while the watcher is behind, the
 * time it kept before, since the blocks it has yet to read were made after it was last at the head. Unknown
 * (null) until it first reaches the head.
 */
export function cursorTimeAfter(stamped: Date | null, reachedHead: boolean, stepBegan: Date, kept: Date | null): Date | null {
  if (stamped !== null) return stamped;
  return reachedHead ? stepBegan : kept;
}

/**
 * The instant whose open payment windows a scan looks for: no later than the blocks it reads were made,
 * so a watcher that fell behind still finds a payment made inside a window that has closed since. The
 * blocks after the cursor were made after its block, and an account read late (`carriedSince`) holds
 * nothing older than when it was left behind; less the margin a block's stamped time may be off. Without
 * a known cursor time, now less the margin.
 */
export function watchedAsOf(now: Date, cursorTime: Date | null, carriedSince: ReadonlyArray<Date | null>): Date {
  let floor = now.getTime();
  for (const t of [cursorTime, ...carriedSince]) if (t !== null && t.getTime() < floor) floor = t.getTime();
  return new Date(floor - BLOCK_TIME_MARGIN_MS);
}

/**
 * The transfers of a transaction that none of `recorded` (amounts of its transfers already recorded) accounts
 * for, matched one for one by amount: a transaction paying an address 10 twice, recorded once, leaves one 10.
 */
export function unaccountedTransfers<T extends { units: bigint }>(transfers: readonly T[], recorded: readonly bigint[]): T[] {
  const left = [...transfers];
  for (const units of recorded) {
    const i = left.findIndex((t) => t.units === units);
    if (i >= 0) left.splice(i, 1);
  }
  return left;
}
