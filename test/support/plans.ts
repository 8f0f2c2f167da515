import { Client } from 'pg';
import { IsolatedService, startIsolatedService } from './isolated';

/** One node of `EXPLAIN (ANALYZE, FORMAT JSON)`. */
export interface PlanNode {
  'Node Type': string;
  'Actual Loops'?: number;
  'Actual Rows'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Index Name'?: string;
  /** Index-only scans under ANALYZE: rows whose page the visibility map did not vouch for. */
  'Heap Fetches'?: number;
  'Relation Name'?: string;
  /** How the node's parent uses it: Outer, Inner, Member, InitPlan, SubPlan. */
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
}

/** Rows a node produced or read and threw away, over all its loops (EXPLAIN shows per-loop averages). */
export const rowsTouched = (n: PlanNode): number =>
  ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Join Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0)) *
  (n['Actual Loops'] ?? 1);

export const nodesOf = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];

/** Rows the plan's scans of `table` read or threw away (with `partitions`, of every table whose name starts with it). */
export const rowsReadFrom = (plan: PlanNode, table: string, { partitions = false } = {}): number =>
  nodesOf(plan)
    .filter((n) => (partitions ? (n['Relation Name'] ?? '').startsWith(table) : n['Relation Name'] === table))
    .reduce((sum, n) => sum + rowsTouched(n), 0);

/**
 * The statement as the service's sessions plan it (generic: blind to the values), run under EXPLAIN
 * ANALYZE (or only planned: `analyze: false`). In a transaction that is rolled back afterwards, so a
 * writing statement leaves nothing.
 */
export async function genericPlan(db: Client, text: string, params: unknown[], { analyze = true } = {}): Promise<PlanNode> {
  await db.query('SET plan_cache_mode = force_generic_plan');
  await db.query('DEALLOCATE ALL');
  // EXECUTE takes its arguments as SQL values, not as bound parameters.
  const literal = (v: unknown): string => {
    if (v === null) return 'NULL';
    if (typeof v === 'number') return String(v);
    if (v instanceof Date) return db.escapeLiteral(v.toISOString());
    // An empty array as an untyped literal: the parameter's type types it (`ARRAY[]` has none).
    if (Array.isArray(v)) return v.length ? `ARRAY[${v.map((e) => db.escapeLiteral(String(e))).join(', ')}]` : `'{}'`;
    return db.escapeLiteral(String(v));
  };
  await db.query('BEGIN');
  try {
    await db.query(`PREPARE planned AS ${text}`);
    const { rows } = await db.query(`EXPLAIN (${analyze ? 'ANALYZE, BUFFERS, ' : ''}FORMAT JSON) EXECUTE planned(${params.map(literal).join(', ')})`);
    return (rows[0]['QUERY PLAN'][0] as { Plan: PlanNode }).Plan;
  } finally {
    await db.query('ROLLBACK');
  }
}

export interface FreshDatabase {
  service: IsolatedService;
  db: Client;
  org: Awaited<ReturnType<IsolatedService['createOrg']>>;
}

/** A service on a fresh database of its own (statistics untouched), an organization, and a connection for loading and planning. */
export async function startFreshDatabase(orgName: string, env: Record<string, string> = {}): Promise<FreshDatabase> {
  const service = await startIsolatedService({ INVOICE_SWEEP_SECONDS: '0', ...env });
  if (!service.databaseUrl) throw new Error('needs a PostgreSQL server');
  const org = await service.createOrg(orgName);
  const db = new Client({ connectionString: service.databaseUrl });
  await db.connect();
  return { service, db, org };
}

/** `count` more organizations beside `organizationId` (ids `<organizationId>_peer_<i>`), made on `db`: their ids. */
export async function peerOrganizations(db: Client, organizationId: string, count: number): Promise<string[]> {
  const peers = Array.from({ length: count }, (_, i) => `${organizationId}_peer_${i}`);
  await db.query(`INSERT INTO organizations (id, name, created_at) SELECT unnest($1::text[]), 'Peer', now()`, [peers]);
  return peers;
}
