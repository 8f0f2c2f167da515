/**
 * When a payout may have been made (decisions §19): the chain's tip height when the destination was
 * set (null for payouts claimed before it was recorded), and whether the node showed the transaction
 * unmined after that moment. Block times and clocks play no part.
 */
export interface PayoutWindow {
  claimedHeight: string | null;
  seenUnmined: boolean;
}

export type PayoutVerdict = 'paid' | 'short' | 'failed' | 'too_early' | 'by_destination';

/**
 * What a reported payout transaction shows against the payout: `failed` when it reverted; `by_destination`
 * when the destination itself sent it (the payer's own swap, change or transfer to themselves: money it
 * moved, not money paid to it); `too_early`
 * when it was mined in the block the destination was set at or before (and was not seen unmined after
 * it): an older transaction to that address is no payout of this claim; `short` when it moved less
 * than the payout's units to the destination (nothing at all when it pays someone else); `paid` otherwise.
 */
export function judgePayout(
  check: { state: 'failed'; blockNumber: string } | { state: 'mined'; blockNumber: string; paidUnits: string; byDestination?: boolean },
  payoutUnits: string,
  window: PayoutWindow,
): PayoutVerdict {
  if (check.state === 'failed') return 'failed';
  if (check.byDestination) return 'by_destination';
  if (window.claimedHeight !== null && !window.seenUnmined && BigInt(check.blockNumber) <= BigInt(window.claimedHeight)) return 'too_early';
  return BigInt(check.paidUnits) >= BigInt(payoutUnits) ? 'paid' : 'short';
}

/**
 * The names of a transaction's transfers that payouts hold, as `pickTransfers` leaves them out. A former name
 * (Solana's `native`, `spl`: the part before the first `:` of the name that says the wallet) held by a payout
 * that also holds such a newer name in the transaction is left out: that payout's transfer is the one its
 * newer name says, and the former name is held beside it only so that an instance of the previous version,
 * which knows no other name, sees the transfer taken. A former name held alone (written by such an instance)
 * stays: which wallet it paid is not known, so it keeps every transfer it may be.
 */
export function heldNames(held: ReadonlyArray<{ output: string; refund_id: string }>): Set<string> {
  const named = new Set(held.filter((h) => h.output.includes(':')).map((h) => `${h.refund_id} ${h.output.slice(0, h.output.indexOf(':'))}`));
  return new Set(held.filter((h) => h.output.includes(':') || !named.has(`${h.refund_id} ${h.output}`)).map((h) => h.output));
}

/**
 * Which of a transaction's transfers to the destination pay the payout. Free ones only: leaving out those
 * another payout holds, by their name or by the name they had before (`formerly`: one held under it may be
 * this transfer), and one more for each of `heldUnnamed` (the units of transfers held under a name that no
 * longer names them: the first free one of those units, else the first free one). Of the free ones: one of exactly the payout's units; else the
 * smallest that covers it alone; else as many as it takes, in their order. So one transaction with several
 * transfers to one address pays several payouts to that address whichever is reported first (100 and 1 for
 * payouts of 100 and 1: the payout of 1 takes the 1, not the 100). Null when the free ones fall short.
 */
export function pickTransfers<T extends { output: string; formerly?: string; units: string }>(
  transfers: readonly T[],
  heldByOthers: ReadonlySet<string>,
  payoutUnits: string,
  heldUnnamed: readonly string[] = [],
): T[] | null {
  const wanted = BigInt(payoutUnits);
  const free: T[] = transfers.filter((t) => !heldByOthers.has(t.output) && !(t.formerly !== undefined && heldByOthers.has(t.formerly)) && BigInt(t.units) > 0n);
  for (const held of heldUnnamed) {
    const same = free.findIndex((t) => BigInt(t.units) === BigInt(held));
    if (free.length) free.splice(same >= 0 ? same : 0, 1);
  }
  const exact = free.find((t) => BigInt(t.units) === wanted);
  if (exact) return [exact];
  let smallest: T | null = null;
  for (const t of free) if (BigInt(t.units) >= wanted && (smallest === null || BigInt(t.units) < BigInt(smallest.units))) smallest = t;
  if (smallest) return [smallest];
  const picked: T[] = [];
  let sum = 0n;
  for (const t of free) {
    if (sum >= wanted) break;
    picked.push(t);
    sum += BigInt(t.units);
  }
  return sum >= wanted && picked.length ? picked : null;
}

/** Whether a transaction the node has not shown since `missingSince` is past the grace (real time, seconds). */
export function txGraceOver(missingSince: Date, now: Date, graceSeconds: number): boolean {
  return now.getTime() - missingSince.getTime() >= graceSeconds * 1000;
}
