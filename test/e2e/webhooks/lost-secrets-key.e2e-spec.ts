import { Webhook } from 'standardwebhooks';
import { SecretBox } from '../../../src/shared/crypto/secret-box';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { OwnDatabase } from '../../support/own-database';
import { withClient } from '../../support/pg';
import { ADMIN_TOKEN, RunningServer, runCli, startServer } from '../../support/server';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { freshAccount } from '../rails/rails-helpers';

/**
 * A SECRETS_KEY lost for good: every start opens each stored sealed value to seal it again, so the
 * service refuses to start; `cli secrets:forget-key` gives up what that key sealed so it starts again.
 */
describe('a SECRETS_KEY lost for good', () => {
  const keyA = Buffer.alloc(32, 0xc3).toString('base64');
  const keyB = Buffer.alloc(32, 0xd4).toString('base64');
  const kidA = new SecretBox(Buffer.from(keyA, 'base64')).currentKeyId;
  const kidB = new SecretBox(Buffer.from(keyB, 'base64')).currentKeyId;
  let own: OwnDatabase;
  let server: RunningServer | undefined;
  let receiver: WebhookReceiver;

  const start = async (secretsKey: string) => {
    server = await startServer({ ...own.serverOptions, env: { SECRETS_KEY: secretsKey, WEBHOOK_DISPATCH_INTERVAL_MS: '100', LOG_LEVEL: 'info' } });
    return server;
  };
  const whileStopped = <T>(work: (url: string) => Promise<T>) => own.whileStopped(work);
  const cliEnv = (secretsKey: string) => ({ SECRETS_KEY: secretsKey, ...own.cliEnv });

  beforeAll(async () => {
    own = await OwnDatabase.create('lost-key');
    receiver = await WebhookReceiver.start();
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await receiver.stop();
    await own?.drop();
  });

  it('stops the start naming the key; the CLI gives up what it sealed: endpoints disabled, wallets removed, replays refused, never run twice', async () => {
    let running = await start(keyA);
    const made = await new Api(null, running.baseUrl).post('/admin/organizations', { name: 'Lost key' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
    const key = made.body.data.test_key as string;
    let api = new Api(key, running.baseUrl);
    const hookBody = { url: receiver.url(), event_types: ['invoice.created'] };
    const endpoint = expectSuccess(await api.post('/webhooks', hookBody, { headers: { 'idempotency-key': 'lost-key-hook' } }), 201);
    const rotated = expectSuccess(await api.post('/webhooks', { url: 'https://merchant.example.com/rotated', event_types: ['invoice.voided'] }), 201);
    expectSuccess(await api.post(`/webhooks/${rotated.id}/rotate_secret`, { grace_period_seconds: 3600 }));
    const { xpub } = freshAccount();
    const wallet = expectSuccess(await api.post('/wallets', { chain_family: 'evm', xpub }), 201);
    const old = freshAccount();
    const oldWallet = expectSuccess(await new Api(made.body.data.live_key, running.baseUrl).post('/wallets', { chain_family: 'evm', xpub: old.xpub }), 201);
    await running.stop();
    // A wallet as a version before key fingerprints stored it, never started since (its key could not be opened).
    await whileStopped((url) => withClient(url, (c) => c.query(`UPDATE receiving_wallets SET key_fingerprint = NULL WHERE id = $1`, [oldWallet.id])));

    const failed = await startServer({ ...own.serverOptions, env: { SECRETS_KEY: keyB }, readyTimeoutMs: 30_000 }).catch((e: Error) => e);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toContain(`sealed with key ${kidA}, which is neither SECRETS_KEY nor in SECRETS_KEYS_OLD`);
    expect((failed as Error).message).toContain(`secrets:forget-key --key-id ${kidA}`);

    // A configured key is refused: nothing it sealed is lost.
    const refused = await runCli(['secrets:forget-key', '--key-id', kidA], cliEnv(keyA));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(new RegExp(`key ${kidA} is configured`));
    const malformed = await runCli(['secrets:forget-key', '--key-id', 'nothex!!'], cliEnv(keyB));
    expect(malformed.code).not.toBe(0);
    expect(malformed.stderr).toMatch(/--key-id must be the 8 hex characters/);

    const forgot = await runCli(['secrets:forget-key', '--key-id', kidA], cliEnv(keyB));
    expect(forgot.code).toBe(0);
    expect(JSON.parse(forgot.stdout)).toEqual({
      key_id: kidA,
      endpoints_disabled: 2,
      deleted_endpoints_reset: 0,
      previous_secrets_dropped: 1,
      wallets_removed: 2,
      deleted_wallets_reset: 0,
      wallets_without_fingerprint: [oldWallet.id],
      idempotent_answers_dropped: 1,
    });
    const leftUnderA = await whileStopped((url) =>
      withClient(url, async (c) => {
        const like = `sealed:v1:${kidA}:%`;
        const q = async (sql: string) => Number((await c.query(sql, [like])).rows[0].n);
        return {
          endpoints: await q(`SELECT count(*) AS n FROM webhook_endpoints WHERE secret LIKE $1 OR previous_secret LIKE $1`),
          wallets: await q(`SELECT count(*) AS n FROM receiving_wallets WHERE xpub LIKE $1`),
          answers: await q(`SELECT count(*) AS n FROM idempotency_keys WHERE response_body->>'sealed' LIKE $1`),
        };
      }),
    );
    expect(leftUnderA).toEqual({ endpoints: 0, wallets: 0, answers: 0 });
    const newSecrets = await whileStopped((url) =>
      withClient(url, async (c) => (await c.query(`SELECT secret FROM webhook_endpoints ORDER BY id`)).rows.map((r) => r.secret as string)),
    );
    for (const secret of newSecrets) expect(secret).toMatch(new RegExp(`^sealed:v1:${kidB}:`));

    running = await start(keyB);
    api = new Api(key, running.baseUrl);
    const disabled = expectSuccess(await api.get(`/webhooks/${endpoint.id}`));
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining(`sealed with SECRETS_KEY ${kidA}, which is lost`) });
    expect(expectSuccess(await api.get(`/webhooks/${rotated.id}`))).toMatchObject({ enabled: false });
    const disabledEvents = expectSuccess(await api.post('/events', { type: 'webhook_endpoint.disabled', limit: 10 })).items;
    expect(disabledEvents.map((e: any) => e.data.object.id).sort()).toEqual([endpoint.id, rotated.id].sort());
    expect(disabledEvents[0].data.previous_attributes).toEqual({ enabled: true, disabled_reason: null });
    expect(JSON.stringify(disabledEvents)).not.toContain('whsec_');

    // The retry of the endpoint's creation is refused, never run a second time.
    expectError(await api.post('/webhooks', hookBody, { headers: { 'idempotency-key': 'lost-key-hook' } }), 409, { code: 'idempotency_answer_lost' });
    const endpoints = await withClient(own.url(), async (c) =>
      Number((await c.query(`SELECT count(*) AS n FROM webhook_endpoints WHERE deleted_at IS NULL`)).rows[0].n),
    );
    expect(endpoints).toBe(2);

    // The wallet is gone; the merchant registers the same key again (it stays this organization's).
    expect(expectSuccess(await api.get('/wallets')).items.map((w: { id: string }) => w.id)).not.toContain(wallet.id);
    const again = expectSuccess(await api.post('/wallets', { chain_family: 'evm', xpub }), 201);
    expect(again).toMatchObject({ active: true, first_address: wallet.first_address });
    expect(expectSuccess(await api.get('/wallets')).items.map((w: { id: string }) => w.id)).toEqual([again.id]);

    // The merchant rotates the secret, gives it to the receiver and enables the endpoint: signatures verify again.
    const fresh = expectSuccess(await api.post(`/webhooks/${endpoint.id}/rotate_secret`, { grace_period_seconds: 0 }));
    expect(fresh.secret).toMatch(/^whsec_/);
    expect(expectSuccess(await api.put(`/webhooks/${endpoint.id}`, { enabled: true }))).toMatchObject({ enabled: true });
    expectSuccess(
      await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '5' }], customer_email: 'jane@example.com' }),
      201,
    );
    await receiver.waitFor((r) => r.some((d) => JSON.parse(d.body).type === 'invoice.created'));
    const delivery = receiver.received.find((d) => JSON.parse(d.body).type === 'invoice.created')!;
    expect(new Webhook(fresh.secret).verify(delivery.body, delivery.headers as Record<string, string>)).toBeTruthy();
  }, 240_000);
});
