import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { RedisServer } from '../../support/redis';
import { ReplicaCluster, sql } from '../../support/replica-cluster';
import { ADMIN_TOKEN, freePort, RunningServer, startServer } from '../../support/server';

/**
 * Reads on a real streaming replica (a primary and a replica of the test's own, see
 * test/support/replica-cluster.ts), served by two instances that share Redis.
 */
const MAX_LAG_SECONDS = 4;

jest.setTimeout(240_000);

let cluster: ReplicaCluster;
let redis: RedisServer;
let a: RunningServer;
let b: RunningServer;

interface Org {
  id: string;
  /** The organization's test key on instance A and on instance B. */
  onA: Api;
  onB: Api;
}

async function createOrg(name: string): Promise<Org> {
  const res = await new Api(null, a.baseUrl).post('/admin/organizations', { name }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
  expect(res.status).toBe(201);
  const { organization_id, test_key } = res.body.data as { organization_id: string; test_key: string };
  return { id: organization_id, onA: new Api(test_key, a.baseUrl), onB: new Api(test_key, b.baseUrl) };
}

async function createInvoice(api: Api, price: string): Promise<string> {
  return expectSuccess(await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price }] }), 201).id;
}

async function listIds(api: Api): Promise<string[]> {
  const body = expectSuccess(await api.post('/invoices/list', { limit: 100 }));
  const items = (Array.isArray(body) ? body : body.items) as Array<{ id: string }>;
  return items.map((i) => i.id).sort();
}

/** Marks every invoice of `org` on the primary directly, outside the API: no write position is recorded for it. */
async function markOnPrimary(org: Org, value: string): Promise<void> {
  await sql(cluster.primaryUrl, `UPDATE invoices SET metadata = jsonb_build_object('mark', $2::text) WHERE organization_id = $1`, [org.id, value]);
}

async function marks(api: Api): Promise<Array<string | undefined>> {
  const body = expectSuccess(await api.post('/invoices/list', { limit: 100 }));
  const items = (Array.isArray(body) ? body : body.items) as Array<{ metadata?: { mark?: string } }>;
  return items.map((i) => i.metadata?.mark);
}

beforeAll(async () => {
  cluster = await ReplicaCluster.start();
  redis = new RedisServer(await freePort());
  await redis.start();
  const env = {
    DATABASE_REPLICA_URLS: cluster.replicaUrl,
    DATABASE_REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
    DATABASE_REPLICA_CHECK_INTERVAL_MS: '200',
    REDIS_URL: redis.url,
    DB_POOL_SIZE: '4',
  };
  a = await startServer({ databaseUrl: cluster.primaryUrl, env });
  b = await startServer({ databaseUrl: cluster.primaryUrl, env });
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.kill();
  await cluster?.stop();
});

describe('reads on a streaming replica', () => {
  it('serves other organizations from the replica while it lags, reads a client its own write (on another instance) from the primary, and skips the replica past the lag limit', async () => {
    const writer = await createOrg('Writer');
    const other = await createOrg('Other');
    const first = await createInvoice(writer.onA, '10');
    await createInvoice(other.onA, '20');
    await cluster.caughtUp();
    await new Promise((r) => setTimeout(r, 500));

    await cluster.pauseReplay();
    try {
      // A change the replica has received but not applied, made outside the API for `other`.
      await markOnPrimary(other, 'primary');
      // The writer's new invoice, acknowledged by instance A, is read at once on instance B.
      const second = await createInvoice(writer.onA, '11');
      expect(await listIds(writer.onB)).toEqual([first, second].sort());
      expect(expectSuccess(await writer.onB.get(`/invoices/${second}`)).id).toBe(second);
      // `other` wrote nothing since the replica's position: its read is allowed on the replica, which
      // has not applied the mark. Within the lag limit this is what the replica serves.
      expect(await marks(other.onB)).toEqual([undefined]);

      // Past the lag limit the replica is skipped: the same read now comes from the primary.
      await new Promise((r) => setTimeout(r, (MAX_LAG_SECONDS + 1.5) * 1000));
      expect(await marks(other.onB)).toEqual(['primary']);
      expect(await marks(other.onA)).toEqual(['primary']);
    } finally {
      await cluster.resumeReplay();
    }

    // Caught up again: the replica serves `other` once more; a mark made outside the API while
    // replay is paused again is not seen, so the read came from the replica.
    await cluster.caughtUp();
    await new Promise((r) => setTimeout(r, 800));
    await cluster.pauseReplay();
    try {
      await markOnPrimary(other, 'second');
      expect(await marks(other.onA)).toEqual(['primary']);
    } finally {
      await cluster.resumeReplay();
    }
  });

  it('answers reads from the primary when the replica stops, without errors', async () => {
    const org = await createOrg('Survivor');
    const first = await createInvoice(org.onA, '5');
    await cluster.caughtUp();
    await cluster.stopReplica();
    try {
      // Straight after the stop (before any check has noticed) and after the checks have.
      for (let i = 0; i < 3; i++) {
        const second = await createInvoice(org.onB, `6.${i}`);
        const [onA, onB] = await Promise.all([listIds(org.onA), listIds(org.onB)]);
        expect(onA).toContain(second);
        expect(onB).toContain(second);
        expect(onA).toContain(first);
        expect(expectSuccess(await org.onA.get(`/invoices/${second}`)).id).toBe(second);
        await new Promise((r) => setTimeout(r, 300));
      }
      expect(a.output()).toMatch(/replica_down|does not answer/);
    } finally {
      await cluster.startReplica();
    }
    // Back: the replica serves again (a mark made outside the API while replay pauses is not seen).
    await cluster.caughtUp();
    await new Promise((r) => setTimeout(r, 800));
    await cluster.pauseReplay();
    try {
      await markOnPrimary(org, 'unseen');
      expect(new Set(await marks(org.onA))).toEqual(new Set([undefined]));
    } finally {
      await cluster.resumeReplay();
    }
  });

  it("serves the payer's polling from the replica once it has replayed the primary's position, and every acknowledged write is seen", async () => {
    const org = await createOrg('Payer pages');
    const id = await createInvoice(org.onA, '7');
    await cluster.caughtUp();
    const scans = async () => {
      const [row] = await sql<{ n: string }>(
        cluster.replicaUrl,
        `SELECT (coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::text AS n FROM pg_stat_user_tables WHERE relname = 'invoices'`,
      );
      return Number(row.n);
    };
    const before = await scans();
    const payer = new Api(null, b.baseUrl);
    for (let i = 0; i < 10; i++) expect(expectSuccess(await payer.get(`/invoices/${id}`)).id).toBe(id);
    // The replica's statistics are flushed by its sessions within seconds.
    const deadline = Date.now() + 20_000;
    while ((await scans()) < before + 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    expect(await scans()).toBeGreaterThanOrEqual(before + 10);
    const metrics = await (await fetch(`${b.baseUrl}/metrics`)).text();
    expect(Number(/db_routed_reads_total\{target="replica"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(10);
    expect(metrics).toMatch(/db_replica_usable\{replica="replica 1 \([^)]+\)"\} 1/);

    // With replay paused, a write the payer cannot know the organization of is still seen: the
    // replica is behind the primary's position, so the primary answers.
    await cluster.pauseReplay();
    try {
      expectSuccess(await org.onA.put(`/invoices/${id}`, { status: 'VOIDED' }));
      expect(expectSuccess(await org.onA.get(`/invoices/${id}`)).status).toBe('VOIDED');
      expect(expectSuccess(await payer.get(`/invoices/${id}`)).status).toBe('VOIDED');
    } finally {
      await cluster.resumeReplay();
    }
  });
});
