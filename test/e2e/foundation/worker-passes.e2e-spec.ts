import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { startIsolatedService } from '../../support/isolated';
import { ADMIN_TOKEN } from '../../support/server';
import { runWorkerPass } from '../../support/workers';
import { createInvoice } from '../payments/payments-helpers';
import { advance, databaseOf, MINUTE, storedState } from '../timing/timing-helpers';

const WORKERS = [
  'invoice-sweeper',
  'webhook-dispatcher',
  'refund-payouts',
  'subscription-scheduler',
  'durable-event-handlers',
  'partition-retention',
  'api-key-usage',
];

describe('worker passes on demand (WORKER_PASSES_ON_DEMAND, tests only)', () => {
  it('lists the workers that run a pass on demand, and runs a pass of each, answering when it has finished', async () => {
    const { test } = await createOrg();
    const listed = expectSuccess(await test.get('/test_helpers/workers'));
    expect([...listed.workers].sort()).toEqual(expect.arrayContaining([...WORKERS].sort()));
    for (const name of WORKERS) {
      const ran = expectSuccess(await test.post(`/test_helpers/workers/${name}/run`));
      expect(ran.worker).toBe(name);
      expect(ran.duration_ms).toBeGreaterThanOrEqual(0);
    }
  });

  it('answers 404 worker_not_found for a name no worker registered, 401 without a key and 403 for a live key', async () => {
    const { test, live } = await createOrg();
    expectError(await test.post('/test_helpers/workers/no-such-worker/run'), 404, { code: 'worker_not_found' });
    expect((await test.post('/test_helpers/workers/invoice-sweeper/run', undefined, { authorization: null })).status).toBe(401);
    expect((await live.post('/test_helpers/workers/invoice-sweeper/run')).status).toBe(403);
  });

  it("runs the sweeper's pass now: an invoice past its expiry is stored EXPIRED when the call returns, with the sweeper's timer off", async () => {
    const service = await startIsolatedService({ CLOCK_CONTROL: 'true', INVOICE_SWEEP_SECONDS: '0' });
    try {
      const org = await service.createOrg();
      const id = await createInvoice(org.test, '10', 'USD', { expires_in_minutes: 5 });
      await advance(org.test, 6 * MINUTE);
      // Reads compute the expiry; the stored row waits for a sweep, and this service's sweeper never ticks.
      expect(await storedState(databaseOf(service), id)).toEqual({ status: 'PENDING', substatus: null });
      await runWorkerPass(org.test, 'invoice-sweeper');
      expect(await storedState(databaseOf(service), id)).toEqual({ status: 'PENDING', substatus: 'EXPIRED' });
    } finally {
      await service.stop();
    }
  }, 90_000);

  it('does not exist unless WORKER_PASSES_ON_DEMAND=true: 404 with the setting false', async () => {
    const service = await startIsolatedService({ WORKER_PASSES_ON_DEMAND: 'false' });
    try {
      const org = await service.createOrg();
      expect((await org.test.get('/test_helpers/workers')).status).toBe(404);
      expect((await org.test.post('/test_helpers/workers/invoice-sweeper/run')).status).toBe(404);
      expect(service.server.output()).not.toContain('WORKER_PASSES_ON_DEMAND on');
    } finally {
      await service.stop();
    }
  }, 90_000);

  it('does not exist in production (NODE_ENV=production, the setting unset): 404, while the rest of the API answers', async () => {
    const production = { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.test', SECRETS_KEY: Buffer.alloc(32, 9).toString('base64') };
    const service = await startIsolatedService(production);
    try {
      const viaProxy = { 'x-forwarded-proto': 'https' };
      const created = await new Api(null, service.server.baseUrl).post(
        '/admin/organizations',
        { name: 'Production shop' },
        { headers: { ...viaProxy, 'x-admin-token': ADMIN_TOKEN } },
      );
      const test = new Api(expectSuccess(created, 201).test_key, service.server.baseUrl);
      expectSuccess(await test.get('/products', { headers: viaProxy }));
      for (const name of WORKERS) {
        expect((await test.post(`/test_helpers/workers/${name}/run`, undefined, { headers: viaProxy })).status).toBe(404);
      }
      expect((await test.get('/test_helpers/workers', { headers: viaProxy })).status).toBe(404);
    } finally {
      await service.stop();
    }
  }, 90_000);
});
