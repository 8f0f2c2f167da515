import { Client } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { attemptsOf, sleep, WebhookReceiver } from '../../support/webhook-receiver';
import { runWorkerPass } from '../../support/workers';

/** The start (UTC) of the month `k` months after the one holding now (k may be negative). */
const monthStart = (k: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + k, 1));
};
/** `p202611`: the suffix of the month partition starting at `at`. */
const suffix = (at: Date) => `p${at.toISOString().slice(0, 7).replace('-', '')}`;

/**
 * The events outbox and the webhook deliveries that stay small (docs/performance.md): `events`,
 * `webhook_deliveries` and `webhook_attempts` are partitioned by the month of the event id, created ahead by
 * the kernel's retention job, and a month past EVENTS_RETENTION_DAYS / WEBHOOK_DELIVERIES_RETENTION_DAYS is
 * dropped only once every durable handler has read it and no delivery in it is pending (its events wait for
 * its deliveries). Old events are written as the outbox would have written them then: ids `event_<UUIDv7 of
 * that time>`, each in its own transaction.
 */
describe('events and webhook deliveries retention', () => {
  let service: IsolatedService;
  let org: Awaited<ReturnType<IsolatedService['createOrg']>>;
  let hook: WebhookReceiver;
  let endpoint: { id: string };

  const db = <T>(work: (c: Client) => Promise<T>) => withClient(service.databaseUrl!, work);
  const partitions = (table: string) =>
    db(async (c) => {
      const { rows } = await c.query(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1`, [
        table,
      ]);
      return rows.map((r: { relname: string }) => r.relname);
    });
  const partitionOf = (table: string, column: string, id: string) =>
    db(async (c) => (await c.query(`SELECT tableoid::regclass::text AS part FROM ${table} WHERE ${column} = $1`, [id])).rows.map((r) => r.part as string));
  /** An event as the outbox wrote it at `at` (its id carries that time), in a transaction of its own. */
  const writeEvent = (at: Date) =>
    db(async (c) => {
      const id = `event_${uuidv7({ msecs: at.getTime() })}`;
      await c.query(`INSERT INTO events (id, organization_id, mode, type, data, created_at) VALUES ($1, $2, 'test', 'invoice.created', $3::jsonb, $4)`, [
        id,
        org.id,
        JSON.stringify({ object: { id: 'invoice_retention', status: 'PENDING' } }),
        at,
      ]);
      return id;
    });
  const readEvent = (id: string) => org.test.post(`/events/${id}`);
  /**
   * Runs the durable handlers until every handler of the service has read the event `id`. A handler reads an
   * event once every transaction of the cluster that began before it has ended (docs/DEVELOPING.md, commit
   * order), so on a server shared with other work this can take more than one pass.
   */
  const handlersRead = async (id: string) => {
    for (const deadline = Date.now() + 30_000; ;) {
      await runWorkerPass(org.test, 'durable-event-handlers');
      const { rows } = await db((c) =>
        c.query(
          `SELECT count(*)::int AS behind FROM event_handler_cursors c, events e
            WHERE e.id = $1 AND c.handler NOT LIKE 'retention_test.%' AND (c.transaction_id, c.position) < (e.transaction_id, e.position)`,
          [id],
        ),
      );
      if (rows[0].behind === 0) return;
      if (Date.now() > deadline) throw new Error(`durable handlers still behind event ${id}`);
      await sleep(200);
    }
  };
  const retentionPass = () => runWorkerPass(org.test, 'partition-retention');
  /**
   * A handler (named `retention_test.<name>`, not one of the service's) that has read nothing yet, so every
   * month is held while it lasts; gives back what ends it.
   */
  const handlerBehindAll = async (name: string) => {
    const handler = `retention_test.${name}`;
    await db((c) => c.query(`INSERT INTO event_handler_cursors (handler, transaction_id, position) VALUES ($1, '1'::xid8, 0)`, [handler]));
    return () => db((c) => c.query(`DELETE FROM event_handler_cursors WHERE handler = $1`, [handler]));
  };

  beforeAll(async () => {
    service = await startIsolatedService({
      EVENTS_RETENTION_DAYS: '30',
      WEBHOOK_DELIVERIES_RETENTION_DAYS: '30',
      PARTITION_RETENTION_SECONDS: '0',
      WEBHOOK_DISPATCH_INTERVAL_MS: '3600000',
      WEBHOOK_RETRY_SCHEDULE: '1h',
    });
    org = await service.createOrg('Events retention');
    hook = await WebhookReceiver.start();
    endpoint = expectSuccess(await org.test.post('/webhooks', { url: hook.url(), event_types: ['*'] }), 201);
    // The pass the service runs at start is over before the old events below are written (a pass asked for waits for it).
    await retentionPass();
  }, 90_000);
  afterAll(async () => {
    await service?.stop();
    await hook?.stop();
  });

  it('drops a month every handler has read, keeps one a handler is behind on and one with a retrying delivery, and creates months ahead', async () => {
    const [readMonth, behindMonth, retryMonth] = [monthStart(-5), monthStart(-4), monthStart(-3)];
    const day = 86_400_000;
    const read = await writeEvent(new Date(readMonth.getTime() + 2 * day));
    const behind = await writeEvent(new Date(behindMonth.getTime() + 2 * day));
    const retrying = await writeEvent(new Date(retryMonth.getTime() + 2 * day));
    // Every handler of the service reads all three; a handler that has read `read` only (one removed from the code, or stuck) holds the rest.
    await handlersRead(retrying);
    await db((c) =>
      c.query(
        `INSERT INTO event_handler_cursors (handler, transaction_id, position) SELECT 'retention_test.behind', transaction_id, position FROM events WHERE id = $1`,
        [read],
      ),
    );

    // The old event asked for again, and its first attempt fails: the delivery waits for its retry (an hour away).
    hook.setDefault({ status: 500 });
    const queued: { delivery_id: string } = expectSuccess(await org.test.post(`/webhooks/${endpoint.id}/redeliver`, { event_id: retrying }), 202);
    await runWorkerPass(org.test, 'webhook-dispatcher');
    const [failed] = await attemptsOf(org.test, endpoint.id, 1, { event_id: retrying });
    expect(failed).toMatchObject({ event_id: retrying, event_type: 'invoice.created', succeeded: false, response_status: 500 });

    await retentionPass();
    const [events, deliveries, attempts] = await Promise.all(['events', 'webhook_deliveries', 'webhook_attempts'].map(partitions));
    // The month every handler read is gone, with its event.
    expect(events).not.toContain(`events_${suffix(readMonth)}`);
    expectError(await readEvent(read), 404, { code: 'event_not_found' });
    // The month a handler has not finished is kept, its event where the job moved it.
    expect(await partitionOf('events', 'id', behind)).toEqual([`events_${suffix(behindMonth)}`]);
    expect(expectSuccess(await readEvent(behind)).id).toBe(behind);
    // The month holding a delivery still to be retried is kept: the delivery, its attempt and its event.
    expect(await partitionOf('webhook_deliveries', 'id', queued.delivery_id)).toEqual([`webhook_deliveries_${suffix(retryMonth)}`]);
    expect(await partitionOf('webhook_attempts', 'delivery_id', queued.delivery_id)).toEqual([`webhook_attempts_${suffix(retryMonth)}`]);
    expect(await partitionOf('events', 'id', retrying)).toEqual([`events_${suffix(retryMonth)}`]);
    expect((await attemptsOf(org.test, endpoint.id, 1, { event_id: retrying })).map((a) => a.id)).toEqual([failed.id]);
    // This month and the two after it are ready, for the three tables.
    for (const k of [0, 1, 2]) {
      expect(events).toContain(`events_${suffix(monthStart(k))}`);
      expect(deliveries).toContain(`webhook_deliveries_${suffix(monthStart(k))}`);
      expect(attempts).toContain(`webhook_attempts_${suffix(monthStart(k))}`);
    }
    const listed = expectSuccess(await org.test.post('/events', { limit: 100 })).items.map((e: { id: string }) => e.id);
    expect(listed).toEqual(expect.arrayContaining([behind, retrying]));
    expect(listed).not.toContain(read);

    // The handler catches up: its month goes at the next pass.
    await db((c) => c.query(`DELETE FROM event_handler_cursors WHERE handler = 'retention_test.behind'`));
    await retentionPass();
    expect(await partitions('events')).not.toContain(`events_${suffix(behindMonth)}`);
    expectError(await readEvent(behind), 404, { code: 'event_not_found' });
    expect(await partitionOf('events', 'id', retrying)).toEqual([`events_${suffix(retryMonth)}`]);

    // The retry succeeds: the delivery's month goes, and with equal retentions its event's in the same pass
    // (the deliveries' plan runs first, so its month no longer holds the events').
    hook.setDefault({ status: 200 });
    await db((c) => c.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1`, [queued.delivery_id]));
    await runWorkerPass(org.test, 'webhook-dispatcher');
    await attemptsOf(org.test, endpoint.id, 2, { event_id: retrying });
    await retentionPass();
    expect(await partitions('webhook_deliveries')).not.toContain(`webhook_deliveries_${suffix(retryMonth)}`);
    expect(await partitions('webhook_attempts')).not.toContain(`webhook_attempts_${suffix(retryMonth)}`);
    expect(await partitions('events')).not.toContain(`events_${suffix(retryMonth)}`);
    expectError(await readEvent(retrying), 404, { code: 'event_not_found' });
    expect(expectSuccess(await org.test.post(`/webhooks/${endpoint.id}/attempts`, { event_id: retrying })).items).toEqual([]);
  }, 60_000);

  it('takes events and deliveries past the newest month made ahead, and gives them their month at the next pass', async () => {
    await retentionPass();
    const later = monthStart(6);
    expect(await partitions('events')).not.toContain(`events_${suffix(later)}`);
    const id = await writeEvent(new Date(later.getTime() + 3_600_000));
    expect(await partitionOf('events', 'id', id)).toEqual(['events_default']);
    hook.setDefault({ status: 200 });
    const queued: { delivery_id: string } = expectSuccess(await org.test.post(`/webhooks/${endpoint.id}/redeliver`, { event_id: id }), 202);
    expect(await partitionOf('webhook_deliveries', 'id', queued.delivery_id)).toEqual(['webhook_deliveries_default']);
    await runWorkerPass(org.test, 'webhook-dispatcher');
    await attemptsOf(org.test, endpoint.id, 1, { event_id: id });

    await retentionPass();
    expect(await partitionOf('events', 'id', id)).toEqual([`events_${suffix(later)}`]);
    expect(await partitionOf('webhook_deliveries', 'id', queued.delivery_id)).toEqual([`webhook_deliveries_${suffix(later)}`]);
    expect(await partitionOf('webhook_attempts', 'delivery_id', queued.delivery_id)).toEqual([`webhook_attempts_${suffix(later)}`]);
    expect(expectSuccess(await readEvent(id)).id).toBe(id);

    // An event made now lands in this month's partition, and a webhook goes out for it.
    const before = hook.received.length;
    const created = expectSuccess(await org.test.post('/webhooks', { url: 'https://elsewhere.example.com/hook', event_types: ['invoice.voided'] }), 201);
    const sentFor = () => hook.received.slice(before).find((r) => r.json?.data?.object?.id === created.id);
    for (const deadline = Date.now() + 30_000; !sentFor() && Date.now() < deadline;) {
      await runWorkerPass(org.test, 'webhook-dispatcher');
      await sleep(100);
    }
    const sent = sentFor();
    expect(sent?.json?.type).toBe('webhook_endpoint.created');
    expect(await partitionOf('events', 'id', String(sent?.headers['webhook-id']))).toEqual([`events_${suffix(monthStart(0))}`]);
  }, 60_000);

  it('a month is never dropped under a writer still adding a delivery of its events: the pass waits for it, then sees the delivery and keeps the month', async () => {
    const month = monthStart(-7);
    const event = await writeEvent(new Date(month.getTime() + 2 * 86_400_000));
    await handlersRead(event);
    // A handler behind the event keeps its month through the first pass, which gives the month its own partition.
    const caughtUp = await handlerBehindAll('hold');
    await retentionPass();
    const part = `events_${suffix(month)}`;
    expect(await partitionOf('events', 'id', event)).toEqual([part]);
    await caughtUp();

    // A writer (as a durable handler or a redelivery does) reads the event and queues a delivery of it, not committed yet.
    const writer = new Client({ connectionString: service.databaseUrl! });
    await writer.connect();
    const deliveryId = `delivery_${uuidv7()}`;
    try {
      await writer.query('BEGIN');
      await writer.query(`SELECT id FROM events WHERE id = $1`, [event]);
      await writer.query(
        `INSERT INTO webhook_deliveries (id, organization_id, mode, endpoint_id, event_id, status, attempt_count, next_attempt_at, created_at)
         VALUES ($1, $2, 'test', $3, $4, 'pending', 0, now() + interval '1 hour', now())`,
        [deliveryId, org.id, endpoint.id, event],
      );
      // The pass starts while it is open and has to wait for it on the month's partition.
      const pass = retentionPass();
      // Dropping a partition takes the whole table's strongest lock, which the open writer's read holds off.
      const waiting = async () =>
        (
          await db((c) =>
            c.query(
              `SELECT count(*)::int AS n FROM pg_locks WHERE relation IN (to_regclass('events'), to_regclass($1)) AND mode = 'AccessExclusiveLock' AND NOT granted`,
              [part],
            ),
          )
        ).rows[0].n as number;
      for (const deadline = Date.now() + 4_000; (await waiting()) === 0;) {
        if (Date.now() > deadline) throw new Error(`the retention pass never waited on the events table`);
        await sleep(50);
      }
      await writer.query('COMMIT');
      await pass;
    } finally {
      await writer.end();
    }
    // The committed delivery holds its event: the month, the event and the delivery are all still there.
    expect(await partitions('events')).toContain(part);
    expect(expectSuccess(await readEvent(event)).id).toBe(event);
    expect(await partitionOf('webhook_deliveries', 'id', deliveryId)).toEqual(['webhook_deliveries_default']);
  }, 60_000);

  it('a redelivery whose event goes (its month dropped) after the event was read queues nothing: 404, no delivery left pointing at nothing', async () => {
    const event = await writeEvent(new Date(monthStart(-8).getTime() + 2 * 86_400_000));
    // The endpoint's lock is held, so the redelivery reads the event and then waits in its transaction.
    const holder = new Client({ connectionString: service.databaseUrl! });
    await holder.connect();
    try {
      const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      await holder.query('BEGIN');
      await holder.query(`SELECT id FROM webhook_endpoints WHERE id = $1 FOR UPDATE`, [endpoint.id]);
      const asked = org.test.post(`/webhooks/${endpoint.id}/redeliver`, { event_id: event });
      for (const deadline = Date.now() + 10_000; ;) {
        const { rows } = await db((c) =>
          c.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%FROM webhook_endpoints%FOR NO KEY UPDATE%' AND pid <> $1`,
            [holderPid],
          ),
        );
        if (rows[0].n > 0) break;
        if (Date.now() > deadline) throw new Error('the redelivery never waited for the endpoint');
        await sleep(50);
      }
      // Meanwhile its month is dropped (as the retention job does once nothing holds it).
      await db((c) => c.query(`DELETE FROM events WHERE id = $1`, [event]));
      await holder.query('COMMIT');
      expectError(await asked, 404, { code: 'event_not_found' });
    } finally {
      await holder.end();
    }
    expect(await db(async (c) => (await c.query(`SELECT id FROM webhook_deliveries WHERE event_id = $1`, [event])).rows)).toEqual([]);
  }, 60_000);

  it('keeps a month still held without locking anything: a pass finds it held while a reader has the table open, and neither waits', async () => {
    const month = monthStart(-9);
    const event = await writeEvent(new Date(month.getTime() + 2 * 86_400_000));
    await handlersRead(event);
    const caughtUp = await handlerBehindAll('reader');
    // A first pass gives the month its partition (moving a row out of the default partition locks the table).
    await retentionPass();
    expect(await partitionOf('events', 'id', event)).toEqual([`events_${suffix(month)}`]);
    const failures = async () => {
      const text = await (await fetch(`${service.server.baseUrl}/metrics`)).text();
      return Number(/partition_retention_failures_total\{plan="events"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const before = await failures();
    const reader = new Client({ connectionString: service.databaseUrl! });
    await reader.connect();
    try {
      // A long read of the events (a list, a durable handler's pass) holds the table through the whole pass.
      await reader.query('BEGIN');
      await reader.query(`SELECT count(*) FROM events`);
      await retentionPass();
      await reader.query('COMMIT');
    } finally {
      await reader.end();
      await caughtUp();
    }
    // The month a handler is behind on was kept by the unlocked look; no lock was asked for, so none timed out.
    expect(await partitionOf('events', 'id', event)).toEqual([`events_${suffix(month)}`]);
    expect(await failures()).toBe(before);
  }, 60_000);

  it('records no attempt of a delivery that went while the attempt was in flight (cancelled, then its month dropped)', async () => {
    const invoice = expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '3' }] }), 201);
    // Every request of this pass is answered slowly: the attempt is in flight long enough.
    hook.respondWith(...Array.from({ length: 10 }, () => ({ status: 200, delayMs: 1500 })));
    const pass = runWorkerPass(org.test, 'webhook-dispatcher');
    let deliveryId: string | undefined;
    for (const deadline = Date.now() + 15_000; !deliveryId; await sleep(25)) {
      if (Date.now() > deadline) throw new Error('the invoice.created delivery was never sent');
      const arrived = hook.received.find((w) => w.json?.type === 'invoice.created' && w.json.data.object.id === invoice.id);
      if (!arrived) continue;
      const { rows } = await db((c) =>
        c.query(
          `SELECT d.id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
            WHERE e.type = 'invoice.created' AND e.data->'object'->>'id' = $1 AND d.endpoint_id = $2`,
          [invoice.id, endpoint.id],
        ),
      );
      deliveryId = rows[0]?.id as string | undefined;
    }
    // Gone while the endpoint is still answering: what retention does to a cancelled delivery's month.
    await db((c) => c.query(`DELETE FROM webhook_deliveries WHERE id = $1`, [deliveryId]));
    await pass;
    const { rows } = await db((c) => c.query(`SELECT tableoid::regclass::text AS part FROM webhook_attempts WHERE delivery_id = $1`, [deliveryId]));
    expect(rows).toEqual([]);
  });
});
