/**
 * Dashboard periods and the windows they stand for. Pure: the caller passes "now".
 *
 * Windows are aligned to the series' buckets, as dashboards usually count them:
 * - last_day: the current UTC hour (in progress) and the 23 whole hours before it (24 hourly points);
 * - last_N_days: the current UTC day (in progress) and the N-1 whole days before it (N daily points);
 * - prev_X: the window of the same length just before X.
 * `from` is inclusive and `to` exclusive; for last_* windows `to` is the end of the bucket in
 * progress, so the window holds everything recorded up to now.
 */
export const PERIODS = [
  'last_day',
  'last_7_days',
  'last_30_days',
  'last_90_days',
  'last_365_days',
  'prev_last_day',
  'prev_last_7_days',
  'prev_last_30_days',
  'prev_last_90_days',
  'prev_last_365_days',
] as const;
export type Period = (typeof PERIODS)[number];

export type Grain = 'hour' | 'day';

export interface DashboardWindow {
  period: Period;
  grain: Grain;
  /** Inclusive start. */
  from: Date;
  /** Exclusive end. */
  to: Date;
  /** Start of every bucket of the window, oldest first. */
  buckets: Date[];
  /** How the series names each bucket (bucketLabel), in the same order. */
  labels: string[];
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const LENGTHS: Record<string, { grain: Grain; count: number }> = {
  last_day: { grain: 'hour', count: 24 },
  last_7_days: { grain: 'day', count: 7 },
  last_30_days: { grain: 'day', count: 30 },
  last_90_days: { grain: 'day', count: 90 },
  last_365_days: { grain: 'day', count: 365 },
};

export function isPeriod(value: unknown): value is Period {
  return typeof value === 'string' && (PERIODS as readonly string[]).includes(value);
}

/** Start of the UTC hour or day holding `at`. */
export function bucketStart(at: Date, grain: Grain): Date {
  const size = grain === 'hour' ? HOUR_MS : DAY_MS;
  return new Date(Math.floor(at.getTime() / size) * size);
}

export function windowOf(period: Period, now: Date): DashboardWindow {
  const previous = period.startsWith('prev_');
  const { grain, count } = LENGTHS[previous ? period.slice('prev_'.length) : period];
  const size = grain === 'hour' ? HOUR_MS : DAY_MS;
  const currentEnd = bucketStart(now, grain).getTime() + size;
  const to = previous ? currentEnd - count * size : currentEnd;
  const from = to - count * size;
  const buckets = Array.from({ length: count }, (_, i) => new Date(from + i * size));
  return { period, grain, from: new Date(from), to: new Date(to), buckets, labels: buckets.map((b) => bucketLabel(b, grain)) };
}

const current = new Map<Period, { start: number; window: Readonly<DashboardWindow> }>();

/**
 * windowOf, computed once per period for as long as its buckets stay the same (until the next hour
 * or day starts) and shared by the calls in between, read-only.
 */
export function currentWindowOf(period: Period, now: Date): Readonly<DashboardWindow> {
  const { grain } = LENGTHS[period.startsWith('prev_') ? period.slice('prev_'.length) : period];
  const start = bucketStart(now, grain).getTime();
  const known = current.get(period);
  if (known && known.start === start) return known.window;
  const window = windowOf(period, now);
  Object.freeze(window.buckets);
  Object.freeze(window.labels);
  current.set(period, { start, window: Object.freeze(window) });
  return window;
}

/** How a series point names its bucket: `YYYY-MM-DD` for days, `YYYY-MM-DD HH:00:00` for hours (UTC). */
export function bucketLabel(bucket: Date, grain: Grain): string {
  const iso = bucket.toISOString();
  return grain === 'day' ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 13)}:00:00`;
}

/** The running totals kept for a day period (span in days, prev or not); null for the hourly periods. */
export function keptWindowOf(period: Period): { span: number; prev: boolean } | null {
  const prev = period.startsWith('prev_');
  const base = prev ? period.slice('prev_'.length) : period;
  const { grain, count } = LENGTHS[base];
  return grain === 'day' ? { span: count, prev } : null;
}
