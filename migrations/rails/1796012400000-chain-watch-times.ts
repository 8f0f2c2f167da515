import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which payment addresses a chain watcher looks for is decided by when the blocks it reads were made,
 * not by when it reads them: a watcher that fell behind (its node down for an hour) still finds a payment
 * made inside an address's window once that window has closed.
 *
 * - `chain_cursors.block_time`: the time stamped on the cursor's block, written with the cursor. The
 *   blocks after it were made after it, so an address whose window closed before it cannot be paid in them.
 *   Null for a cursor written before this column, or rewound to a block whose time is not known: the
 *   watcher then takes its own now less a margin.
 * - `chain_carried_accounts.since`: the cursor's block time when the account was first left behind
 *   (Solana), kept while it is carried: its transfers read late are no older than that.
 *
 * Down drops both: a watcher from before looks for the addresses whose window is open at its own now.
 */
export class ChainWatchTimes1796012400000 implements MigrationInterface {
  name = 'ChainWatchTimes1796012400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE chain_cursors ADD COLUMN block_time timestamptz`);
    await q.query(`ALTER TABLE chain_carried_accounts ADD COLUMN since timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE chain_carried_accounts DROP COLUMN since`);
    await q.query(`ALTER TABLE chain_cursors DROP COLUMN block_time`);
  }
}
