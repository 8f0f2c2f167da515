import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One rollup writer at a time per organization and mode.
 *
 * The rollup triggers took the organization's anchor row FOR SHARE and then relied on every writer
 * locking the shared rollup rows (today's buckets and series, the kept day windows) in one order.
 * They did not: a status change applies the old row's contribution to every rollup table and then
 * the new row's, so a payment completing an invoice held today's invoice series while it waited
 * for today's PENDING bucket, and an invoice being created held that bucket while it waited for the
 * series. PostgreSQL broke each such cycle after deadlock_timeout (1 s) and the loser was run again.
 *
 * The anchor row is now taken FOR UPDATE: the first rollup change of a transaction waits for any
 * other transaction that has changed the same organization's rollups, and then holds them all until
 * it ends. Every rollup row of an organization is behind its anchor, so two writers can no longer
 * hold rollup rows the other wants. It costs no concurrency the rows did not already cost: every
 * invoice write of an organization moved today's series and the kept windows, which serialized
 * those writers anyway, only in an order that could deadlock. Transactions that touch several
 * organizations (the invoice-clock sweeper) take the anchors in (organization, mode) order.
 */
export class AnalyticsWriterLock1763701300000 implements MigrationInterface {
  name = 'AnalyticsWriterLock1763701300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(anchorFunction('FOR UPDATE'));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(anchorFunction('FOR SHARE'));
  }
}

function anchorFunction(lock: 'FOR UPDATE' | 'FOR SHARE'): string {
  return `
    CREATE OR REPLACE FUNCTION analytics_anchor(org text, m text) RETURNS date LANGUAGE plpgsql AS $$
    DECLARE
      a date;
    BEGIN
      SELECT anchor_day INTO a FROM analytics_window_anchors WHERE organization_id = org AND mode = m ${lock};
      IF NOT FOUND THEN
        INSERT INTO analytics_window_anchors (organization_id, mode, anchor_day) VALUES (org, m, NULL) ON CONFLICT DO NOTHING;
        SELECT anchor_day INTO a FROM analytics_window_anchors WHERE organization_id = org AND mode = m ${lock};
      END IF;
      RETURN a;
    END $$`;
}
