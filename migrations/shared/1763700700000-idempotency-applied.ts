import { MigrationInterface, QueryRunner } from 'typeorm';

/** An Idempotency-Key claim whose request committed its changes but has not stored its answer yet. */
export class IdempotencyApplied1763700700000 implements MigrationInterface {
  name = 'IdempotencyApplied1763700700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_keys DROP CONSTRAINT IF EXISTS idempotency_keys_state_check`);
    await q.query(`ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_state_check CHECK (state IN ('in_flight', 'applied', 'done'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE idempotency_keys SET state = 'in_flight' WHERE state = 'applied'`);
    await q.query(`ALTER TABLE idempotency_keys DROP CONSTRAINT IF EXISTS idempotency_keys_state_check`);
    await q.query(`ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_state_check CHECK (state IN ('in_flight', 'done'))`);
  }
}
