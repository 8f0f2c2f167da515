import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook deliveries are queued by the webhooks module's durable event handler `webhooks.fan_out`
 * (src/modules/webhooks/dispatch/webhook-fan-out.handler.ts) after each event's commit, instead of by
 * the AFTER INSERT trigger on `events` in the writer's own statement: the writer's transaction no longer
 * reads the endpoints nor writes the deliveries.
 *
 * The trigger and its functions go, and the handler's cursor is made here, in the same transaction,
 * rather than at the service's first start (where a new handler starts at the end): no event falls
 * between the two. Dropping the trigger waits for every transaction that inserted an event (their
 * deliveries were queued by the trigger); a transaction that inserts one later waits for this one and
 * gets no trigger. The cursor sits below every transaction still running, so those later events are
 * after it; events it reads again that the trigger already served are skipped (the handler queues no
 * second delivery of an event to an endpoint).
 */
export class WebhookFanOutHandler1795933302189 implements MigrationInterface {
  name = 'WebhookFanOutHandler1795933302189';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER events_webhook_fan_out ON events`);
    await q.query(`DROP FUNCTION webhook_fan_out()`);
    await q.query(`DROP FUNCTION webhook_delivery_id()`);
    await q.query(`
      INSERT INTO event_handler_cursors (handler, transaction_id, position)
      VALUES ('webhooks.fan_out', pg_snapshot_xmin(pg_current_snapshot()), 0)
      ON CONFLICT (handler) DO NOTHING`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM event_handler_cursors WHERE handler = 'webhooks.fan_out'`);
    // As migration 1763703100000-webhook-fan-out-trigger made them: a delivery id is `delivery_` and a
    // UUIDv7 (the Unix time in milliseconds in its first 48 bits, version bits 52 and 53 set).
    await q.query(`
      CREATE FUNCTION webhook_delivery_id() RETURNS text LANGUAGE sql VOLATILE AS $$
        SELECT 'delivery_' || encode(
                 set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
                                         PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                                         FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid::text
      $$`);
    await q.query(`
      CREATE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO webhook_deliveries (id, organization_id, mode, endpoint_id, event_id, status, attempt_count, next_attempt_at, created_at)
        SELECT webhook_delivery_id(), NEW.organization_id, NEW.mode, e.id, NEW.id, 'pending', 0, now(), NEW.created_at
          FROM webhook_endpoints e
         WHERE e.organization_id = NEW.organization_id AND e.mode = NEW.mode AND e.enabled AND e.deleted_at IS NULL
           AND ('*' = ANY (e.event_types) OR NEW.type = ANY (e.event_types))
         ORDER BY e.id;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER events_webhook_fan_out AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION webhook_fan_out()`);
  }
}
