import { Webhook } from 'standardwebhooks';
import { SecretBox } from '../../../src/shared/crypto/secret-box';
import { Api, testDatabaseUrl } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { OwnDatabase } from '../../support/own-database';
import { withClient } from '../../support/pg';
import { ADMIN_TOKEN, RunningServer, startServer } from '../../support/server';
import { WebhookReceiver } from '../../support/webhook-receiver';

const endpointRow = (db: string, id: string) =>
  withClient(db, async (c) => (await c.query(`SELECT secret, previous_secret FROM webhook_endpoints WHERE id = $1`, [id])).rows[0]);

/** Webhook signing secrets and stored idempotent answers are sealed (AES-256-GCM, SECRETS_KEY) at rest. */
describe('secrets at rest', () => {
  it('keeps no whsec_ text in the rows after create, rotate and delete, nor in the stored idempotent answer; a replay still returns the secret', async () => {
    const org = await createOrg();
    const db = testDatabaseUrl();
    const key = `secret-test-${Date.now()}`;
    const body = { url: 'https://merchant.example.com/hooks', event_types: ['*'] };
    const created = expectSuccess(await org.test.post('/webhooks', body, { headers: { 'idempotency-key': key } }), 201);
    expect(created.secret).toMatch(/^whsec_/);

    const stored = await withClient(
      db,
      async (c) =>
        (await c.query(`SELECT response_body::text AS body FROM idempotency_keys WHERE organization_id = $1 AND mode = 'test' AND key = $2`, [org.id, key]))
          .rows[0],
    );
    expect(stored.body).toMatch(/^\{"sealed": "sealed:v1:/);
    expect(stored.body).not.toContain('whsec_');
    expect(stored.body).not.toContain(created.secret.slice(6, 20));

    const replay = await org.test.post('/webhooks', body, { headers: { 'idempotency-key': key } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(expectSuccess(replay, 201)).toEqual(created);

    let row = await endpointRow(db, created.id);
    expect(row.secret).toMatch(/^sealed:v1:[0-9a-f]{8}:/);
    expect(JSON.stringify(row)).not.toContain('whsec_');

    const rotated = expectSuccess(await org.test.post(`/webhooks/${created.id}/rotate_secret`, { grace_period_seconds: 3600 }));
    expect(rotated.secret).not.toBe(created.secret);
    row = await endpointRow(db, created.id);
    expect(row.previous_secret).toMatch(/^sealed:v1:/);
    expect(JSON.stringify(row)).not.toContain('whsec_');

    expectSuccess(await org.test.delete(`/webhooks/${created.id}`));
    row = await endpointRow(db, created.id);
    expect(row.secret).toMatch(/^sealed:v1:/);
    expect(JSON.stringify(row)).not.toContain('whsec_');
  });

  describe('on a service of its own', () => {
    const keyA = Buffer.alloc(32, 0xa1).toString('base64');
    const keyB = Buffer.alloc(32, 0xb2).toString('hex');
    let own: OwnDatabase;
    let server: RunningServer | undefined;
    let receiver: WebhookReceiver;

    const start = async (env: Record<string, string>) => {
      server = await startServer({ ...own.serverOptions, env: { WEBHOOK_DISPATCH_INTERVAL_MS: '100', LOG_LEVEL: 'info', ...env } });
      return server;
    };
    const db = () => own.url();

    beforeAll(async () => {
      own = await OwnDatabase.create('secrets');
      receiver = await WebhookReceiver.start();
    }, 60_000);

    afterAll(async () => {
      await server?.stop();
      await receiver.stop();
      await own?.drop();
    });

    it('seals plain rows at start, re-seals with a new key when the old one is listed, and signatures still verify', async () => {
      let running = await start({ SECRETS_KEY: keyA });
      const res = await new Api(null, running.baseUrl).post('/admin/organizations', { name: 'Secrets' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
      const api = new Api(res.body.data.test_key, running.baseUrl);
      const endpoint = expectSuccess(await api.post('/webhooks', { url: receiver.url(), event_types: ['webhook_endpoint.created'] }), 201);
      const legacy = expectSuccess(await api.post('/webhooks', { url: 'https://merchant.example.com/legacy', event_types: ['invoice.voided'] }), 201);
      await receiver.waitFor((r) => r.length >= 1);
      expect(new Webhook(endpoint.secret).verify(receiver.received[0].body, receiver.received[0].headers as Record<string, string>)).toBeTruthy();
      expect((await endpointRow(db(), endpoint.id)).secret).toMatch(new RegExp(`^sealed:v1:${new SecretBox(Buffer.from(keyA, 'base64')).currentKeyId}:`));
      await running.stop();

      // A row as an earlier version stored it: the secret in plain text.
      // (with the service stopped, its embedded database is run for the update)
      const plain = (url: string) => withClient(url, (c) => c.query(`UPDATE webhook_endpoints SET secret = $2 WHERE id = $1`, [legacy.id, legacy.secret]));
      await own.whileStopped(plain);

      // Rotate SECRETS_KEY: the new key seals, the old one is listed so what it sealed still opens.
      running = await start({ SECRETS_KEY: keyB, SECRETS_KEYS_OLD: keyA });
      expect(running.output()).toMatch(/stored secrets sealed with SECRETS_KEY/);
      const kidB = new SecretBox(Buffer.from(keyB, 'hex')).currentKeyId;
      for (const id of [endpoint.id, legacy.id]) {
        const row = await endpointRow(db(), id);
        expect(row.secret).toMatch(new RegExp(`^sealed:v1:${kidB}:`));
        expect(JSON.stringify(row)).not.toContain('whsec_');
      }
      const api2 = new Api(api.key, running.baseUrl);
      expectSuccess(await api2.post('/webhooks', { url: 'https://merchant.example.com/other', event_types: ['invoice.voided'] }), 201);
      await receiver.waitFor((r) => r.length >= 2);
      expect(new Webhook(endpoint.secret).verify(receiver.received[1].body, receiver.received[1].headers as Record<string, string>)).toBeTruthy();
      await running.stop();

      // Once re-sealed, the old key is no longer needed.
      running = await start({ SECRETS_KEY: keyB });
      expectSuccess(
        await new Api(api.key, running.baseUrl).post('/webhooks', { url: 'https://merchant.example.com/third', event_types: ['invoice.voided'] }),
        201,
      );
      await receiver.waitFor((r) => r.length >= 3);
      expect(new Webhook(endpoint.secret).verify(receiver.received[2].body, receiver.received[2].headers as Record<string, string>)).toBeTruthy();
    }, 180_000);

    it('refuses to start in production without SECRETS_KEY, saying why', async () => {
      await server?.stop();
      const failed = await startServer({
        ...own.serverOptions,
        env: { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://pay.example.com' },
        readyTimeoutMs: 20_000,
      }).catch((e: Error) => e);
      expect(failed).toBeInstanceOf(Error);
      expect((failed as Error).message).toMatch(/SECRETS_KEY is required with NODE_ENV=production/);
    }, 60_000);
  });
});
