import { MigrationInterface, QueryRunner } from 'typeorm';
import { WebhookFanOutTrigger1763703100000 } from './1763703100000-webhook-fan-out-trigger';

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
    // The trigger and its functions as that migration made them.
    await new WebhookFanOutTrigger1763703100000().up(q);
  }
}
