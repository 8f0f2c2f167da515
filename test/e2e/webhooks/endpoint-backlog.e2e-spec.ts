import { newId } from '../../../src/shared/ids/ids';
import { CANCEL_IN_REQUEST } from '../../../src/modules/webhooks/persistence/delivery-statements';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { eventually, WebhookReceiver } from '../../support/webhook-receiver';
import { runWorkerPass } from '../../support/workers';

/** Pending deliveries queued to the endpoint before the test pauses or deletes it (more than the request cancels). */
const BACKLOG = 2500;

/**
 * An endpoint that stops taking deliveries with a large backlog (paused, deleted): the request marks at most
 * CANCEL_IN_REQUEST of them cancelled, so it stays quick whatever the backlog; none of the rest is ever sent,
 * also when the endpoint is enabled again and they fall due; the dispatcher's passes cancel them. The
 * dispatcher's loop is off here: its passes run on demand, so what the request alone did can be counted.
 */
describe('webhook endpoints paused or deleted with a backlog', () => {
  let service: IsolatedService;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    service = await startIsolatedService({ WEBHOOK_DISPATCHER: 'false' });
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await service?.stop();
  });

  /** An organization, its endpoint to the receiver, and BACKLOG events queued to it, due in an hour. */
  async function endpointWithBacklog(name: string) {
    const org = await service.createOrg(name);
    const endpoint = expectSuccess(await org.test.post('/webhooks', { url: receiver.url(`/${name}`), event_types: ['*'] }), 201);
    const ids: string[] = Array.from({ length: BACKLOG }, () => newId('event'));
    // One transaction: the fan-out, which reads committed events, finds each one's delivery already queued.
    await withClient(service.databaseUrl!, async (c) => {
      await c.query('BEGIN');
      await c.query(
        `INSERT INTO events (id, organization_id, mode, type, data, created_at)
         SELECT id, $2, 'test', 'invoice.created', '{"object":{}}', now() FROM unnest($1::text[]) id`,
        [ids, org.id],
      );
      await c.query(
        `INSERT INTO webhook_deliveries (id, organization_id, mode, endpoint_id, event_id, status, attempt_count, next_attempt_at, created_at)
         SELECT 'delivery_' || md5(id), $2, 'test', $3, id, 'pending', 1, now() + interval '1 hour', now() FROM unnest($1::text[]) id`,
        [ids, org.id, endpoint.id],
      );
      await c.query('COMMIT');
    });
    return { org, endpoint, ids: new Set(ids) };
  }

  const statuses = async (endpointId: string) =>
    Object.fromEntries(
      (
        await withClient(service.databaseUrl!, (c) =>
          c.query(`SELECT status, last_error, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`, [endpointId]),
        )
      ).rows.map((r) => [`${r.status}${r.last_error ? `: ${r.last_error}` : ''}`, r.n as number]),
    );
  const cancelling = async (endpointId: string) =>
    (await withClient(service.databaseUrl!, (c) => c.query(`SELECT cancelling FROM webhook_endpoints WHERE id = $1`, [endpointId]))).rows[0]
      .cancelling as boolean;

  it('pausing cancels a bounded part in the request; the rest is never sent, also once enabled again, and the passes cancel it', async () => {
    const { org, endpoint, ids } = await endpointWithBacklog('paused');
    expectSuccess(await org.test.put(`/webhooks/${endpoint.id}`, { enabled: false }));
    expect(await statuses(endpoint.id)).toEqual({ 'cancelled: endpoint disabled': CANCEL_IN_REQUEST, pending: BACKLOG - CANCEL_IN_REQUEST });
    expect(await cancelling(endpoint.id)).toBe(true);

    // Enabled again, and what is left of the backlog falls due: none of it goes, what happens from now on does.
    expectSuccess(await org.test.put(`/webhooks/${endpoint.id}`, { enabled: true }));
    await withClient(service.databaseUrl!, (c) =>
      c.query(`UPDATE webhook_deliveries SET next_attempt_at = now() - interval '1 second' WHERE endpoint_id = $1 AND status = 'pending'`, [endpoint.id]),
    );
    const later = expectSuccess(await org.test.post('/webhooks', { url: 'https://unrelated.example.com/hook', event_types: ['invoice.voided'] }), 201);
    // What happened since goes: the later endpoint's creation (and the endpoint's own updates), in the passes
    // that follow its fan-out.
    const sent = () => receiver.received.filter((r) => r.path === '/paused');
    const objectIds = () => sent().map((r) => (r.json as { data: { object: { id: string } } }).data.object.id);
    await eventually(async () => {
      await runWorkerPass(org.test, 'webhook-dispatcher');
      if (!objectIds().includes(later.id)) throw new Error('the later event is not delivered yet');
    }, 20_000);
    expect(sent().filter((r) => ids.has(String(r.headers['webhook-id'])))).toEqual([]);
    expect(await statuses(endpoint.id)).toEqual({ 'cancelled: endpoint disabled': BACKLOG, succeeded: sent().length });
    expect(await cancelling(endpoint.id)).toBe(false);
  });

  it('a pass skips an endpoint or deliveries another transaction holds instead of waiting, and cancels them on a later pass', async () => {
    const held = await endpointWithBacklog('held-endpoint');
    const other = await endpointWithBacklog('held-deliveries');
    expectSuccess(await held.org.test.delete(`/webhooks/${held.endpoint.id}`));
    expectSuccess(await other.org.test.put(`/webhooks/${other.endpoint.id}`, { enabled: false }));
    // Another transaction holds the first endpoint (as a request changing it would) and ten of the second's
    // deliveries (as an attempt being recorded would).
    await withClient(service.databaseUrl!, async (c) => {
      await c.query('BEGIN');
      try {
        await c.query(`SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR NO KEY UPDATE`, [held.endpoint.id]);
        await c.query(`SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending' ORDER BY id LIMIT 10 FOR UPDATE`, [other.endpoint.id]);
        const pass = runWorkerPass(other.org.test, 'webhook-dispatcher').then(() => 'done');
        const waited = new Promise((resolve) => setTimeout(() => resolve('still waiting after 15 s'), 15_000));
        expect(await Promise.race([pass, waited])).toBe('done');
        expect(await statuses(held.endpoint.id)).toEqual({ 'cancelled: endpoint deleted': CANCEL_IN_REQUEST, pending: BACKLOG - CANCEL_IN_REQUEST });
        expect(await statuses(other.endpoint.id)).toEqual({ 'cancelled: endpoint disabled': BACKLOG - 10, pending: 10 });
        expect([await cancelling(held.endpoint.id), await cancelling(other.endpoint.id)]).toEqual([true, true]);
      } finally {
        await c.query('ROLLBACK');
      }
    });
    await runWorkerPass(other.org.test, 'webhook-dispatcher');
    expect(await statuses(held.endpoint.id)).toEqual({ 'cancelled: endpoint deleted': BACKLOG });
    expect(await statuses(other.endpoint.id)).toEqual({ 'cancelled: endpoint disabled': BACKLOG });
    expect([await cancelling(held.endpoint.id), await cancelling(other.endpoint.id)]).toEqual([false, false]);
  });

  it('deleting cancels a bounded part in the request and the passes cancel the rest, none of it sent', async () => {
    const { org, endpoint } = await endpointWithBacklog('deleted');
    expectSuccess(await org.test.delete(`/webhooks/${endpoint.id}`));
    expect(await statuses(endpoint.id)).toEqual({ 'cancelled: endpoint deleted': CANCEL_IN_REQUEST, pending: BACKLOG - CANCEL_IN_REQUEST });
    await withClient(service.databaseUrl!, (c) =>
      c.query(`UPDATE webhook_deliveries SET next_attempt_at = now() - interval '1 second' WHERE endpoint_id = $1 AND status = 'pending'`, [endpoint.id]),
    );
    await runWorkerPass(org.test, 'webhook-dispatcher');
    expect(receiver.received.filter((r) => r.path === '/deleted')).toEqual([]);
    expect(await statuses(endpoint.id)).toEqual({ 'cancelled: endpoint deleted': BACKLOG });
    expect(await cancelling(endpoint.id)).toBe(false);
  });
});
