import { spawn } from 'node:child_process';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { MAIN, ROOT } from '../../support/server';
import { advance, clockNow } from './timing-helpers';

describe('test clock (CLOCK_CONTROL)', () => {
  it('is not there on a service without CLOCK_CONTROL (404 even for a test key)', async () => {
    const { test } = await createOrg();
    expectError(await test.get('/test_helpers/clock'), 404);
    expectError(await test.post('/test_helpers/clock', { advance_seconds: 60 }), 404);
  });

  it('refuses to start with CLOCK_CONTROL=true and NODE_ENV=production', async () => {
    const child = spawn(process.execPath, [MAIN], {
      cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
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
      [{}, 'whole number'],
    ])('refuses %j (400, validator.advance_seconds)', async (body, message) => {
      const res = expectError(await org.test.post('/test_helpers/clock', body), 400, { field: 'advance_seconds' });
      expect(res.validator.advance_seconds).toContain(message);
    });
  });
});
