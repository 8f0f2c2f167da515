import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { ADMIN_TOKEN, CLI, RunningServer, startServer } from '../../support/server';

const exec = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pad = (n: number) => String(n).padStart(2, '0');
const timestamp = (d: Date) =>
  `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;

/**
 * The in-process caches (resolved API keys, the snapshot of rates in force) never outlive a change
 * made by another process: revokes and imports notify every running process when they commit.
 */
/**
 * The revoke answers once its notification is sent; another process drops the key when its listener reads the
 * notification, which a loaded machine may schedule just after the caller's next request. So the key must be
 * refused within NOTIFICATION_MS: well inside the revision check's 2 s (revocation-window.e2e-spec covers a
 * process that never hears the notification), and on most runs at the first ask.
 */
const NOTIFICATION_MS = 500;
async function refusedByNotification(key: string, base: string): Promise<void> {
  const deadline = Date.now() + NOTIFICATION_MS;
  let res = await new Api(key, base).get('/auth/debug_token');
  while (res.status === 200 && Date.now() < deadline) {
    await sleep(20);
    res = await new Api(key, base).get('/auth/debug_token');
  }
  expectError(res, 401, { code: 'invalid_api_key' });
}

describe('caches across processes', () => {
  let service: IsolatedService;
  let second: RunningServer | null = null;

  beforeAll(async () => {
    service = await startIsolatedService();
    // A second instance on the same database (when there is a PostgreSQL server to share).
    if (service.databaseUrl) second = await startServer({ databaseUrl: service.databaseUrl });
  });
  afterAll(async () => {
    await second?.stop();
    await service?.stop();
  });

  it('keys made through one instance work at once on the other, both ways (reads see the commit the answer followed)', async () => {
    const bases = [service.server.baseUrl, ...(second ? [second.baseUrl] : [])];
    let used = 0;
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const madeOn = bases[i % bases.length];
        const usedOn = bases[(i + 1) % bases.length];
        const res = await new Api(null, madeOn).post('/admin/organizations', { name: `fresh keys ${i}` }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
        const { test_key, live_key } = expectSuccess(res, 201);
        for (const key of [test_key as string, live_key as string]) {
          const caller = expectSuccess(await new Api(key, usedOn).get('/auth/debug_token'));
          expect(caller).toBeTruthy();
          used++;
        }
      }),
    );
    expect(used).toBe(40);
  });

  it('a key revoked through one instance (or the CLI) is refused by every instance that had it cached as soon as its notification arrives', async () => {
    const org = await service.createOrg('cached keys');
    const bases = [service.server.baseUrl, ...(second ? [second.baseUrl] : [])];
    for (const key of [org.testKey, org.liveKey]) {
      // Used a few times on every instance, so each has it cached.
      for (const base of bases) for (let i = 0; i < 3; i++) expectSuccess(await new Api(key, base).get('/auth/debug_token'));
    }
    if (second) {
      const res = await new Api(null, second.baseUrl).post('/admin/keys/revoke', { key: org.testKey }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
      expectSuccess(res);
    } else {
      await exec(process.execPath, [CLI, 'key:revoke', '--key', org.testKey], { env: service.cliEnv });
    }
    for (const base of bases) await refusedByNotification(org.testKey, base);

    await exec(process.execPath, [CLI, 'key:revoke', '--key', org.liveKey], { env: service.cliEnv });
    for (const base of bases) await refusedByNotification(org.liveKey, base);
  });

  it('quotes use rates imported by another process at once, and a snapshot dated ahead from its time on', async () => {
    const org = await service.createOrg('cached rates');
    const quote = async () =>
      expectSuccess(await org.test.post('/pay/quote', { currency: 'EUR', items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '100' }] }));
    const before = await quote();
    expect((await quote()).exchange_rate_timestamp).toBe(before.exchange_rate_timestamp);

    const dir = mkdtempSync(join(tmpdir(), 'rates-cache-'));
    const file = join(dir, 'rates.json');
    const past = new Date(Date.now() - 60_000);
    writeFileSync(file, JSON.stringify({ taken_at: timestamp(past), rates: { EUR: '2' } }));
    await exec(process.execPath, [CLI, 'rates:import', file], { env: service.cliEnv });
    const afterImport = await quote();
    expect(afterImport.exchange_rate_timestamp).toBe(timestamp(past));
    expect(afterImport.total.price).toBe('50.000000000000000000000000000000');

    // A snapshot taken a few seconds ahead is not in force yet, then is, without any further import.
    const ahead = new Date(Math.ceil((Date.now() + 4_000) / 1000) * 1000);
    writeFileSync(file, JSON.stringify({ taken_at: timestamp(ahead), rates: { EUR: '4' } }));
    await exec(process.execPath, [CLI, 'rates:import', file], { env: service.cliEnv });
    if (Date.now() < ahead.getTime() - 500) expect((await quote()).exchange_rate_timestamp).toBe(timestamp(past));
    await sleep(Math.max(0, ahead.getTime() - Date.now()) + 300);
    const later = await quote();
    expect(later.exchange_rate_timestamp).toBe(timestamp(ahead));
    expect(later.total.price).toBe('25.000000000000000000000000000000');
  });
});
