import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { createDatabase, dropDatabase, withClient } from '../../support/pg';
import { ADMIN_TOKEN, RunningServer, startServer } from '../../support/server';
import { LOAD_ADDRESSES_MAX, WATCHED_UP_TO_SQL } from '../../../src/modules/rails/persistence/watched-addresses';
import { freshAccount } from './rails-helpers';
import { embeddedUrl } from '../../support/embedded';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** Rows the plan's scans read (returned plus filtered out), and the scans it used. */
function scans(node: PlanNode): { rows: number; nodes: string[] } {
  const isScan = /Scan/.test(node['Node Type']);
  const children = (node.Plans ?? []).map(scans);
  return {
    rows: (isScan ? (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) : 0) + children.reduce((a, c) => a + c.rows, 0),
    nodes: [...(isScan ? [`${node['Node Type']} ${node['Index Name'] ?? ''}`.trim()] : []), ...children.flatMap((c) => c.nodes)],
  };
}

/**
 * The watcher asks for the watched set on every scan. Addresses whose monitoring window closed stay in
 * deposit_addresses for ever, so reading the set must not read them: an index range on the end of the
 * window, also as the generic plan the service's sessions use.
 */
describe('the watched deposit addresses lookup', () => {
  let server: RunningServer;
  let databaseUrl: string;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const pg = process.env.TEST_PG_SERVER_URL;
    if (pg) {
      databaseUrl = await createDatabase(pg);
      server = await startServer({ databaseUrl });
      drop = () => dropDatabase(pg, databaseUrl);
    } else {
      const dataDir = mkdtempSync(join(tmpdir(), 'ipa-watched-'));
      server = await startServer({ dataDir });
      databaseUrl = embeddedUrl(dataDir);
      drop = async () => undefined;
    }
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await drop?.();
  });

  it('reads only the watched addresses, not the 20,000 whose window has closed', async () => {
    const res = await new Api(null, server.baseUrl).post('/admin/organizations', { name: 'Many addresses' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
    const { organization_id, test_key } = res.body.data;
    const wallet = expectSuccess(await new Api(test_key, server.baseUrl).post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);

    const plan = await withClient(databaseUrl, async (db) => {
      const seed = (from: number, count: number, window: string) =>
        db.query(
          `INSERT INTO deposit_addresses (wallet_id, derivation_index, organization_id, mode, invoice_id, provider_id, network, address, watch_until, created_at)
           SELECT $1, $2 + g, $3, 'test', 'invoice_old_' || ($2 + g), 'prov_ethereum_usdt', 'ethereum',
                  '0x' || substr(md5(($2 + g)::text), 1, 20) || substr(md5(($2 + g)::text), 13, 20), now() + $5::interval, now()
             FROM generate_series(1, $4) AS g`,
          [wallet.id, from, organization_id, count, window],
        );
      await seed(0, 20_000, '-1 day');
      await seed(100_000, 3, '1 day');
      await db.query(`ANALYZE deposit_addresses`);
      await db.query(`SET plan_cache_mode = force_generic_plan`);
      await db.query(`PREPARE watched_up_to AS ${WATCHED_UP_TO_SQL}`);
      const watched = await db.query(`EXECUTE watched_up_to('test', 'ethereum', now(), ${LOAD_ADDRESSES_MAX + 1})`);
      expect(watched.rows).toHaveLength(3);
      const { rows } = await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE watched_up_to('test', 'ethereum', now(), ${LOAD_ADDRESSES_MAX + 1})`);
      return (rows[0] as { 'QUERY PLAN': Array<{ Plan: PlanNode }> })['QUERY PLAN'][0].Plan;
    });
    const read = scans(plan);
    expect(read.nodes).toEqual(['Index Scan deposit_addresses_watching_idx']);
    expect(read.rows).toBeLessThanOrEqual(3);
  });
});
