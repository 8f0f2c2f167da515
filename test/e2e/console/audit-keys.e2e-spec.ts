import { anonymous, Api } from '../../support/api';
import { consoleOrg, sql } from '../../support/console-client';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey } from '../../support/factories';
import { startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { freshAccount } from '../rails/rails-helpers';

type Entry = { id: string; actor_type: string; actor_id: string; action: string; target: string | null; mode: string | null; ip: string | null };

const auditOf = async (api: Api): Promise<Entry[]> => expectSuccess(await api.get('/audit_log?limit=100')).items;
const keyIdOf = async (organizationId: string, mode: 'test' | 'live') =>
  (await sql<{ id: string }>(`SELECT id FROM api_keys WHERE organization_id = $1 AND mode = $2 ORDER BY created_at LIMIT 1`, [organizationId, mode]))[0].id;

describe('the audit log keeps what API keys change (decisions §25)', () => {
  it('records audited changes with the key, target, mode and address; not ordinary traffic, failures, refusals, replays or payers', async () => {
    const org = await consoleOrg();
    const test = new Api(org.testKey);
    const live = new Api(org.liveKey);
    const testKeyId = await keyIdOf(org.organizationId, 'test');
    const liveKeyId = await keyIdOf(org.organizationId, 'live');

    const hook = { url: 'https://merchant.example.com/hooks', event_types: ['invoice.voided'] };
    const endpoint = expectSuccess(await test.post('/webhooks', hook, { headers: { 'idempotency-key': 'audit-hook' } }), 201);
    // The replay answers the first request again: nothing new happened, nothing new is recorded.
    expect((await test.post('/webhooks', hook, { headers: { 'idempotency-key': 'audit-hook' } })).headers.get('idempotent-replayed')).toBe('true');
    const wallet = expectSuccess(await test.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
    const invoice = expectSuccess(
      await test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '5' }], customer_email: 'jane@example.com' }),
      201,
    ).id;
    // A payer's currency change has no key: not the organization's people, not recorded.
    expectSuccess(await anonymous().put(`/invoices/${invoice}`, { currency: 'EUR' }));
    expectSuccess(await test.put(`/invoices/${invoice}`, { status: 'VOIDED' }));
    // A refused change (already void) and a read-only key's attempt are not changes.
    expectError(await test.put(`/invoices/${invoice}`, { status: 'VOIDED' }), 400);
    const readOnly = new Api(await createKey(org.organizationId, 'test', true));
    expectError(await readOnly.delete(`/wallets/${wallet.id}`), 403);
    const liveHook = expectSuccess(await live.post('/webhooks', { ...hook, url: 'https://merchant.example.com/live' }), 201);

    const keyEntries = (await auditOf(live)).filter((e) => e.actor_type === 'key');
    expect(keyEntries.map((e) => [e.action, e.target, e.mode, e.actor_id]).reverse()).toEqual([
      ['webhook.create', endpoint.id, 'test', testKeyId],
      ['wallet.register', wallet.id, 'test', testKeyId],
      ['invoice.void', invoice, 'test', testKeyId],
      ['webhook.create', liveHook.id, 'live', liveKeyId],
    ]);
    for (const e of keyEntries) expect(e.ip).toEqual(expect.any(String));

    // A live key reads both modes and the organization-wide entries (the owner's sign-in); a test key, test mode only.
    expect((await auditOf(live)).some((e) => e.action === 'session.sign_in' && e.mode === null)).toBe(true);
    const seenByTest = await auditOf(test);
    expect(seenByTest.length).toBeGreaterThan(0);
    expect(seenByTest.every((e) => e.mode === 'test')).toBe(true);
    expect(seenByTest.map((e) => e.target)).not.toContain(liveHook.id);

    // Another organization's log holds none of it.
    const other = await consoleOrg();
    const othersLog = await auditOf(new Api(other.liveKey));
    expect(othersLog.map((e) => e.target)).not.toContain(endpoint.id);
    expect(othersLog.some((e) => e.actor_id === testKeyId || e.actor_id === liveKeyId)).toBe(false);
  });
});

describe('an audit entry that cannot be written', () => {
  it('leaves the change answered as done (logged), so an idempotent retry replays it instead of making it twice', async () => {
    const service = await startIsolatedService({ LOG_LEVEL: 'info' });
    try {
      const org = await service.createOrg();
      // The audit log refuses this one action (as a full disk or a lost connection would refuse any).
      await withClient(service.databaseUrl!, (c) => c.query(`ALTER TABLE console_audit_log ADD CONSTRAINT no_hooks CHECK (action <> 'webhook.create')`));
      const hook = { url: 'https://merchant.example.com/hooks', event_types: ['invoice.voided'] };
      const first = expectSuccess(await org.test.post('/webhooks', hook, { headers: { 'idempotency-key': 'audit-fails' } }), 201);
      const retry = await org.test.post('/webhooks', hook, { headers: { 'idempotency-key': 'audit-fails' } });
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(expectSuccess(retry, 201).id).toBe(first.id);
      const endpoints = await withClient(service.databaseUrl!, async (c) =>
        Number((await c.query(`SELECT count(*) AS n FROM webhook_endpoints WHERE organization_id = $1`, [org.id])).rows[0].n),
      );
      expect(endpoints).toBe(1);
      expect(service.server.output()).toMatch(/audit entry not written/);
    } finally {
      await service.stop();
    }
  }, 120_000);
});
