import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a payout report must prove (decisions §19, docs/refunds.md "What a payout report must prove"):
 *
 * - `claimed_height`: the chain's tip height when the payer named the destination; the payout must be
 *   mined in a later block (null for refunds claimed before this migration: they are not held to it).
 * - `tx_seen_unmined`: the node showed the reported transaction unmined after the claim (then it is new
 *   whatever block it lands in).
 * - `tx_missing_since`: since when the node does not show the reported transaction (REFUND_TX_GRACE_SECONDS).
 * - `released_tx_hash`, `released_at`: a payout taken back after the grace, still watched for a while,
 *   so that its confirming later is logged.
 * - `refund_payout_transfers`: each transfer (transaction plus output or log position) that pays a
 *   refund, taken when it is shown to pay it. Its key is the network, the transaction and the transfer,
 *   whatever the organization and the mode: a transfer pays one refund anywhere. It replaces the unique
 *   index on the reported hash, which let any report (paying or not) hold a transaction.
 */
export class RefundPayoutProof1764600000000 implements MigrationInterface {
  name = 'RefundPayoutProof1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE refunds
        ADD COLUMN claimed_height   bigint NULL,
        ADD COLUMN tx_seen_unmined  boolean NOT NULL DEFAULT false,
        ADD COLUMN tx_missing_since timestamptz NULL,
        ADD COLUMN released_tx_hash text NULL,
        ADD COLUMN released_at      timestamptz NULL`);
    await q.query(`DROP INDEX refunds_tx_idx`);
    await q.query(`CREATE INDEX refunds_released_idx ON refunds (released_at) WHERE released_tx_hash IS NOT NULL`);
    await q.query(`
      CREATE TABLE refund_payout_transfers (
        network          text NOT NULL,
        tx_hash          text NOT NULL CHECK (tx_hash = lower(tx_hash)),
        output           text NOT NULL,
        refund_id        text NOT NULL REFERENCES refunds(id),
        organization_id  text NOT NULL REFERENCES organizations(id),
        mode             text NOT NULL CHECK (mode IN ('test', 'live')),
        units            numeric(78, 0) NOT NULL CHECK (units > 0),
        created_at       timestamptz NOT NULL,
        PRIMARY KEY (network, tx_hash, output)
      )`);
    await q.query(`CREATE INDEX refund_payout_transfers_refund_idx ON refund_payout_transfers (refund_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE refund_payout_transfers`);
    await q.query(`DROP INDEX refunds_released_idx`);
    await q.query(`CREATE UNIQUE INDEX refunds_tx_idx ON refunds (mode, network, lower(tx_hash)) WHERE tx_hash IS NOT NULL`);
    await q.query(`
      ALTER TABLE refunds DROP COLUMN claimed_height, DROP COLUMN tx_seen_unmined, DROP COLUMN tx_missing_since,
        DROP COLUMN released_tx_hash, DROP COLUMN released_at`);
  }
}
