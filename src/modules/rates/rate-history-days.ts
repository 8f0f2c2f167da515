import { isExpired, rangeAt, uuidv7Time } from '../../shared/db/partition-ranges';

/**
 * How long before its day of history may be dropped (rate-history-retention.ts) a snapshot counts as going: a
 * write that records one this close to its drop (a payment that happened a month ago, valued at the rates in
 * force then) keeps it itself, in its own transaction (KeepRatesSnapshotCommand). And how far back the drop
 * itself keeps every snapshot that was in force (an invoice priced at the rates in force a moment ago, its
 * transaction still open). A day: against a write's transaction, which lasts seconds, and instances' clocks,
 * a little apart.
 */
export const KEEP_MARGIN_MS = 86_400_000;

/**
 * Whether the retention job may drop the day holding `snapshotId` within KEEP_MARGIN_MS of `now`, with the
 * history kept `retentionDays` (0: never). Snapshot ids without a time (the bundled one) live in the kept
 * tables from the start: never.
 */
export function goesSoon(snapshotId: string, now: Date, retentionDays: number): boolean {
  const written = snapshotId.startsWith('rates_') ? uuidv7Time(snapshotId) : null;
  return written !== null && isExpired(rangeAt('day', written), new Date(now.getTime() + KEEP_MARGIN_MS), retentionDays);
}
