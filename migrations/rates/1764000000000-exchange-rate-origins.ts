import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where each rate came from and when it was taken. A snapshot written by the live refresher holds
 * rates from several sources (the first one in RATE_SOURCES that answered for each currency), and a
 * currency no source answered is carried from the snapshot before with its old time and source, so
 * its age keeps growing until live pricing refuses it. Rows written before this migration take their
 * snapshot's source and time. The columns stay nullable so that a writer unaware of them still works
 * (a reader falls back to the snapshot's values).
 */
export class ExchangeRateOrigins1764000000000 implements MigrationInterface {
  name = 'ExchangeRateOrigins1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE exchange_rates ADD COLUMN source text, ADD COLUMN taken_at timestamptz`);
    await q.query(`UPDATE exchange_rates r SET source = s.source, taken_at = s.taken_at FROM rate_snapshots s WHERE s.id = r.snapshot_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE exchange_rates DROP COLUMN taken_at, DROP COLUMN source`);
  }
}
