import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The watched deposit addresses of a network found by an index range instead of a filter: the watcher
 * asks on every scan whether more than 500 addresses are watched (and loads them when not), and
 * addresses whose monitoring window closed stay in the table for ever. Without this index both
 * statements read past every address ever handed out that is no longer watched (all 100,000 of a
 * table where 10 are still watched); with it they read only the watched ones, at most 501.
 * `watch_until` null means watched without end, hence the expression (the statements use the same one).
 */
export class DepositAddressesWatching1763703000100 implements MigrationInterface {
  name = 'DepositAddressesWatching1763703000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX deposit_addresses_watching_idx ON deposit_addresses (mode, network, (COALESCE(watch_until, 'infinity'::timestamptz)))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX deposit_addresses_watching_idx`);
  }
}
