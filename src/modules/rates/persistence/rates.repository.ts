import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';
import { fromDb, renderAmount } from '../../../shared/money/money';
import type { CompleteRates, RateOrigin, RateTable } from '../domain/rate-table';

/**
 * The lock between the retention job's drop of a day of history (exclusive) and the writes that keep a
 * snapshot of their own (shared): a transaction-level advisory lock on this name.
 */
const KEEP_LOCK = 'rate_history_keep';

@Injectable()
export class RatesRepository {
  /**
   * Snapshots never change, so a loaded one is kept: the most recently used ones only, since live
   * sources write a new snapshot every RATES_REFRESH_SECONDS (an older one is read again when needed).
   */
  private readonly loaded = new Map<string, RateTable>();
  private static readonly KEEP = 64;

  /** The newest snapshot taken at or before `at`; the oldest one when `at` predates them all. */
  async snapshotIdAsOf(m: EntityManager, at: Date): Promise<string | null> {
    const rows: Array<{ id: string }> = await m.query(
      `SELECT id FROM (
         (SELECT id, 0 AS pref, taken_at FROM rate_snapshots WHERE taken_at <= $1 ORDER BY taken_at DESC, id DESC LIMIT 1)
         UNION ALL
         (SELECT id, 1 AS pref, taken_at FROM rate_snapshots ORDER BY taken_at ASC, id ASC LIMIT 1)
       ) s ORDER BY pref LIMIT 1`,
      [at],
    );
    return rows[0]?.id ?? null;
  }

  /**
   * Like snapshotIdAsOf, also saying for how long the answer holds: the snapshot in force at `at`
   * stays in force from its taken_at until the next snapshot's taken_at (null: none yet), unless a
   * new snapshot is imported into that interval. Null when `at` predates every snapshot.
   */
  async snapshotIntervalAt(m: EntityManager, at: Date): Promise<{ id: string; from: Date; until: Date | null } | null> {
    const rows: Array<{ id: string; taken_at: Date; next_at: Date | null }> = await m.query(
      `SELECT cur.id, cur.taken_at, (SELECT min(taken_at) FROM rate_snapshots WHERE taken_at > $1) AS next_at
         FROM (SELECT id, taken_at FROM rate_snapshots WHERE taken_at <= $1 ORDER BY taken_at DESC, id DESC LIMIT 1) cur`,
      [at],
    );
    return rows[0] ? { id: rows[0].id, from: rows[0].taken_at, until: rows[0].next_at } : null;
  }

  /** Forgets a loaded snapshot (its day of history was dropped: loading it again finds nothing). */
  forget(snapshotId: string): void {
    this.loaded.delete(snapshotId);
  }

  async load(m: EntityManager, snapshotId: string): Promise<RateTable | null> {
    const cached = this.loaded.get(snapshotId);
    if (cached) {
      // Most recently used last, so the first key is the one to drop.
      this.loaded.delete(snapshotId);
      this.loaded.set(snapshotId, cached);
      return cached;
    }
    const rows: Array<{ taken_at: Date; currency: Currency; usd_rate: string; rate_source: string; rate_taken_at: Date }> = await m.query(
      `SELECT s.taken_at, r.currency, r.usd_rate, coalesce(r.source, s.source) AS rate_source, coalesce(r.taken_at, s.taken_at) AS rate_taken_at
         FROM rate_snapshots s JOIN exchange_rates r ON r.snapshot_id = s.id WHERE s.id = $1`,
      [snapshotId],
    );
    if (!rows.length) return null;
    const usd = {} as Record<Currency, Amount>;
    const origins = {} as Record<Currency, RateOrigin>;
    for (const row of rows) {
      usd[row.currency] = fromDb(row.usd_rate);
      origins[row.currency] = { source: row.rate_source, takenAt: row.rate_taken_at };
    }
    const table: RateTable = { snapshotId, takenAt: rows[0].taken_at, usd, origins };
    this.loaded.set(snapshotId, table);
    if (this.loaded.size > RatesRepository.KEEP) this.loaded.delete(this.loaded.keys().next().value!);
    return table;
  }

