import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Api, ApiResponse } from '../support/api';
import { createDatabase, dropDatabase, withClient } from '../support/pg';
import { ADMIN_TOKEN, errorLines, linesWith, RunningServer, startServer } from '../support/server';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { embeddedUrl } from '../support/embedded';

/**
 * SIGKILL in the middle of a burst of invoice creations, payment reports and payment status
 * changes; restart on the same data; retry what got no answer (with the same keys, as a client
 * would); then check the invariants on every stored row.
 */
interface Sent {
  kind: 'invoice' | 'payment' | 'status';
  path: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  answer: ApiResponse | null;
}

const BURST_MS = Number(process.env.CHAOS_BURST_MS ?? 1500);
const CONCURRENCY = 12;
const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
const price = () => `${10 + Math.floor(Math.random() * 90)}.${String(Math.floor(Math.random() * 100)).padStart(2, '0')}`;

describe('crash safety: SIGKILL mid-burst, restart, invariants', () => {
  let databaseUrl: string | null = null;
  let dataDir: string | null = null;
  let server: RunningServer | null = null;

  afterAll(async () => {
    await server?.stop('SIGKILL');
    const pg = process.env.TEST_PG_SERVER_URL;
    if (pg && databaseUrl) await dropDatabase(pg, databaseUrl);
  });

  const start = (port?: number) => startServer(databaseUrl ? { databaseUrl, port } : { dataDir: dataDir!, port });
  const sqlUrl = () => databaseUrl ?? embeddedUrl(dataDir!);

  it('keeps every invoice whole, every invoice state in line with its payments, one payment per key, and every acknowledged write', async () => {
    const pg = process.env.TEST_PG_SERVER_URL;
    if (pg) databaseUrl = await createDatabase(pg, 'ipa_test_chaos');
    else dataDir = mkdtempSync(join(tmpdir(), 'ipa-chaos-'));
    server = await start();
    const made = await new Api(null, server.baseUrl).post('/admin/organizations', { name: 'Chaos' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
    const testKey = made.body.data.test_key as string;
    let api = new Api(testKey, server.baseUrl);
    // A webhook endpoint for every event: each committed event must have its delivery queued with it.
    const hook = await api.post('/webhooks', { url: 'http://127.0.0.1:9/hooks', event_types: ['*'] });
    expect(hook.status).toBe(201);

    const sent: Sent[] = [];
    const invoices: string[] = [];
    const pendingPayments: string[] = [];
    let killed = false;

    const send = async (s: Sent) => {
      sent.push(s);
      try {
        s.answer = await api.post(s.path, s.body, { headers: s.headers });
      } catch {
        s.answer = null;
      }
      return s.answer;
    };

    const one = async () => {
      const roll = Math.random();
      if (roll < 0.4 || invoices.length < 3) {
        const ref = randomUUID();
        const res = await send({
          kind: 'invoice',
          path: '/invoices/create',
          body: {
            items: [
              { type: 'PAYMENT_INTENT', currency: 'USD', price: price() },
              { type: 'PAYMENT_INTENT', currency: 'EUR', price: price() },
            ],
            currency: 'USD',
            metadata: { ref },
          },
          headers: { 'idempotency-key': ref },
          answer: null,
        });
        if (res?.status === 201) invoices.push(res.body.data.id);
      } else if (roll < 0.8 || pendingPayments.length === 0) {
        const key = randomUUID();
        const res = await send({
          kind: 'payment',
          path: '/test_helpers/payments',
          body: {
            invoice_id: pick(invoices),
            provider_id: 'prov_card_usd',
            price: price(),
            status: pick(['PENDING', 'PENDING', 'COMPLETED']),
            idempotency_key: key,
          },
          headers: { 'idempotency-key': `h-${key}` },
          answer: null,
        });
        if (res?.status === 201 && res.body.data.status === 'PENDING') pendingPayments.push(res.body.data.id);
      } else {
        const id = pendingPayments.splice(Math.floor(Math.random() * pendingPayments.length), 1)[0];
        await send({
          kind: 'status',
          path: `/test_helpers/payments/${id}/status`,
          body: { status: pick(['COMPLETED', 'FAILED', 'CANCELLED']) },
          headers: {},
          answer: null,
        });
      }
    };
    const worker = async () => {
      while (!killed) await one();
    };
    const workers = Array.from({ length: CONCURRENCY }, worker);
    // Kill once the burst is well under way: after BURST_MS and at least 60 acknowledged writes (a slow machine gets longer).
    const began = Date.now();
    while (Date.now() - began < 60_000 && (Date.now() - began < BURST_MS || sent.filter((x) => x.answer && x.answer.status < 300).length < 60)) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await server.stop('SIGKILL');
    killed = true;
    await Promise.all(workers);

    const unanswered = sent.filter((s) => s.answer === null);
    const answered = sent.filter((s) => s.answer !== null);
    if (answered.some((s) => s.answer!.status >= 500)) {
      // The service's own error lines say why; the 500's envelope only carries a support id.
      process.stdout.write(`service error lines before the kill:\n${errorLines(server).join('\n')}\n`);
    }
    expect(answered.filter((s) => s.answer!.status >= 500)).toEqual([]);
    // Writers of one organization append their rollup changes side by side: none was a deadlock victim run again.
    expect(linesWith(server, 'transaction_retried')).toEqual([]);
    const statuses = answered.reduce<Record<string, number>>(
      (m, s) => ({ ...m, [`${s.kind} ${s.answer!.status}`]: (m[`${s.kind} ${s.answer!.status}`] ?? 0) + 1 }),
      {},
    );
    process.stdout.write(
      `chaos: answers before the kill ${JSON.stringify(statuses)}; first refusal: ${answered.find((s) => s.answer!.status >= 400)?.answer?.text.slice(0, 300) ?? 'none'}\n`,
    );
    expect(answered.length).toBeGreaterThan(20);
    expect(answered.filter((s) => s.answer!.status >= 400)).toEqual([]);

    // restart on the same data, retry what got no answer with the same keys
    server = await start(server.port);
    api = new Api(testKey, server.baseUrl);
    let conflicts = 0;
    for (const s of unanswered) {
      const res = await api.post(s.path, s.body, { headers: s.headers });
      expect(res.status).toBeLessThan(500);
      // A request whose key was claimed when the process died is "in progress" until the claim goes stale,
      // or "answer lost" when its changes were committed.
      if (res.status === 409) conflicts++;
      s.answer = res;
    }

    // invariants, on every stored row
    const checks = await withClient(sqlUrl(), async (db) => {
      let checked = 0;
      const orgId = made.body.data.organization_id as string;
      const inv = (await db.query(`SELECT id, status, price, price_usd FROM invoices WHERE organization_id = $1`, [orgId])).rows;
      // 1. every invoice has its items, a calculation line per item and one TOTAL and TOTAL_USD line; TOTAL is its price
      const whole = (
        await db.query(
          `
        SELECT i.id,
               (SELECT count(*) FROM invoice_items it WHERE it.invoice_id = i.id)::int AS items,
               (SELECT count(*) FROM invoice_items it WHERE it.invoice_id = i.id AND NOT EXISTS (SELECT 1 FROM invoice_calculations c WHERE c.invoice_item_id = it.id))::int AS items_without_line,
               (SELECT count(*) FROM invoice_calculations c WHERE c.invoice_id = i.id AND c.calculation_type = 'TOTAL')::int AS totals,
               (SELECT count(*) FROM invoice_calculations c WHERE c.invoice_id = i.id AND c.calculation_type = 'TOTAL_USD')::int AS totals_usd,
               (SELECT bool_and(c.price = i.price) FROM invoice_calculations c WHERE c.invoice_id = i.id AND c.calculation_type = 'TOTAL') AS total_is_price
        FROM invoices i WHERE i.organization_id = $1`,
          [orgId],
        )
      ).rows;
      for (const row of whole) {
        expect(row).toMatchObject({ items: 2, items_without_line: 0, totals: 1, totals_usd: 1, total_is_price: true });
        checked++;
      }
      // 2. each invoice's state is what its payments call for (card payments: pending -> PROCESSING)
      const states = (
        await db.query(
          `
        SELECT i.id, i.status, i.price_usd,
               coalesce(sum(p.price_usd) FILTER (WHERE p.status = 'COMPLETED'), 0) AS completed,
               count(*) FILTER (WHERE p.status = 'PENDING')::int AS pending,
               CASE WHEN coalesce(sum(p.price_usd) FILTER (WHERE p.status = 'COMPLETED'), 0) >= i.price_usd
                         AND coalesce(sum(p.price_usd) FILTER (WHERE p.status = 'COMPLETED'), 0) > 0 THEN 'COMPLETED'
                    WHEN coalesce(sum(p.price_usd) FILTER (WHERE p.status = 'COMPLETED'), 0) > 0 THEN 'PARTIALLY_PAID'
                    WHEN count(*) FILTER (WHERE p.status = 'PENDING') > 0 THEN 'PROCESSING'
                    ELSE 'PENDING' END AS expected
        FROM invoices i LEFT JOIN payments p ON p.invoice_id = i.id
        WHERE i.organization_id = $1 GROUP BY i.id`,
          [orgId],
        )
      ).rows;
      for (const row of states) {
        expect({ id: row.id, status: row.status }).toEqual({ id: row.id, status: row.expected });
        checked++;
      }
      // 3. one payment per idempotency key
      const dupes = (
        await db.query(`SELECT idempotency_key, count(*)::int AS n FROM payments WHERE organization_id = $1 GROUP BY 1 HAVING count(*) > 1`, [orgId])
      ).rows;
      expect(dupes).toEqual([]);
      checked += (await db.query(`SELECT count(*)::int AS n FROM payments WHERE organization_id = $1`, [orgId])).rows[0].n;
      // 4. one invoice per Idempotency-Key (the ref in its metadata)
      const invoiceDupes = (
        await db.query(`SELECT metadata->>'ref' AS ref, count(*)::int AS n FROM invoices WHERE organization_id = $1 GROUP BY 1 HAVING count(*) > 1`, [orgId])
      ).rows;
      expect(invoiceDupes).toEqual([]);
      // 4b. an invoice request that got no answer at the kill: its key's state says exactly whether its
      //     invoice was committed (the key is marked applied in the invoice's own commit), and the retry
      //     created nothing twice
      const refs = new Map(
        (await db.query(`SELECT metadata->>'ref' AS ref, count(*)::int AS n FROM invoices WHERE organization_id = $1 GROUP BY 1`, [orgId])).rows.map((r) => [
          r.ref,
          r.n,
        ]),
      );
      const keyStates = new Map(
        (await db.query(`SELECT key, state FROM idempotency_keys WHERE organization_id = $1`, [orgId])).rows.map((r) => [r.key, r.state]),
      );
      for (const s of unanswered.filter((x) => x.kind === 'invoice')) {
        const ref = (s.body.metadata as { ref: string }).ref;
        const state = keyStates.get(ref) ?? 'none';
        const code = s.answer!.body?.code;
        const expected = state === 'in_flight' || state === 'none' ? 0 : 1;
        expect({ ref, state, code, stored: refs.get(ref) ?? 0 }).toEqual({ ref, state, code, stored: expected });
        if (code === 'idempotency_answer_lost') expect(state).toBe('applied');
        if (s.answer!.status === 201) expect(state).toBe('done');
        checked++;
      }
      // 5. every acknowledged write is there, as acknowledged
      const byId = new Map(inv.map((r) => [r.id, r]));
      const payments = new Map(
        (await db.query(`SELECT id, status, idempotency_key FROM payments WHERE organization_id = $1`, [orgId])).rows.map((r) => [r.id, r]),
      );
      for (const s of sent.filter((x) => x.answer && x.answer.status < 300)) {
        const data = s.answer!.body.data;
        if (s.kind === 'invoice') expect(byId.has(data.id)).toBe(true);
        else {
          expect(payments.get(data.id)).toBeDefined();
          // final statuses never change, so an acknowledged final status is the stored one
          if (data.status !== 'PENDING') expect(payments.get(data.id).status).toBe(data.status);
          if (s.kind === 'payment') expect(payments.get(data.id).idempotency_key).toBe(s.body.idempotency_key);
        }
        checked++;
      }
      // 6. no request left its key claimed forever: claims are either done or recent
      const stuck = (
        await db.query(
          `SELECT count(*)::int AS n FROM idempotency_keys WHERE organization_id = $1 AND state = 'in_flight' AND created_at < now() - interval '5 minutes'`,
          [orgId],
        )
      ).rows[0].n;
      expect(stuck).toBe(0);
      // 7. no event lost: one invoice.created per invoice, one payment.created per payment, an event for
      // each payment's last status change, one invoice.completed per completed invoice, and each event's
      // webhook delivery queued with it
      const events = (
        await db.query(`SELECT id, type, data->'object'->>'id' AS object_id, data->'object'->>'status' AS status FROM events WHERE organization_id = $1`, [
          orgId,
        ])
      ).rows;
      const count = (type: string, id: string) => events.filter((e) => e.type === type && e.object_id === id).length;
      for (const row of inv) {
        expect({ id: row.id, created: count('invoice.created', row.id) }).toEqual({ id: row.id, created: 1 });
        if (row.status === 'COMPLETED') expect({ id: row.id, completed: count('invoice.completed', row.id) }).toEqual({ id: row.id, completed: 1 });
        checked++;
      }
      for (const p of payments.values()) {
        expect({ id: p.id, created: count('payment.created', p.id) }).toEqual({ id: p.id, created: 1 });
        const last = events.filter((e) => e.type.startsWith('payment.') && e.object_id === p.id && e.status === p.status);
        expect({ id: p.id, eventWithStatus: last.length > 0 }).toEqual({ id: p.id, eventWithStatus: true });
        checked++;
      }
      const undelivered = (
        await db.query(
          `SELECT e.id, e.type FROM events e WHERE e.organization_id = $1 AND e.type NOT LIKE 'webhook_endpoint.%' AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.endpoint_id = $2)`,
          [orgId, hook.body.data.id],
        )
      ).rows;
      expect(undelivered).toEqual([]);
      checked += events.length;
      return { checked, invoices: inv.length, payments: payments.size, events: events.length };
    });
    process.stdout.write(
      `chaos: ${sent.length} requests (${unanswered.length} unanswered at the kill, retried: ${conflicts} answered 409 in progress or answer lost), ` +
        `${checks.invoices} invoices, ${checks.payments} payments, ${checks.events} events, ${checks.checked} invariant checks passed\n`,
    );
    expect(checks.invoices).toBeGreaterThan(3);
  });
});
