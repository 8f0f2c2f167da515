import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pausing or deleting an endpoint no longer cancels its whole backlog in the request (docs/webhooks.md,
 * "Pausing and deleting an endpoint with a backlog").
 *
 * - `webhook_endpoints.epoch` goes up by one each time the endpoint stops taking its pending deliveries
 *   (paused, deleted, disabled after failures or after its secret was lost). Every delivery records the
 *   epoch of its endpoint when it was queued (`endpoint_epoch`); the dispatcher claims only deliveries of
 *   the endpoint's current epoch, so a delivery queued before a pause is never sent, also after the
 *   endpoint is enabled again, whether or not it has been marked cancelled yet.
 * - `webhook_endpoints.cancelling`: pending deliveries of an older epoch may remain; the request cancels
 *   a bounded number of them and the dispatcher's passes the rest, in batches, then clear the flag.
 * - `webhook_deliveries_stale_idx`: an endpoint's pending deliveries by epoch, what those batches and the
 *   check that none is left read.
 * - Existing deliveries and endpoints start at epoch 0. A delivery inserted without an epoch (by an
 *   instance from before this migration, during a rolling upgrade) gets its endpoint's current one from
 *   a trigger that fires only then (the column's default, -1, marks it).
 */
export class WebhookEndpointEpochs1796020000000 implements MigrationInterface {
  name = 'WebhookEndpointEpochs1796020000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_endpoints ADD COLUMN epoch integer NOT NULL DEFAULT 0, ADD COLUMN cancelling boolean NOT NULL DEFAULT false`);
    await q.query(`CREATE INDEX webhook_endpoints_cancelling_idx ON webhook_endpoints (id) WHERE cancelling`);
    // Existing rows take 0 (stored once as the column's missing value); rows inserted later take -1 unless given one.
    await q.query(`ALTER TABLE webhook_deliveries ADD COLUMN endpoint_epoch integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE webhook_deliveries ALTER COLUMN endpoint_epoch SET DEFAULT -1`);
    await q.query(`CREATE INDEX webhook_deliveries_stale_idx ON webhook_deliveries (endpoint_id, endpoint_epoch) WHERE status = 'pending'`);
    await q.query(`
      CREATE FUNCTION webhook_delivery_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        SELECT epoch INTO NEW.endpoint_epoch FROM webhook_endpoints WHERE id = NEW.endpoint_id;
        NEW.endpoint_epoch := coalesce(NEW.endpoint_epoch, 0);
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER webhook_delivery_epoch BEFORE INSERT ON webhook_deliveries
        FOR EACH ROW WHEN (NEW.endpoint_epoch = -1) EXECUTE FUNCTION webhook_delivery_epoch()`);
  }

  async down(q: QueryRunner): Promise<void> {
    // What an older epoch still has pending would be sent again by the code before this one: cancel it first.
    await q.query(`
      UPDATE webhook_deliveries d SET status = 'cancelled', next_attempt_at = NULL, completed_at = now(),
             last_error = CASE WHEN e.deleted_at IS NULL THEN 'endpoint disabled' ELSE 'endpoint deleted' END
        FROM webhook_endpoints e
       WHERE e.id = d.endpoint_id AND d.status = 'pending' AND d.endpoint_epoch < e.epoch`);
    await q.query(`DROP TRIGGER webhook_delivery_epoch ON webhook_deliveries`);
    await q.query(`DROP FUNCTION webhook_delivery_epoch()`);
    await q.query(`DROP INDEX webhook_deliveries_stale_idx`);
    await q.query(`ALTER TABLE webhook_deliveries DROP COLUMN endpoint_epoch`);
    await q.query(`DROP INDEX webhook_endpoints_cancelling_idx`);
    await q.query(`ALTER TABLE webhook_endpoints DROP COLUMN epoch, DROP COLUMN cancelling`);
  }
}
