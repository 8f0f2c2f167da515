import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { Amount, fromDb, Money, renderAmount } from '../../../shared/money/money';
import type { UsageSample } from '../domain/usage';

/** A usage event as stored. */
export interface UsageEventRow {
  id: string;
  subscriptionId: string;
  metricKey: string;
  value: Amount;
  uniqueKey: string | null;
  timestamp: Date;
  createdAt: Date;
}

interface RawRow {
  id: string;
  subscription_id: string;
  metric_key: string;
  value: string;
  unique_key: string | null;
  timestamp: Date;
  created_at: Date;
}

const toRow = (r: RawRow): UsageEventRow => ({
  id: r.id,
  subscriptionId: r.subscription_id,
  metricKey: r.metric_key,
  value: fromDb(r.value),
  uniqueKey: r.unique_key,
  timestamp: r.timestamp,
  createdAt: r.created_at,
});

@Injectable()
export class UsageEventsRepository {
  /**
   * Inserts the events in one statement; an id the scope already has is left as it is (the caller's
   * id de-duplicates). Returns the ids this statement inserted.
   */
  async insert(m: EntityManager, scope: Scope, events: readonly UsageEventRow[]): Promise<Set<string>> {
    // Only for a subscription of the scope that is not CANCELED (checked in the statement: a cancel
    // committed since the caller looked is seen here).
    const rows: Array<{ id: string }> = await m.query(
      `INSERT INTO usage_events (organization_id, mode, id, subscription_id, metric_key, value, unique_key, "timestamp", created_at)
       SELECT $1, $2, e.id, e.subscription_id, e.metric_key, e.value::numeric, e.unique_key, e.ts, e.created_at
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::timestamptz[])
              AS e(id, subscription_id, metric_key, value, unique_key, ts, created_at)
         JOIN subscriptions s ON s.id = e.subscription_id AND s.organization_id = $1 AND s.mode = $2 AND s.status <> 'CANCELED'
       ON CONFLICT (organization_id, mode, id) DO NOTHING
       RETURNING id`,
      [
        scope.organizationId,
        scope.mode,
        events.map((e) => e.id),
        events.map((e) => e.subscriptionId),
        events.map((e) => e.metricKey),
        events.map((e) => renderAmount(e.value)),
        events.map((e) => e.uniqueKey),
        events.map((e) => e.timestamp),
        events.map((e) => e.createdAt),
      ],
    );
    return new Set(rows.map((r) => r.id));
  }

  async findMany(m: EntityManager, scope: Scope, ids: readonly string[]): Promise<UsageEventRow[]> {
    if (ids.length === 0) return [];
    const rows: RawRow[] = await m.query(
      `SELECT id, subscription_id, metric_key, value::text AS value, unique_key, "timestamp", created_at
         FROM usage_events WHERE organization_id = $1 AND mode = $2 AND id = ANY($3::text[])`,
      [scope.organizationId, scope.mode, ids],
    );
    return rows.map(toRow);
  }

  /** The events of one subscription's metric with a timestamp in [from, to). */
  async samples(m: EntityManager, subscriptionId: string, metricKey: string, from: Date, to: Date): Promise<UsageSample[]> {
    const rows: Array<{ value: string; timestamp: Date; unique_key: string | null; seq: string }> = await m.query(
      `SELECT value::text AS value, "timestamp", unique_key, seq::text AS seq FROM usage_events
        WHERE subscription_id = $1 AND metric_key = $2 AND "timestamp" >= $3 AND "timestamp" < $4`,
      [subscriptionId, metricKey, from, to],
    );
    return rows.map((r) => ({ value: fromDb(r.value), timestamp: r.timestamp, uniqueKey: r.unique_key, seq: BigInt(r.seq) }));
  }

  /**
   * Per metric, the sum, largest value and count of one subscription's events with a timestamp in
   * [from, to): bounds of any aggregate of the period, in one statement.
   */
  async periodBounds(m: EntityManager, subscriptionId: string, from: Date, to: Date): Promise<Map<string, { sum: Amount; max: Amount; count: Amount }>> {
    const rows: Array<{ metric_key: string; sum: string; max: string; count: string }> = await m.query(
      `SELECT metric_key, sum(value)::text AS sum, max(value)::text AS max, count(*)::text AS count FROM usage_events
        WHERE subscription_id = $1 AND "timestamp" >= $2 AND "timestamp" < $3 GROUP BY metric_key`,
      [subscriptionId, from, to],
    );
    return new Map(rows.map((r) => [r.metric_key, { sum: new Money(r.sum), max: new Money(r.max), count: new Money(r.count) }]));
  }
}
