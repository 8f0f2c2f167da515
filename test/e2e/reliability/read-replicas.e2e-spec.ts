import Redis from 'ioredis';
import { v7 as uuidv7 } from 'uuid';
import { Api } from '../../support/api';
import { download, PNG, upload } from '../files/files-helpers';
import { productBody } from '../products/product-bodies';
import { expectSuccess } from '../../support/envelope';
import { RedisServer } from '../../support/redis';
import { ReplicaCluster, sql } from '../../support/replica-cluster';
import { ADMIN_TOKEN, freePort, runCli, RunningServer, startServer } from '../../support/server';
import { WebhookReceiver } from '../../support/webhook-receiver';

/**
 * Reads on a real streaming replica (a primary and a replica of the test's own, see
 * test/support/replica-cluster.ts), served by two instances that share Redis.
 */
/**
 * The instances' lag limit. A test pauses replay and expects its reads within this limit to come from
 * the replica: it must be wide enough for a CI machine running suites side by side to finish those
 * reads in time (4 s was not: a slow read there went to the primary, correctly, and failed the test).
 */
const MAX_LAG_SECONDS = 8;

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
  /** The test key itself. */
  key: string;
}

async function createOrg(name: string): Promise<Org> {
  const res = await new Api(null, a.baseUrl).post('/admin/organizations', { name }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
  expect(res.status).toBe(201);
  const { organization_id, test_key } = res.body.data as { organization_id: string; test_key: string };
  return { id: organization_id, onA: new Api(test_key, a.baseUrl), onB: new Api(test_key, b.baseUrl), key: test_key };
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

/**
 * Index and sequential scans the replica has counted on `tables` (its statistics, flushed by its sessions within
 * seconds). A partitioned table (the events) counts its scans on its partitions: theirs are summed in.
 */
async function replicaScans(tables: string[]): Promise<number> {
  const [row] = await sql<{ n: string }>(
    cluster.replicaUrl,
    `WITH named AS (SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                     WHERE c.relname = ANY($1) AND n.nspname = current_schema()),
          parts AS (SELECT oid FROM named UNION SELECT i.inhrelid FROM pg_inherits i JOIN named ON i.inhparent = named.oid)
     SELECT coalesce(sum(coalesce(s.seq_scan, 0) + coalesce(s.idx_scan, 0)), 0)::text AS n
       FROM pg_stat_user_tables s JOIN parts ON parts.oid = s.relid`,
    [tables],
  );
  return Number(row.n);
}

/** Runs `reads` and waits until the replica has counted at least `atLeast` more scans of `tables`: they were served there. */
async function expectReplicaScans(tables: string[], atLeast: number, reads: () => Promise<void>): Promise<void> {
  const before = await replicaScans(tables);
  await reads();
  const deadline = Date.now() + 20_000;
  while ((await replicaScans(tables)) < before + atLeast && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
  expect((await replicaScans(tables)) - before).toBeGreaterThanOrEqual(atLeast);
}

/** An unmatched transfer of `org` (test mode), as the watcher keeps one the payments module refused; written on the primary directly. */
async function insertUnmatched(org: Org, invoiceId: string): Promise<string> {
  const id = `unmatched_${crypto.randomUUID()}`;
  await sql(
    cluster.primaryUrl,
    `INSERT INTO unattributed_transfers (id, organization_id, mode, network, idempotency_key, address, invoice_id, provider_id, currency, tx_hash,
                                         log_index, block_number, block_hash, happened_at, units, amount, status, reason_code, reason, attempts,
                                         created_at, updated_at)
     VALUES ($1, $2, 'test', 'ethereum', $3, '0x00000000000000000000000000000000000000aa', $4, 'prov_ethereum_usdt', 'USDT', $5, 0, 10, $6, now(), 1000, '0.001',
             'OPEN', 'invoice_not_found', 'the invoice was not found', 1, now(), now())`,
    [id, org.id, `ethereum:${id}:0`, invoiceId, `0x${'ab'.repeat(32)}`, `0x${'cd'.repeat(32)}`],
  );
  return id;
}

beforeAll(async () => {
  // The second replica is for `cli doctor` only (the services read from the first).
  cluster = await ReplicaCluster.start('replicas_app', 2);
  redis = new RedisServer(await freePort());
  await redis.start();
  await keptPositions();
  const env = {
    DATABASE_REPLICA_URLS: cluster.replicaUrl,
    DATABASE_REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
    DATABASE_REPLICA_CHECK_INTERVAL_MS: '200',
    REDIS_URL: redis.url,
    DB_POOL_SIZE: '4',
    // Webhooks go out within a fraction of the lag limit.
    DURABLE_HANDLERS_POLL_MS: '100',
    WEBHOOK_DISPATCH_INTERVAL_MS: '100',
  };
  a = await startServer({ databaseUrl: cluster.primaryUrl, env });
  b = await startServer({ databaseUrl: cluster.primaryUrl, env });
});

/**
 * Marks the test's Redis as one that has kept positions all along (and not lost them lately): an empty Redis
 * reads as one that lost them, and reads would take the primary's position for the next seconds.
 */
async function keptPositions(): Promise<void> {
  const client = new Redis(redis.url);
  try {
    await client.set('replica-positions:kept', '1');
    await client.del('replica-positions:settling');
  } finally {
    client.disconnect();
  }
}

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

  it('answers reads from the primary within seconds when the replica stops answering without closing its connections (a lost host)', async () => {
    const org = await createOrg('Lost host');
    const quiet = await createOrg('Quiet');
    const first = await createInvoice(org.onA, '5');
    const quietId = await createInvoice(quiet.onA, '6');
    await cluster.caughtUp();
    await new Promise((r) => setTimeout(r, 500));
    // Both instances keep connections open to the replica from reads it served.
    for (const api of [org.onA, org.onB, quiet.onA, quiet.onB]) await listIds(api);
    const downs = (server: RunningServer) => (server.output().match(/replica_down/g) ?? []).length;
    const downsBefore = [downs(a), downs(b)];
    const within = async <T>(ms: number, work: Promise<T>): Promise<T> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
      try {
        return await Promise.race([work, late]);
      } finally {
        clearTimeout(timer);
      }
    };

    cluster.freezeReplica();
    try {
      // Straight after, before a check has noticed: a client's read after its own write (the replica is
      // asked how far it has replayed) and reads of an organization that wrote nothing (sent to the
      // replica as it is), on both instances. Each is answered, fresh, within seconds.
      const second = await createInvoice(org.onA, '7');
      const started = Date.now();
      const [onB, onA, one, quietOnB, quietOne] = await within(
        8_000,
        Promise.all([listIds(org.onB), listIds(org.onA), org.onB.get(`/invoices/${second}`), listIds(quiet.onB), quiet.onA.get(`/invoices/${quietId}`)]),
      );
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(onB).toEqual([first, second].sort());
      expect(onA).toEqual([first, second].sort());
      expect(expectSuccess(one).id).toBe(second);
      expect(quietOnB).toEqual([quietId]);
      expect(expectSuccess(quietOne).id).toBe(quietId);
      // Once the checks have found it down, reads go to the primary at once.
      for (let i = 0; i < 3; i++) {
        const t = Date.now();
        expect(await within(3_000, listIds(quiet.onB))).toEqual([quietId]);
        expect(await within(3_000, listIds(org.onA))).toEqual([first, second].sort());
        expect(Date.now() - t).toBeLessThan(2_000);
      }
      expect(downs(a)).toBeGreaterThan(downsBefore[0]);
      expect(downs(b)).toBeGreaterThan(downsBefore[1]);
      expect(await (await fetch(`${b.baseUrl}/metrics`)).text()).toMatch(/db_replica_usable\{replica="replica 1 \([^)]+\)"\} 0/);
    } finally {
      cluster.thawReplica();
    }
    // Back: usable again on both instances before the next test.
    await cluster.caughtUp();
    const deadline = Date.now() + 15_000;
    for (const server of [a, b]) {
      while (!/db_replica_usable\{replica="replica 1 \([^)]+\)"\} 1/.test(await (await fetch(`${server.baseUrl}/metrics`)).text())) {
        if (Date.now() > deadline) throw new Error('the replica was not usable again');
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  });

  it('reads a write fresh on another instance after Redis loses the positions (a restart without persistence), also when it was down at the write', async () => {
    const org = await createOrg('Redis restart');
    const first = await createInvoice(org.onA, '3');
    const readFresh = async (expected: string[], written: number) => {
      // Instance B reconnects to the empty Redis meanwhile; every read, well inside the lag limit (the replica,
      // its replay paused, still counts as usable), must see the write.
      let reads = 0;
      while (Date.now() - written < (MAX_LAG_SECONDS - 1) * 1000) {
        expect(await listIds(org.onB)).toEqual(expected);
        reads++;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(reads).toBeGreaterThan(5);
    };

    // Written (its position in Redis), then Redis restarts empty.
    await cluster.caughtUp();
    await new Promise((r) => setTimeout(r, 500));
    await cluster.pauseReplay();
    let second: string;
    try {
      second = await createInvoice(org.onA, '4');
      const written = Date.now();
      await redis.kill();
      await redis.start();
      await readFresh([first, second].sort(), written);
    } finally {
      await cluster.resumeReplay();
    }

    // Redis down when the write's position is stored, back (empty) at once.
    await cluster.caughtUp();
    await new Promise((r) => setTimeout(r, 500));
    await cluster.pauseReplay();
    try {
      await redis.kill();
      const third = await createInvoice(org.onA, '5');
      const written = Date.now();
      await redis.start();
      await readFresh([first, second, third].sort(), written);
      expect(a.output()).toMatch(/replica_position_unshared/);
    } finally {
      await cluster.resumeReplay();
    }
    await cluster.caughtUp();
    await keptPositions();
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
    // Each read goes to the replica when it has replayed the primary's position at that moment; a write of
    // the instances' background work on the primary just before sends one now and then to the primary (on a
    // loaded CI machine), so twice as many reads as the replica must at least serve.
    for (let i = 0; i < 20; i++) expect(expectSuccess(await payer.get(`/invoices/${id}`)).id).toBe(id);
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
  it("serves products, quotes, providers and unmatched transfers from the replica, and each fresh after the client's own write", async () => {
    const org = await createOrg('Catalog reader');
    const productId = expectSuccess(await org.onA.post('/products', productBody())).id as string;
    const product = expectSuccess(await org.onA.get(`/products/${productId}`));
    const setup = (product.schemas as Array<{ id: string; type: string }>).find((x) => x.type === 'ONE_TIME')!.id;
    const invoiceId = await createInvoice(org.onA, '12');
    const listed = expectSuccess(await org.onA.get(`/providers/${invoiceId}`));
    const providerIds = (listed.providers as Array<{ id: string }>).map((x) => x.id);
    expect(providerIds.length).toBeGreaterThan(1);
    // A refused transfer for an invoice that does not exist: a retry is refused again (one attempt more).
    const transferId = await insertUnmatched(org, 'invoice_00000000-0000-7000-8000-000000000000');
    const quoteBody = { currency: 'EUR', product: { id: productId, quantity: 1, billing_schema_id: setup } };
    const quotedPrice = async (api: Api) => expectSuccess(await api.post('/pay/quote', quoteBody)).items[0].calculations[0].initial_price as string;
    expect(await quotedPrice(org.onB)).toMatch(/^49\.99/);
    await cluster.caughtUp();
    await new Promise((r) => setTimeout(r, 500));

    // Changes made on the primary outside the API (no write position recorded for the organization),
    // received by the replica but not applied: every read below that still shows the old value came
    // from the replica. Read on the instance that did not serve the writes.
    await cluster.pauseReplay();
    try {
      await sql(cluster.primaryUrl, `UPDATE products SET name = 'Marked on the primary' WHERE organization_id = $1`, [org.id]);
      await sql(cluster.primaryUrl, `UPDATE billing_schemas SET base_price = 77 WHERE organization_id = $1`, [org.id]);
      await sql(cluster.primaryUrl, `UPDATE unattributed_transfers SET reason = 'marked on the primary' WHERE id = $1`, [transferId]);
      await sql(
        cluster.primaryUrl,
        `INSERT INTO provider_settings (organization_id, mode, provider_id, enabled, created_at, updated_at) VALUES ($1, 'test', $2, false, now(), now())`,
        [org.id, providerIds[1]],
      );
      const [one, list, quoted, providers, transfer, transfers] = await Promise.all([
        org.onB.get(`/products/${productId}`),
        org.onB.get('/products'),
        quotedPrice(org.onB),
        org.onB.get(`/providers/${invoiceId}`),
        org.onB.get(`/rails/unmatched/${transferId}`),
        org.onB.get('/rails/unmatched'),
      ]);
      expect(expectSuccess(one).name).toBe('Pro plan');
      expect(expectSuccess<Array<{ name: string }>>(list).map((x) => x.name)).toEqual(['Pro plan']);
      expect(quoted).toMatch(/^49\.99/);
      expect((expectSuccess(providers).providers as Array<{ id: string }>).map((x) => x.id)).toContain(providerIds[1]);
      expect(expectSuccess(transfer).reason).toBe('the invoice was not found');
      expect((expectSuccess(transfers).items as Array<{ reason: string }>).map((x) => x.reason)).toEqual(['the invoice was not found']);

      // The organization's own writes (acknowledged by instance A) are read at once on instance B,
      // with replay still paused: from the primary.
      const replaced = productBody({ name: 'Pro plan v2', schemas: [productBody().schemas[0], { ...productBody().schemas[1], base_price: '59.99' }] });
      const newId = expectSuccess(await org.onA.put(`/products/${productId}`, replaced)).id as string;
      const newProduct = expectSuccess(await org.onB.get(`/products/${newId}`));
      expect(newProduct.name).toBe('Pro plan v2');
      expect(expectSuccess<Array<{ id: string }>>(await org.onB.get('/products')).map((x) => x.id)).toEqual([newId]);
      const newSetup = (newProduct.schemas as Array<{ id: string; type: string }>).find((x) => x.type === 'ONE_TIME')!.id;
      const requote = expectSuccess(await org.onB.post('/pay/quote', { currency: 'EUR', product: { id: newId, quantity: 1, billing_schema_id: newSetup } }));
      expect(requote.items[0].calculations[0].initial_price).toMatch(/^59\.99/);
      const newInvoice = await createInvoice(org.onA, '13');
      expect(expectSuccess(await org.onB.get(`/providers/${newInvoice}`)).providers.length).toBeGreaterThan(0);
      expect((await org.onA.post(`/rails/unmatched/${transferId}/retry`, {})).status).toBe(400);
      const retried = expectSuccess(await org.onB.get(`/rails/unmatched/${transferId}`));
      expect(retried.attempts).toBe(2);
      // The marks are seen now: the primary answered.
      expect(retried.reason).not.toBe('marked on the primary');
      expect((expectSuccess(await org.onB.get('/rails/unmatched')).items as Array<{ attempts: number }>)[0].attempts).toBe(2);
    } finally {
      await cluster.resumeReplay();
    }
  });

  it('serves payment and event lists and the keys an administrator lists from the replica, and the keys fresh after a key is created', async () => {
    const org = await createOrg('Lists');
    await createInvoice(org.onA, '3');
    await cluster.caughtUp();
    await new Promise((r) => setTimeout(r, 500));
    await expectReplicaScans(['payments'], 3, async () => {
      for (let i = 0; i < 3; i++) expectSuccess(await org.onB.post('/payments', {}));
    });
    await expectReplicaScans(['events'], 3, async () => {
      for (let i = 0; i < 3; i++) expect(expectSuccess(await org.onB.post('/events', {})).total).toBeGreaterThan(0);
    });
    const admin = new Api(null, b.baseUrl);
    const headers = { headers: { 'x-admin-token': ADMIN_TOKEN } };
    await expectReplicaScans(['api_keys'], 3, async () => {
      for (let i = 0; i < 3; i++) expect(expectSuccess(await admin.get(`/admin/organizations/${org.id}/keys`, headers)).length).toBeGreaterThan(0);
    });

    // A key created on instance A while replay is paused is listed at once on instance B.
    await cluster.pauseReplay();
    try {
      const before = expectSuccess<unknown[]>(await admin.get(`/admin/organizations/${org.id}/keys`, headers)).length;
      expectSuccess(await new Api(null, a.baseUrl).post(`/admin/organizations/${org.id}/keys`, { mode: 'test', read_only: true }, headers), 201);
      expect(expectSuccess<unknown[]>(await admin.get(`/admin/organizations/${org.id}/keys`, headers)).length).toBe(before + 1);
      // And the organization's events after its own write.
      const id = await createInvoice(org.onA, '4');
      expect(
        expectSuccess(await org.onB.post('/events', { type: ['invoice.created'] })).items.map((e: { data: { object: { id: string } } }) => e.data.object.id),
      ).toContain(id);
    } finally {
      await cluster.resumeReplay();
    }
  });
  it("serves single events, an invoice's quote and file content from the replica, and a file fresh after its upload", async () => {
    const org = await createOrg('Single reads');
    const invoiceId = await createInvoice(org.onA, '8');
    const file = expectSuccess(await upload(org.onA, PNG, { filename: 'logo.png', contentType: 'image/png' })).id as string;
    const eventId = (expectSuccess(await org.onA.post('/events', {})).items as Array<{ id: string }>)[0].id;
    await cluster.caughtUp();
    await new Promise((r) => setTimeout(r, 500));
    await expectReplicaScans(['events'], 3, async () => {
      for (let i = 0; i < 3; i++) expect(expectSuccess(await org.onB.post(`/events/${eventId}`, {})).id).toBe(eventId);
    });
    // Quoting an invoice reads its items (entity reads, on the replica's connection).
    await expectReplicaScans(['invoice_items'], 3, async () => {
      for (let i = 0; i < 3; i++)
        expect(expectSuccess(await org.onB.post('/pay/quote', { currency: 'USD', invoice_id: invoiceId })).total.price).toMatch(/^8\./);
    });
    // The content is read on the instance that stored it (each instance's own FILES_DIR); its record on the replica.
    await expectReplicaScans(['files'], 3, async () => {
      for (let i = 0; i < 3; i++) expect((await download(`${a.baseUrl}/files/${file}/content`, org.key)).bytes.equals(PNG)).toBe(true);
    });

    await cluster.pauseReplay();
    try {
      const fresh = expectSuccess(await upload(org.onA, PNG, { filename: 'fresh.png', contentType: 'image/png' })).id as string;
      const got = await download(`${a.baseUrl}/files/${fresh}/content`, org.key);
      expect(got.status).toBe(200);
      expect(got.bytes.equals(PNG)).toBe(true);
      const second = await createInvoice(org.onA, '9');
      expect(expectSuccess(await org.onB.post('/pay/quote', { currency: 'USD', invoice_id: second })).total.price).toMatch(/^9\./);
    } finally {
      await cluster.resumeReplay();
    }
  });
  it("serves a subscription's upcoming invoice from the replica, and a new subscription's at once", async () => {
    const org = await createOrg('Subscriber');
    const productId = expectSuccess(await org.onA.post('/products', productBody())).id as string;
    const schemaId = (expectSuccess(await org.onA.get(`/products/${productId}`)).schemas as Array<{ id: string; type: string }>).find(
      (x) => x.type === 'RECURRING',
    )!.id;
    const subscribe = async () =>
      expectSuccess(await org.onA.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'jane@example.com' }), 201)
        .id as string;
    const sub = await subscribe();
    await cluster.caughtUp();
    await new Promise((r) => setTimeout(r, 500));
    await expectReplicaScans(['subscriptions'], 3, async () => {
      for (let i = 0; i < 3; i++) expect(expectSuccess(await org.onB.get(`/subscriptions/${sub}/upcoming_invoice`)).subscription_id).toBe(sub);
    });
    await cluster.pauseReplay();
    try {
      const fresh = await subscribe();
      expect(expectSuccess(await org.onB.get(`/subscriptions/${fresh}/upcoming_invoice`)).subscription_id).toBe(fresh);
    } finally {
      await cluster.resumeReplay();
    }
  });
  it('reads fresh, on either instance, what a webhook announces that no request of the client wrote (a background write)', async () => {
    const org = await createOrg('Webhook reader');
    const receiver = await WebhookReceiver.start();
    try {
      expectSuccess(await org.onA.post('/webhooks', { url: receiver.url(`/fresh-${org.id}`), event_types: ['invoice.updated'] }), 201);
      const id = await createInvoice(org.onA, '9');
      await cluster.caughtUp();
      await cluster.pauseReplay();
      try {
        // A background job (a chain watcher, an expiry) changes the invoice and records its event: no API request
        // of the organization's, so no write position of its own.
        const eventId = `event_${uuidv7()}`;
        await sql(
          cluster.primaryUrl,
          `WITH marked AS (UPDATE invoices SET metadata = '{"mark":"background"}'::jsonb WHERE id = $1 RETURNING id)
           INSERT INTO events (id, organization_id, mode, type, data, created_at)
           SELECT $2, $3, 'test', 'invoice.updated', jsonb_build_object('object', jsonb_build_object('id', id)), now() FROM marked`,
          [id, eventId, org.id],
        );
        const written = Date.now();
        await receiver.waitFor((all) => all.some((w) => w.path === `/fresh-${org.id}` && w.json?.id === eventId), 10_000);
        // Well inside the lag limit, so the replica (its replay paused) still counts as usable: only the position the
        // webhook's dispatch recorded sends these reads to the primary.
        expect(Date.now() - written).toBeLessThan(MAX_LAG_SECONDS * 1000 - 1000);
        for (const api of [org.onB, org.onA]) expect(expectSuccess(await api.get(`/invoices/${id}`)).metadata).toEqual({ mark: 'background' });
      } finally {
        await cluster.resumeReplay();
      }
    } finally {
      await receiver.stop();
    }
  });
});

describe('cli doctor with read replicas', () => {
  interface Check {
    name: string;
    status: 'ok' | 'warn' | 'fail';
    detail: string;
    [fact: string]: unknown;
  }
  const doctor = async (): Promise<{ code: number | null; checks: Check[] }> => {
    const result = await runCli(['doctor', '--json'], {
      DATABASE_URL: cluster.primaryUrl,
      DATABASE_REPLICA_URLS: `${cluster.replicaUrlOf(0)},${cluster.replicaUrlOf(1)}`,
      DATABASE_REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
      LOG_LEVEL: 'error',
    });
    const report = JSON.parse(result.stdout) as { checks: Check[] };
    return { code: result.code, checks: report.checks.filter((c) => c.name.startsWith('settings.read_replica')) };
  };

  it('passes replaying replicas, and names a stopped one and one whose replay is paused with what to do', async () => {
    const healthy = await doctor();
    expect(healthy.checks.map((c) => [c.name, c.status])).toEqual([
      ['settings.read_replica.1', 'ok'],
      ['settings.read_replica.2', 'ok'],
    ]);
    for (const c of healthy.checks) {
      expect(c.detail).toMatch(/answers and replays/);
      expect(c.lag_ms).toBeLessThanOrEqual(MAX_LAG_SECONDS * 1000);
    }
    // The addresses are named by host and port only.
    expect(healthy.checks[1].replica).toBe(`replica 2 (127.0.0.1:${cluster.replicaPorts[1]})`);

    await cluster.stopReplica(1);
    try {
      const stopped = await doctor();
      // Outside production a replica problem warns (reads fall back to the primary): the report still passes.
      expect(stopped.code).toBe(0);
      expect(stopped.checks[0].status).toBe('ok');
      expect(stopped.checks[1]).toMatchObject({ status: 'warn', reachable: false });
      expect(stopped.checks[1].detail).toMatch(/^replica 2 \(127\.0\.0\.1:\d+\) does not answer .*DATABASE_REPLICA_URLS/);
      expect(stopped.checks[1].detail).not.toMatch(/postgres:\/\//);

      await cluster.pauseReplay();
      try {
        const paused = await doctor();
        expect(paused.checks[0]).toMatchObject({ status: 'warn', reachable: true, replaying: false });
        expect(paused.checks[0].detail).toMatch(/paused replay.*pg_wal_replay_resume/);
      } finally {
        await cluster.resumeReplay();
      }
    } finally {
      await cluster.startReplica(1);
    }
    const back = await doctor();
    expect(back.checks.map((c) => c.status)).toEqual(['ok', 'ok']);
  });
});
