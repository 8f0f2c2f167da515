import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { Amount, fromDb, Money, renderAmount } from '../../../shared/money/money';
import type { AggregationType } from '../domain/usage';
import { SubscriptionRecord } from './subscription.record';

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

/** The aggregates PostgreSQL works out over a period's events (LATEST is a query of its own). */
const AGGREGATES: Record<Exclude<AggregationType, 'LATEST'>, string> = {
  SUM: 'coalesce(sum(value), 0)',
  COUNT: 'count(*)',
  MAX: 'coalesce(max(value), 0)',
  UNIQUE_COUNT: 'count(DISTINCT coalesce(unique_key, trim_scale(value)::text))',
};

@Injectable()
export class UsageEventsRepository {
  /**
   * Inserts the events in one statement; an id the scope already has is left as it is (the caller's
   * id de-duplicates, across every partition: its key goes to `usage_event_keys` first, and only an
   * event whose key is new is stored). Returns the ids this statement inserted.
   */
  async insert(m: EntityManager, scope: Scope, events: readonly UsageEventRow[]): Promise<Set<string>> {
    // Only for a subscription of the scope that is not CANCELED (checked in the statement: a cancel
    // committed since the caller looked is seen here). Inserted in the order sent: `seq`, which breaks
    // LATEST's ties between events of one millisecond, is arrival order within a batch too.
    const rows: Array<{ id: string }> = await m.query(
      `WITH e AS (
         SELECT DISTINCT ON (e.id) e.id, e.subscription_id, e.metric_key, e.value, e.unique_key, e.ts, e.created_at, e.n
           FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::timestamptz[]) WITH ORDINALITY
                AS e(id, subscription_id, metric_key, value, unique_key, ts, created_at, n)
           JOIN subscriptions s ON s.id = e.subscription_id AND s.organization_id = $1 AND s.mode = $2 AND s.status <> 'CANCELED'
          ORDER BY e.id, e.n
       ), k AS (
         INSERT INTO usage_event_keys (organization_id, mode, id, "timestamp")
         SELECT $1, $2, e.id, e.ts FROM e
         ON CONFLICT (organization_id, mode, id) DO NOTHING
         RETURNING id
       )
       INSERT INTO usage_events (organization_id, mode, id, subscription_id, metric_key, value, unique_key, "timestamp", created_at)
       SELECT $1, $2, e.id, e.subscription_id, e.metric_key, e.value::numeric, e.unique_key, e.ts, e.created_at FROM e JOIN k ON k.id = e.id
        ORDER BY e.n
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

  /** The scope's events of these ids, each found in its one partition through its key. */
  async findMany(m: EntityManager, scope: Scope, ids: readonly string[]): Promise<UsageEventRow[]> {
    if (ids.length === 0) return [];
    const rows: RawRow[] = await m.query(
      `SELECT u.id, u.subscription_id, u.metric_key, u.value::text AS value, u.unique_key, u."timestamp", u.created_at
         FROM usage_event_keys k
         JOIN usage_events u ON u.organization_id = k.organization_id AND u.mode = k.mode AND u.id = k.id AND u."timestamp" = k."timestamp"
        WHERE k.organization_id = $1 AND k.mode = $2 AND k.id = ANY($3::text[])`,
      [scope.organizationId, scope.mode, ids],
    );
    return rows.map(toRow);
  }

  /** Which of these ids the scope has recorded, whether or not their event is still stored (its month may be past retention). */
  async knownKeys(m: EntityManager, scope: Scope, ids: readonly string[]): Promise<Set<string>> {
    const rows: Array<{ id: string }> = await m.query(`SELECT id FROM usage_event_keys WHERE organization_id = $1 AND mode = $2 AND id = ANY($3::text[])`, [
      scope.organizationId,
      scope.mode,
      ids,
    ]);
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Before a month of usage, [from, to), is dropped (the retention job, in its transaction): the
   * subscriptions with events in it that may still bill usage (their next period invoice is still to
   * come, or a period's invoice could not be issued yet), with the indexes of those unissued periods and
   * their latest event of the month. The caller decides from their terms whether the month is still needed.
   */
  async stillBilling(m: EntityManager, from: Date, to: Date): Promise<Array<{ subscription: SubscriptionRecord; unissued: number[]; lastUsage: Date }>> {
    // From `usage_months` (each subscription's latest event of each month, kept by the events' insert
    // trigger): one row a subscription, however many events the month holds, so the check, run with the
    // usage tables locked just before a drop, never reads the month's events.
    const rows: Array<{ id: string; unissued: number[]; last_usage: Date }> = await m.query(
      `SELECT u.subscription_id AS id, max(u.last_usage) AS last_usage,
              coalesce((SELECT array_agg(si.period_index) FROM subscription_invoices si WHERE si.subscription_id = u.subscription_id AND si.invoice_id IS NULL), '{}') AS unissued
         FROM usage_months u JOIN subscriptions s ON s.id = u.subscription_id
        WHERE u.month >= $1 AND u.month < $2
          AND (s.next_invoice_at IS NOT NULL OR EXISTS (SELECT 1 FROM subscription_invoices si WHERE si.subscription_id = s.id AND si.invoice_id IS NULL))
        GROUP BY u.subscription_id`,
      [from, to],
    );
    if (!rows.length) return [];
    const records = await m.find(SubscriptionRecord, { where: { id: In(rows.map((r) => r.id)) } });
    const byId = new Map(records.map((r) => [r.id, r]));
    return rows.flatMap((r) => {
      const subscription = byId.get(r.id);
      return subscription ? [{ subscription, unissued: r.unissued.map(Number), lastUsage: r.last_usage }] : [];
    });
  }

  /** Forgets the months in [from, to) once their events are dropped (the retention job, in its transaction). */
  async forgetMonths(m: EntityManager, from: Date, to: Date): Promise<void> {
    await m.query(`DELETE FROM usage_months WHERE month >= $1 AND month < $2`, [from, to]);
  }

  /**
   * One metric's usage over a subscription's events with a timestamp in [from, to), worked out by PostgreSQL
   * (exact numeric) in one statement over the events' index: a period of millions of events never comes
   * into the process, so one organization's volume neither holds up another's period invoices nor fills the
   * memory of the instance that makes them. It is domain/usage.ts `aggregate` of those events: no events
   * give 0; UNIQUE_COUNT counts an event without a unique key by its value's canonical text (1.5 and 1.50
   * once); LATEST takes the last event by timestamp to the millisecond, then by arrival.
   */
  async aggregate(m: EntityManager, scope: Scope, subscriptionId: string, metricKey: string, type: AggregationType, from: Date, to: Date): Promise<Amount> {
    const where = `subscription_id = $1 AND metric_key = $2 AND "timestamp" >= $3 AND "timestamp" < $4 AND organization_id = $5 AND mode = $6`;
    const sql =
      type === 'LATEST'
        ? `SELECT coalesce((SELECT value FROM usage_events WHERE ${where}
                             ORDER BY date_trunc('milliseconds', "timestamp") DESC, seq DESC LIMIT 1), 0)::text AS quantity`
        : `SELECT (${AGGREGATES[type]})::text AS quantity FROM usage_events WHERE ${where}`;
    const [row]: Array<{ quantity: string }> = await m.query(sql, [subscriptionId, metricKey, from, to, scope.organizationId, scope.mode]);
    return fromDb(row.quantity);
  }

  /**
   * Per metric, the sum, largest value and count of every event the subscription ever stored (the
   * `usage_totals` row its events' insert keeps, events of dropped months included): bounds of any
   * period's aggregate, read from one row per metric whatever the number of events.
   */
  async lifetimeBounds(m: EntityManager, subscriptionId: string): Promise<Map<string, { sum: Amount; max: Amount; count: Amount }>> {
    const rows: Array<{ metric_key: string; sum: string; max: string; count: string }> = await m.query(
      `SELECT metric_key, sum::text AS sum, max::text AS max, count::text AS count FROM usage_totals WHERE subscription_id = $1`,
      [subscriptionId],
    );
    return new Map(rows.map((r) => [r.metric_key, { sum: new Money(r.sum), max: new Money(r.max), count: new Money(r.count) }]));
  }

  /**
   * Per metric, the sum, largest value and count of one subscription's events with a timestamp in
   * [from, to): bounds of any aggregate of the period, in one statement (reading each of its events).
   */
  async periodBounds(
    m: EntityManager,
    scope: Scope,
    subscriptionId: string,
    from: Date,
    to: Date,
  ): Promise<Map<string, { sum: Amount; max: Amount; count: Amount }>> {
    const rows: Array<{ metric_key: string; sum: string; max: string; count: string }> = await m.query(
      `SELECT metric_key, sum(value)::text AS sum, max(value)::text AS max, count(*)::text AS count FROM usage_events
        WHERE subscription_id = $1 AND "timestamp" >= $2 AND "timestamp" < $3 AND organization_id = $4 AND mode = $5 GROUP BY metric_key`,
      [subscriptionId, from, to, scope.organizationId, scope.mode],
    );
    return new Map(rows.map((r) => [r.metric_key, { sum: new Money(r.sum), max: new Money(r.max), count: new Money(r.count) }]));
  }
}