  async insert(m: EntityManager, snapshotId: string, takenAt: Date, source: string, createdAt: Date, rates: CompleteRates): Promise<void> {
    await m.query(`INSERT INTO rate_snapshots_recent (id, taken_at, source, created_at) VALUES ($1, $2, $3, $4)`, [snapshotId, takenAt, source, createdAt]);
    const currencies = Object.keys(rates.usd) as Currency[];
    await m.query(
      `INSERT INTO exchange_rates_recent (snapshot_id, currency, usd_rate, source, taken_at)
       SELECT $1, c, r::numeric, s, t::timestamptz FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS x(c, r, s, t)`,
      [
        snapshotId,
        currencies,
        currencies.map((c) => renderAmount(rates.usd[c])),
        currencies.map((c) => rates.origins[c].source),
        currencies.map((c) => rates.origins[c].takenAt.toISOString()),
      ],
    );
  }

  /**
   * Before a day of history is dropped (the retention job, in its transaction): copies into the kept
   * tables the day's snapshots that must outlive it: those another table still holds (`referenced`: an
   * invoice's, a payment's, a refund's) and every one in force at some moment since `since` (the one in
   * force then, and any taken after it, the one in force now and any dated later among them). A write
   * priced a moment ago (an invoice at the rates in force, its transaction still open while `referenced`
   * was read) holds one of those. Answers how many snapshots it copied.
   *
   * It first takes the keep lock exclusively, for the rest of the dropping transaction: it waits for the
   * writes keeping a snapshot of their own (keepSnapshot) to commit, and a write that comes after finds
   * the day gone, or its snapshot kept.
   */
  async keepSnapshots(m: EntityManager, lower: string, upper: string, referenced: readonly string[], since: Date): Promise<number> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [KEEP_LOCK]);
    const kept: Array<{ id: string }> = await m.query(
      `INSERT INTO rate_snapshots_kept (id, taken_at, source, created_at)
       SELECT id, taken_at, source, created_at FROM rate_snapshots_recent s
        WHERE s.id >= $1 AND s.id < $2
          AND (s.id = ANY($3::text[]) OR s.taken_at > $4
               OR s.id = (SELECT id FROM rate_snapshots WHERE taken_at <= $4 ORDER BY taken_at DESC, id DESC LIMIT 1))
       ON CONFLICT (id) DO NOTHING
       RETURNING id`,
      [lower, upper, referenced, since],
    );
    if (!kept.length) return 0;
    await m.query(
      `INSERT INTO exchange_rates_kept (snapshot_id, currency, usd_rate, source, taken_at)
       SELECT snapshot_id, currency, usd_rate, source, taken_at FROM exchange_rates_recent WHERE snapshot_id = ANY($1::text[])
       ON CONFLICT DO NOTHING`,
      [kept.map((k) => k.id)],
    );
    return kept.length;
  }

  /**
   * In a write's transaction that records `snapshotId` (a payment's, a refund's), whose day of history may
   * be dropped soon: copies the snapshot into the kept tables, so that it outlives its day whatever the
   * retention job read before the write commits, and says where it was found:
   * - `kept`: already in the kept tables, committed (it stays there);
   * - `copied`: still in its day; this transaction copies it (or waits for another write copying it, and
   *   then finds it kept): committed with the write, or rolled back with it;
   * - `gone`: its day was dropped and it was not kept; the write must choose its rates again.
   *
   * The keep lock is taken shared first, in a statement of its own, before the history is read: a drop
   * (which takes it exclusively in `keepSnapshots`, before its own copies and the DROP) either committed
   * before, and then its day is gone from what this reads, or waits for this transaction to end. Taken in
   * the same statement as the copy, the copy's read lock on the history would come first, and a drop
   * holding the keep lock and waiting for that table would deadlock with it.
   */
  async keepSnapshot(m: EntityManager, snapshotId: string): Promise<'kept' | 'copied' | 'gone'> {
    await m.query(`SELECT pg_advisory_xact_lock_shared(hashtext($1))`, [KEEP_LOCK]);
    const [found]: Array<{ kept: boolean; recent: boolean }> = await m.query(
      `WITH s AS (
         INSERT INTO rate_snapshots_kept (id, taken_at, source, created_at)
         SELECT id, taken_at, source, created_at FROM rate_snapshots_recent WHERE id = $1
         ON CONFLICT (id) DO NOTHING
         RETURNING id
       ), r AS (
         INSERT INTO exchange_rates_kept (snapshot_id, currency, usd_rate, source, taken_at)
         SELECT snapshot_id, currency, usd_rate, source, taken_at FROM exchange_rates_recent WHERE snapshot_id IN (SELECT id FROM s)
         ON CONFLICT DO NOTHING
       )
       SELECT EXISTS (SELECT 1 FROM rate_snapshots_kept WHERE id = $1) AS kept, EXISTS (SELECT 1 FROM rate_snapshots_recent WHERE id = $1) AS recent`,
      [snapshotId],
    );
    return found.kept ? 'kept' : found.recent ? 'copied' : 'gone';
  }

  /**
   * Serializes snapshot writers across processes (several instances refresh at once) for the rest of
   * the transaction, and says when the newest snapshot up to `now` was taken, so a refresher that
   * waited can see that another one has just done its work.
   */
  async lockWriters(m: EntityManager, now: Date): Promise<Date | null> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtext('rate_snapshots_write'))`);
    return this.newestTakenAt(m, now);
  }

  /**
   * When the newest snapshot taken up to `now` was taken (by any instance, or imported); null before
   * the first. A snapshot dated later (an import of future rates) is not in force yet and does not count.
   */
  async newestTakenAt(m: EntityManager, now: Date): Promise<Date | null> {
    const rows: Array<{ taken_at: Date }> = await m.query(`SELECT taken_at FROM rate_snapshots WHERE taken_at <= $1 ORDER BY taken_at DESC, id DESC LIMIT 1`, [
      now,
    ]);
    return rows[0]?.taken_at ?? null;
  }

  /**
   * The rates the newest snapshot taken up to `now` carried over from the one before it (the same source and
   * time: not chosen again), of those taken since `since`: what the instance that wrote it could not get.
   */
  async carriedOverByNewest(m: EntityManager, now: Date, since: Date): Promise<Array<{ currency: Currency; source: string; taken_at: Date }>> {
    return m.query(
      `WITH two AS (
         SELECT id, row_number() OVER (ORDER BY taken_at DESC, id DESC) AS n
           FROM (SELECT id, taken_at FROM rate_snapshots WHERE taken_at <= $1 ORDER BY taken_at DESC, id DESC LIMIT 2) newest
       )
       SELECT r.currency, r.source, r.taken_at FROM exchange_rates r
         JOIN exchange_rates p ON p.snapshot_id = (SELECT id FROM two WHERE n = 2) AND p.currency = r.currency
        WHERE r.snapshot_id = (SELECT id FROM two WHERE n = 1) AND r.taken_at >= $2 AND p.taken_at = r.taken_at AND p.source = r.source
        ORDER BY r.currency`,
      [now, since],
    );
  }

  /**
   * Per currency, the lowest and highest rate taken from a live source since `since` (what a lone
   * answer is compared with): rows of snapshots the refresher wrote whose own source names a configured
   * source or a median one of them took part in (isSourceOrigin's rule), so rates of the bundled table, of an
   * import, or of sources since removed from RATE_SOURCES, carried along, never count.
   */
  async sourceRatesSince(m: EntityManager, since: Date, sources: readonly string[]): Promise<Partial<Record<Currency, { min: Amount; max: Amount }>>> {
    const rows: Array<{ currency: Currency; min: string; max: string }> = await m.query(
      `SELECT r.currency, min(r.usd_rate)::text AS min, max(r.usd_rate)::text AS max
         FROM rate_snapshots s JOIN exchange_rates r ON r.snapshot_id = s.id
        WHERE s.taken_at >= $1 AND s.source LIKE 'live:%' AND r.taken_at >= $1
          AND (r.source = ANY($2::text[]) OR (r.source LIKE 'median:%' AND EXISTS (
                SELECT 1 FROM unnest($2::text[]) n WHERE position(',' || n || ',' IN ',' || substr(r.source, 8) || ',') > 0)))
        GROUP BY r.currency`,
      [since, sources],
    );
    const out: Partial<Record<Currency, { min: Amount; max: Amount }>> = {};
    for (const row of rows) out[row.currency] = { min: fromDb(row.min), max: fromDb(row.max) };
    return out;
  }
}
