import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';
import { fromDb, renderAmount } from '../../../shared/money/money';
import type { RateTable } from '../domain/rate-table';

@Injectable()
export class RatesRepository {
  /** Snapshots never change, so a loaded one is kept. */
  private readonly loaded = new Map<string, RateTable>();

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

  async load(m: EntityManager, snapshotId: string): Promise<RateTable | null> {
    const cached = this.loaded.get(snapshotId);
    if (cached) return cached;
    const rows: Array<{ taken_at: Date; currency: Currency; usd_rate: string }> = await m.query(
      `SELECT s.taken_at, r.currency, r.usd_rate FROM rate_snapshots s JOIN exchange_rates r ON r.snapshot_id = s.id WHERE s.id = $1`,
      [snapshotId],
    );
    if (!rows.length) return null;
    const usd = {} as Record<Currency, Amount>;
    for (const row of rows) usd[row.currency] = fromDb(row.usd_rate);
    const table: RateTable = { snapshotId, takenAt: rows[0].taken_at, usd };
    this.loaded.set(snapshotId, table);
    return table;
  }

  async insert(m: EntityManager, snapshotId: string, takenAt: Date, source: string, createdAt: Date, usd: Record<Currency, Amount>): Promise<void> {
    await m.query(`INSERT INTO rate_snapshots (id, taken_at, source, created_at) VALUES ($1, $2, $3, $4)`, [snapshotId, takenAt, source, createdAt]);
    const currencies = Object.keys(usd) as Currency[];
    await m.query(
      `INSERT INTO exchange_rates (snapshot_id, currency, usd_rate)
       SELECT $1, c, r::numeric FROM unnest($2::text[], $3::text[]) AS t(c, r)`,
      [snapshotId, currencies, currencies.map((c) => renderAmount(usd[c]))],
    );
  }
}
