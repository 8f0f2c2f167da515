import type { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { withClient } from '../../support/pg';
import { eventually } from '../../support/webhook-receiver';

/**
 * A refund request with an Idempotency-Key that stays in flight (it waits for the invoice's refund
 * lock, held here) for more than two minutes (its claim is aged in the table), then a retry with the
 * same key and body, which takes the claim over: only one of them may commit. Asserts one 201 and one
 * 409 idempotency_conflict, one refund, and that the key replays the refund that was made.
 */
export async function takeOverWhileRunning(api: Api, organizationId: string, databaseUrl: string): Promise<void> {
  const invoiceId = expectSuccess(await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '100' }] }), 201).id as string;
  expectSuccess(await api.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '100', status: 'COMPLETED' }), 201);
  const key = `takeover-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const refund = () => api.post(`/invoices/${invoiceId}/refunds`, { amount: '10' }, { headers: { 'idempotency-key': key } });
  const lock = `refunds:test:${invoiceId}`;
  // Requests waiting for that lock (this invoice's alone: other tests may wait for other locks meanwhile).
  const waiting = (db: { query: (sql: string, values: unknown[]) => Promise<{ rows: Array<{ n: number }> }> }) =>
    db.query(
      `SELECT count(*)::int AS n FROM pg_locks
        WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = hashtext($1)::bigint`,
      [lock],
    );
  const answers = await withClient(databaseUrl, async (db) => {
    await db.query('BEGIN');
    await db.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [lock]);
    const slow = refund();
    await eventually(async () => expect((await waiting(db)).rows[0].n).toBe(1));
    // More than two minutes pass with the first request still waiting: its claim is that old now.
    await withClient(databaseUrl, (other) =>
      other.query(`UPDATE idempotency_keys SET created_at = created_at - interval '3 minutes' WHERE organization_id = $1 AND key = $2`, [organizationId, key]),
    );
    const retry = refund();
    await eventually(async () => expect((await waiting(db)).rows[0].n).toBe(2));
    await db.query('ROLLBACK');
    return Promise.all([slow, retry]);
  });
  expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
  const made = expectSuccess(
    answers.find((a) => a.status === 201)!,
    201,
  );
  expectError(
    answers.find((a) => a.status === 409)!,
    409,
    { code: 'idempotency_conflict' },
  );
  expect(expectSuccess(await api.get(`/refunds?invoice_id=${invoiceId}`)).items.map((r: { id: string }) => r.id)).toEqual([made.id]);
  // The key keeps the request that was carried out.
  const again = await refund();
  expect(expectSuccess(again, 201).id).toBe(made.id);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
}
