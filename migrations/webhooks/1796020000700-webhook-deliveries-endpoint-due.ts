import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dispatcher's claim reads each organization's due deliveries through its endpoints, in their current epoch
 * (persistence/delivery-statements.ts, CLAIM_BATCH): `webhook_deliveries_endpoint_due_idx` on an endpoint's
 * pending deliveries by epoch and due time. It replaces `webhook_deliveries_stale_idx` on `(endpoint_id,
 * endpoint_epoch)`, which the cancelling of a stopped endpoint's older deliveries reads by the same two leading
 * columns.
 */
export class WebhookDeliveriesEndpointDue1796020000700 implements MigrationInterface {
  name = 'WebhookDeliveriesEndpointDue1796020000700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX webhook_deliveries_endpoint_due_idx ON webhook_deliveries (endpoint_id, endpoint_epoch, next_attempt_at, id) WHERE status = 'pending'`,
    );
    await q.query(`DROP INDEX webhook_deliveries_stale_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX webhook_deliveries_stale_idx ON webhook_deliveries (endpoint_id, endpoint_epoch) WHERE status = 'pending'`);
    await q.query(`DROP INDEX webhook_deliveries_endpoint_due_idx`);
  }
}
