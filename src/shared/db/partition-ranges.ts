/**
 * Pure arithmetic of time-partitioned tables (no Nest, no driver): the ranges of one day or one month
 * in UTC, the name of the partition that holds a range, and the key values that bound it.
 *
 * A table is partitioned either by a time column (its bounds are timestamps) or by an id of the form
 * `<kind>_<UUIDv7>` (src/shared/ids/ids.ts): a UUIDv7 starts with its creation time in milliseconds,
 * written as twelve hex digits, so ids compare as text in the order they were made, and the id
 * `<kind>_<twelve hex digits of t>-0000-0000-0000-000000000000`... is below every id made at or after `t`
 * and above every id made before it. Every id of one kind has the same punctuation at the same places,
 * so the order holds under the C collation and under the usual linguistic ones alike.
 */

export type PartitionUnit = 'day' | 'month';

/** One partition's range of time: [from, to), and the suffix of its table's name (`p20261129`, `p202611`). */
export interface PartitionRange {
  from: Date;
  to: Date;
  suffix: string;
}

const DAY_MS = 86_400_000;

/** The start (UTC) of the day or month that holds `at`. */
export function unitStart(unit: PartitionUnit, at: Date): Date {
  if (unit === 'day') return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** The start of the unit `n` units after the one that starts at `start` (n may be negative). */
export function addUnits(unit: PartitionUnit, start: Date, n: number): Date {
  if (unit === 'day') return new Date(start.getTime() + n * DAY_MS);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + n, 1));
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** The range of the unit that holds `at`. */
export function rangeAt(unit: PartitionUnit, at: Date): PartitionRange {
  const from = unitStart(unit, at);
  const to = addUnits(unit, from, 1);
  const ymd = `${from.getUTCFullYear()}${pad(from.getUTCMonth() + 1)}`;
  return { from, to, suffix: unit === 'day' ? `p${ymd}${pad(from.getUTCDate())}` : `p${ymd}` };
}

/** The range a partition's suffix names (`p20261129` for days, `p202611` for months); null for any other name. */
export function rangeOfSuffix(unit: PartitionUnit, suffix: string): PartitionRange | null {
  const m = unit === 'day' ? /^p(\d{4})(\d{2})(\d{2})$/.exec(suffix) : /^p(\d{4})(\d{2})$/.exec(suffix);
  if (!m) return null;
  const at = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, unit === 'day' ? Number(m[3]) : 1));
  const range = rangeAt(unit, at);
  return range.suffix === suffix ? range : null;
}

/** The ranges from the unit holding `from` up to and including the unit holding `to`, oldest first. */
export function rangesBetween(unit: PartitionUnit, from: Date, to: Date): PartitionRange[] {
  const out: PartitionRange[] = [];
  for (let start = unitStart(unit, from); start.getTime() <= to.getTime(); start = addUnits(unit, start, 1)) out.push(rangeAt(unit, start));
  return out;
}

/**
 * The lowest UUIDv7 text of the millisecond `at`: every UUIDv7 made at or after `at` sorts at or above
 * it, every one made before sorts below.
 */
export function uuidv7Floor(at: Date): string {
  const ms = at.getTime();
  if (!Number.isInteger(ms) || ms < 0 || ms >= 2 ** 48) throw new RangeError(`a UUIDv7 cannot hold the time ${at.toISOString()}`);
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/** The creation time a UUIDv7 (or a `<kind>_<UUIDv7>` id) carries; null when the text is no UUIDv7. */
export function uuidv7Time(id: string): Date | null {
  const m = /([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.exec(id);
  return m ? new Date(parseInt(m[1] + m[2], 16)) : null;
}

/** How a partitioned table is keyed: by a timestamp column, or by ids `<prefix><UUIDv7>`. */
export type PartitionKey = { kind: 'time' } | { kind: 'id'; prefix: string };

/** The value that bounds the key at the instant `at` (an ISO timestamp, or the lowest id of that millisecond). */
export function boundAt(key: PartitionKey, at: Date): string {
  return key.kind === 'time' ? at.toISOString() : `${key.prefix}${uuidv7Floor(at)}`;
}

/** True when the partition holding `range` may be dropped: it ended at least `retentionDays` before `now` (0: never). */
export function isExpired(range: PartitionRange, now: Date, retentionDays: number): boolean {
  if (retentionDays <= 0) return false;
  return range.to.getTime() <= now.getTime() - retentionDays * DAY_MS;
}
