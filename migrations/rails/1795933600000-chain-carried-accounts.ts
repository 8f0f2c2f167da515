import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Accounts a chain watcher reads on after the cursor has passed them (Solana): a step reads at most a budget
 * of transactions per wallet, so money or junk sent to one merchant's wallet in bulk never holds up other
 * merchants' payments. A wallet with more is left behind: where each of its accounts stands (the adapter's
 * own words: the slot read up to and the signature a part being read stopped at) is kept here, written in the
 * transaction that moves the cursor, so a restart or another instance taking over reads it on from there and
 * nothing of it is passed over.
 *
 * - One row per account behind; none at all in the common case (every account keeps up), so a quiet step
 *   writes nothing here.
 * - A system table of the watcher like `chain_cursors`, not tenant data: the transfers read from these
 *   accounts are kept for their organizations as before.
 *
 * Down drops it: a watcher from before reads every account up to each range's end (the rows' backlogs were
 * already passed by the cursor, so they are not read again by it).
 */
export class ChainCarriedAccounts1795933600000 implements MigrationInterface {
  name = 'ChainCarriedAccounts1795933600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE chain_carried_accounts (
        mode        text NOT NULL CHECK (mode IN ('test', 'live')),
        network     text NOT NULL,
        account     text NOT NULL,
        position    text NOT NULL,
        updated_at  timestamptz NOT NULL,
        PRIMARY KEY (mode, network, account)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE chain_carried_accounts`);
  }
}
