import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The unmatched transfers still to be asked for once more (chains whose blocks have no hash to compare,
 * Solana), by organization and mode: the watcher's recheck takes them in fair batches (shared/db/fair-batch.ts,
 * at most a share per organization's mode, organizations interleaved), walking this index's organizations
 * instead of the oldest rows of all, so one organization's flood of transfers no longer holds back another's.
 */
export class UnmatchedChecksByOrganization1796020001100 implements MigrationInterface {
  name = 'UnmatchedChecksByOrganization1796020001100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX unattributed_transfers_unchecked_org_idx ON unattributed_transfers (organization_id, mode, network, block_number, id)
        WHERE status = 'OPEN' AND NOT final_checked AND NOT orphaned`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX unattributed_transfers_unchecked_org_idx`);
  }
}
