import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook deliveries are queued by the database as an event row is inserted, instead of by a
 * second statement from the service. Until now the webhooks module's outbox subscriber asked for the
 * subscribed endpoints after every event insert (one more round trip per event, and two more when an
 * endpoint existed); now an AFTER INSERT trigger on `events` inserts one pending delivery per enabled
 * endpoint of the event's organization and mode that takes its type, in the same statement and
 * transaction as the event, whoever writes the event.
 *
 * Delivery ids keep their shape (`delivery_` + a UUIDv7: a millisecond timestamp, then random
 * bits), made by `webhook_delivery_id()` from the database's clock and gen_random_uuid().
 */
export class WebhookFanOutTrigger1763703100000 implements MigrationInterface {
  name = 'WebhookFanOutTrigger1763703100000';

  async up(q: QueryRunner): Promise<void> {
    // A version 4 UUID with its first 48 bits replaced by the Unix time in milliseconds and its
    // version nibble turned from 4 (0100) into 7 (0111): bits 52 and 53 set.
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

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER events_webhook_fan_out ON events`);
    await q.query(`DROP FUNCTION webhook_fan_out()`);
    await q.query(`DROP FUNCTION webhook_delivery_id()`);
  }
}
