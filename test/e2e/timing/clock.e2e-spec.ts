import { spawn } from 'node:child_process';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { ADMIN_TOKEN, MAIN, ROOT, startServer } from '../../support/server';
import { Webhook } from 'standardwebhooks';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { withClient } from '../../support/pg';
import { runWorkerPass } from '../../support/workers';
import { advance, clockNow, databaseOf, parseTime, readInvoice, storedState, waitFor } from './timing-helpers';

describe('test clock (CLOCK_CONTROL)', () => {
  it('answers 403 clock_control_disabled naming the setting on a service with CLOCK_CONTROL=false (even for a test key)', async () => {
    const { test } = await createOrg();
    for (const res of [await test.get('/test_helpers/clock'), await test.post('/test_helpers/clock', { advance_seconds: 60 })]) {
      const body = expectError(res, 403, { code: 'clock_control_disabled' });
      expect(body.error).toMatch(/CLOCK_CONTROL/);
      expect(body.error).toMatch(/CLOCK_CONTROL=true/);
    }
  });

  it('is on by default outside production (NODE_ENV=development, CLOCK_CONTROL unset), and start-up says so', async () => {
    const service = await startIsolatedService({ NODE_ENV: 'development', CLOCK_CONTROL: undefined });
    try {
      const org = await service.createOrg();
      expect(expectSuccess(await org.test.post('/test_helpers/clock', { advance_seconds: 60 })).offset_seconds).toBeGreaterThanOrEqual(60);
      expect(service.server.output()).toContain('CLOCK_CONTROL on (test clocks can be moved');
    } finally {
      await service.stop();
    }
  }, 90_000);

  it('says CLOCK_CONTROL off at start-up when it is set to false outside production', async () => {
    const service = await startIsolatedService({ NODE_ENV: 'development', CLOCK_CONTROL: 'false' });
    try {
      expect(service.server.output()).toContain('CLOCK_CONTROL off (set CLOCK_CONTROL=true to move test clocks)');
      expect(service.server.output()).not.toContain('CLOCK_CONTROL allowed');
    } finally {
      await service.stop();
    }
  }, 90_000);

  it('is off by default in production (CLOCK_CONTROL unset): 403 clock_control_disabled', async () => {
    const production = { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.test', SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') };
    const service = await startIsolatedService({ ...production, CLOCK_CONTROL: undefined });
    try {
      const viaProxy = { 'x-forwarded-proto': 'https' };
      const created = await new Api(null, service.server.baseUrl).post(
        '/admin/organizations',
        { name: 'Live shop' },
        { headers: { ...viaProxy, 'x-admin-token': ADMIN_TOKEN } },
      );
      const test = new Api(expectSuccess(created, 201).test_key, service.server.baseUrl);
      const body = expectError(await test.post('/test_helpers/clock', { advance_seconds: 60 }, { headers: viaProxy }), 403, { code: 'clock_control_disabled' });
      expect(body.error).toMatch(/CLOCK_CONTROL/);
    } finally {
      await service.stop();
    }
  }, 90_000);

  it('refuses to start with CLOCK_CONTROL=true and NODE_ENV=production', async () => {
    const child = spawn(process.execPath, [MAIN], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_ENV: 'production', CLOCK_CONTROL: 'true', PORT: '0', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(1);
    expect(output).toContain('CLOCK_CONTROL=true is for tests and cannot be used with NODE_ENV=production');
  });

  describe('with CLOCK_CONTROL=true', () => {
    let service: IsolatedService;
    let org: Awaited<ReturnType<IsolatedService['createOrg']>>;
    beforeAll(async () => {
      service = await startIsolatedService({ CLOCK_CONTROL: 'true', INVOICE_SWEEP_SECONDS: '0' });
      org = await service.createOrg();
    });
    afterAll(async () => service?.stop());

    it('answers 401 without a key or with an unknown one, 403 for a live key', async () => {
      expectError(await new Api(null, service.server.baseUrl).get('/test_helpers/clock'), 401);
      expectError(await new Api('sk_test_unknown', service.server.baseUrl).post('/test_helpers/clock', { advance_seconds: 1 }), 401);
      expectError(await org.live.get('/test_helpers/clock'), 403);
      expectError(await org.live.post('/test_helpers/clock', { advance_seconds: 1 }), 403);
    });

    it('reads the clock and moves it forward only', async () => {
      const before = await clockNow(org.test);
      const state = expectSuccess(await org.test.get('/test_helpers/clock'));
      expect(state.now).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      const moved = await advance(org.test, 3600);
      expect(moved.getTime() - before.getTime()).toBeGreaterThanOrEqual(3600 * 1000);
      expect(moved.getTime() - before.getTime()).toBeLessThan(3600 * 1000 + 30_000);
      expect(expectSuccess(await org.test.get('/test_helpers/clock')).offset_seconds).toBeGreaterThanOrEqual(3600);
      // Timestamps the service writes follow its clock.
      const created = expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '1' }] }), 201);
      const invoice = expectSuccess(await org.test.post(`/invoices/${created.id}`, {}));
      expect(new Date(`${invoice.created_at.replace(' ', 'T')}Z`).getTime()).toBeGreaterThanOrEqual(moved.getTime() - 1000);
    });

    it.each([
      [{ advance_seconds: 0 }, 'at least 1'],
      [{ advance_seconds: -5 }, 'at least 1'],
      [{ advance_seconds: 1.5 }, 'whole number'],
      [{ advance_seconds: '60' }, 'whole number'],
      [{ advance_seconds: 366 * 24 * 3600 + 1 }, 'at most'],
      [{}, 'is required'],
    ])('refuses %j (400, validator.advance_seconds)', async (body, message) => {
      const res = expectError(await org.test.post('/test_helpers/clock', body), 400, { field: 'advance_seconds' });
      expect(res.validator.advance_seconds).toContain(message);
    });

    it('refuses to run a test clock more than 100 years ahead (400), and keeps answering where it is', async () => {
      const far = await service.createOrg();
      // Ninety-nine years and a half ahead already (as ~200 calls of a year would leave it).
      const offset = Math.round(99.5 * 366 * 24 * 3600 * 1000);
      await withClient(databaseOf(service), (c) =>
        c.query(`INSERT INTO test_clocks (organization_id, mode, offset_ms, updated_at) VALUES ($1, 'test', $2, now())`, [far.id, offset]),
      );
      const res = expectError(await far.test.post('/test_helpers/clock', { advance_seconds: 366 * 24 * 3600 }), 400, { field: 'advance_seconds' });
      expect(res.validator.advance_seconds).toContain('100 years');
      const state = expectSuccess(await far.test.get('/test_helpers/clock'));
      expect(state.offset_seconds).toBe(Math.floor(offset / 1000));
      expect(state.now).toMatch(/^21\d{2}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      // Within the bound it still moves.
      expect(expectSuccess(await far.test.post('/test_helpers/clock', { advance_seconds: 3600 })).offset_seconds).toBe(Math.floor(offset / 1000) + 3600);
    });
  });

  describe("is the caller's organization's test mode only", () => {
    let service: IsolatedService;
    let receiver: WebhookReceiver;
    beforeAll(async () => {
      service = await startIsolatedService({
        CLOCK_CONTROL: 'true',
        // The sweeper never ticks: the test runs its pass when it needs one (runWorkerPass), and the pass has ended when it looks.
        INVOICE_SWEEP_SECONDS: '0',
        INVOICE_MONITORING_MINUTES: '1440',
        WEBHOOK_DISPATCH_INTERVAL_MS: '100',
      });
      receiver = await WebhookReceiver.start();
    });
    afterAll(async () => {
      await receiver?.stop();
      await service?.stop();
    });

    it("expires A's test invoice, neither B's test invoice nor A's live one; webhook timestamps stay real time", async () => {
      const a = await service.createOrg('Clock A');
      const b = await service.createOrg('Clock B');
      const db = databaseOf(service);
      const body = { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '1' }] };
      const endpoint = expectSuccess(await a.test.post('/webhooks', { url: receiver.url(), event_types: ['invoice.expired', 'invoice.voided'] }), 201);
      const aTest = expectSuccess(await a.test.post('/invoices/create', body), 201).id;
      const bTest = expectSuccess(await b.test.post('/invoices/create', body), 201).id;
      const aLive = expectSuccess(await a.live.post('/invoices/create', body), 201).id;

      const moved = await advance(a.test, 960);
      expect(moved.getTime() - Date.now()).toBeGreaterThan(950_000);
      // B's test clock and A's live data did not move.
      expect(expectSuccess(await b.test.get('/test_helpers/clock')).offset_seconds).toBe(0);
      expect(Math.abs((await clockNow(b.test)).getTime() - Date.now())).toBeLessThan(5_000);

      expect(await readInvoice(a.test, aTest)).toMatchObject({ status: 'PENDING', substatus: 'EXPIRED' });
      expect(await readInvoice(b.test, bTest)).toMatchObject({ status: 'PENDING', substatus: null });
      expect(await readInvoice(a.live, aLive)).toMatchObject({ status: 'PENDING', substatus: null });
      // The sweeper writes A's test expiry at A's test time, and nothing else.
      await runWorkerPass(a.test, 'invoice-sweeper');
      expect(
        await waitFor(
          () => storedState(db, aTest),
          (v) => v.substatus === 'EXPIRED',
        ),
      ).toEqual({ status: 'PENDING', substatus: 'EXPIRED' });
      // A whole pass has run (not a wait for one): B's test invoice and A's live one are still stored as they were.
      expect(await storedState(db, bTest)).toEqual({ status: 'PENDING', substatus: null });
      expect(await storedState(db, aLive)).toEqual({ status: 'PENDING', substatus: null });

      // A new test invoice of A is dated on A's test clock, a live one on real time.
      const later = expectSuccess(await a.test.post('/invoices/create', body), 201).id;
      expect(parseTime((await readInvoice(a.test, later)).created_at).getTime()).toBeGreaterThan(Date.now() + 900_000);
      const liveLater = expectSuccess(await a.live.post('/invoices/create', body), 201).id;
      expect(Math.abs(parseTime((await readInvoice(a.live, liveLater)).created_at).getTime() - Date.now())).toBeLessThan(5_000);

      // The expiry's webhook: signed at real time, and it verifies.
      const [delivery] = await receiver.waitFor((r) => r.some((x) => x.json?.type === 'invoice.expired'));
      expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(new Webhook(endpoint.secret).verify(delivery.body, delivery.headers as Record<string, string>)).toMatchObject({ type: 'invoice.expired' });

      // Past the monitoring window on A's test clock: A's test invoice is voided, A's live one is untouched.
      await advance(a.test, 90_000);
      await runWorkerPass(a.test, 'invoice-sweeper');
      expect(
        await waitFor(
          () => storedState(db, aTest),
          (v) => v.status === 'VOIDED',
        ),
      ).toEqual({ status: 'VOIDED', substatus: 'EXPIRED' });
      expect(await readInvoice(a.live, aLive)).toMatchObject({ status: 'PENDING', substatus: null });
      expect(await storedState(db, aLive)).toEqual({ status: 'PENDING', substatus: null });
      const voided = await receiver.waitFor((r) => r.some((x) => x.json?.type === 'invoice.voided'));
      const voidedDelivery = voided.find((x) => x.json?.type === 'invoice.voided')!;
      expect(Math.abs(Number(voidedDelivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    }, 90_000);

    it('keeps the offset in the database: a second instance on the same database sees it', async () => {
      const a = await service.createOrg('Clock shared');
      await advance(a.test, 1234);
      const other = await startServer({ databaseUrl: databaseOf(service), env: { CLOCK_CONTROL: 'true', INVOICE_SWEEP_SECONDS: '0' } });
      try {
        const state = expectSuccess(await new Api(a.testKey, other.baseUrl).get('/test_helpers/clock'));
        expect(state.offset_seconds).toBe(1234);
      } finally {
        await other.stop();
      }
    }, 90_000);
  });
});
