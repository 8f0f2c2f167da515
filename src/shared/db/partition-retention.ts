import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { BackgroundWork } from '../lifecycle/background-work';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { Clock } from '../time/clock';
import { PeriodicTask } from '../time/periodic-task';
import { passOrder } from './retention-order';
import { addUnits, boundAt, isExpired, PartitionKey, PartitionRange, PartitionUnit, rangeAt, rangeOfSuffix, rangesBetween } from './partition-ranges';

/** One partitioned table of a plan: the parent and the column its range partitions are keyed on. */
export interface PartitionedTable {
  table: string;
  column: string;
}

/** What a plan's `beforeDrop` is given: the range about to go and the key values other tables still hold in it. */
export interface DropCandidate {
  range: PartitionRange;
  /** The key bounds of the range: [lower, upper). */
  lower: string;
  upper: string;
  /** Key values in the range that a registered reference still holds (distinct, sorted). */
  referenced: string[];
}

/** What `beforeDrop` decided: drop the range now (having copied out `kept` rows), or wait for a later pass. */
export type DropDecision = { drop: true; kept?: number } | { drop: false; reason: string };

/**
 * A module's time-partitioned tables, registered with the retention job (its `onModuleInit`). The
 * tables are partitioned alike (same unit, same ranges of the same key): each range's partitions are
 * created together, ahead of time, and dropped together once the range is older than the retention.
 */
export interface RetentionPlan {
  /** The plan's name (metrics label, logs, references): `rate-history`, `usage-events`. */
  name: string;
  /** The parents, each `PARTITION BY RANGE (column)`; partitions are created in this order and dropped in the reverse. */
  tables: PartitionedTable[];
  key: PartitionKey;
  unit: PartitionUnit;
  /** Partitions kept ready ahead of now, in units (so a write never waits for the job). */
  ahead: number;
  /** The module's retention setting, read at each pass: a range is dropped once it ended this many days ago; 0 keeps everything. */
  retentionDays: () => number;
  /**
   * Whether each parent has a default partition, `<table>_default`, taking keys no range covers (ids
   * of another shape, rows written while no range existed). Rows in it that a range covers are moved
   * into that range's partition when the range is created.
   */
  defaultPartition?: boolean;
  /**
   * Runs in the transaction that drops a range, before the drop: copy out what must outlive it (rows
   * still referenced or needed), or answer `drop: false` to keep the range for a later pass.
   */
  beforeDrop?: (m: EntityManager, candidate: DropCandidate) => Promise<DropDecision>;
  /** Runs in the transaction that dropped a range, after the drop: forget what the module kept about it elsewhere. */
  afterDrop?: (m: EntityManager, range: PartitionRange) => Promise<void>;
  /**
   * Whether the plan's writers hold its tables while they add what keeps a range (a durable handler reads
   * the events it queues deliveries of; a late usage event is inserted into its month; `beforeDrop` then only
   * reads). A range the checks would drop is then checked again with its tables locked, so a writer still
   * open is waited for and its rows seen. Without it (rate history: a payment is priced before its
   * transaction, and `beforeDrop` copies snapshots out) the checks run once, unlocked, and the only locks are
   * the drop's and those `beforeDrop` takes (rate history's keep lock: a write that records a snapshot of a day
   * about to go copies it out itself, and the drop waits for it).
   */
  recheckUnderLock?: boolean;
}

/** A column of another table that holds keys of a plan (a payment's `rates_snapshot_id`): what it holds is never lost. */
export interface RetentionReference {
  table: string;
  column: string;
}

/** What one pass did, per plan (tests and logs). */
export interface RetentionPassReport {
  locked: boolean;
  plans: Array<{ plan: string; created: string[]; dropped: string[]; waiting: string[]; kept: number; error?: string }>;
}

/** Lock id of the retention pass: one instance at a time runs it (pg_try_advisory_lock; the others skip their tick). */
const RETENTION_LOCK = 'partition_retention';
/** How long a pass waits for the lock on a table it changes; past it, the pass gives up that step until the next one. */
const LOCK_TIMEOUT = '5s';

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function ident(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain table or column name: ${name}`);
  return name;
}

/**
 * The retention job (docs/performance.md, "Tables that stay small"): keeps each registered plan's
 * tables partitioned by time, with partitions created ahead of now and those older than the module's
 * retention dropped, after the module has copied out what must stay (`beforeDrop`) and never while a
 * registered reference holds a key of the range that the module did not keep.
 *
 * It runs at start and every PARTITION_RETENTION_SECONDS, one instance at a time (a session advisory
 * lock: an instance that finds it taken skips its pass), and as `partition-retention` on demand in tests.
 * Metrics: partition_retention_partitions{table}, _created_total / _dropped_total / _kept_rows_total /
 * _failures_total {plan}, _last_pass_timestamp_seconds.
 */
@Injectable()
export class PartitionRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('PartitionRetention');
  private readonly plans = new Map<string, RetentionPlan>();
  private readonly references = new Map<string, RetentionReference[]>();
  private readonly task = new PeriodicTask(
    () => this.pass(),
    (e) => this.logger.warn({ err: e.message }, 'partition retention pass failed'),
  );
  private readonly partitions: Gauge;
  private readonly created: Counter;
  private readonly dropped: Counter;
  private readonly kept: Counter;
  private readonly failures: Counter;
  private readonly lastPass: Gauge;

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(BackgroundWork) private readonly work: BackgroundWork,
    @Inject(MetricsRegistry) metrics: MetricsRegistry,
  ) {
    const registers = [metrics.registry];
    this.partitions = new Gauge({
      name: 'partition_retention_partitions',
      help: 'Partitions of each time-partitioned table',
      labelNames: ['table'],
      registers,
    });
    this.created = new Counter({ name: 'partition_retention_created_total', help: 'Partition ranges created ahead', labelNames: ['plan'], registers });
    this.dropped = new Counter({ name: 'partition_retention_dropped_total', help: 'Partition ranges dropped past retention', labelNames: ['plan'], registers });
    this.kept = new Counter({
      name: 'partition_retention_kept_rows_total',
      help: 'Rows copied out of a range before it was dropped (still referenced or needed)',
      labelNames: ['plan'],
      registers,
    });
    this.failures = new Counter({
      name: 'partition_retention_failures_total',
      help: 'Retention passes of a plan that failed',
      labelNames: ['plan'],
      registers,
    });
    this.lastPass = new Gauge({ name: 'partition_retention_last_pass_timestamp_seconds', help: 'When this instance last ran a retention pass', registers });
  }

  /** Registers a module's plan (from its onModuleInit); a second plan of the same name is refused. */
  register(plan: RetentionPlan): void {
    if (this.plans.has(plan.name)) throw new Error(`retention plan ${plan.name} is registered twice`);
    for (const t of plan.tables) {
      ident(t.table);
      ident(t.column);
    }
    this.plans.set(plan.name, plan);
  }

  /** A column of the caller's own table that holds keys of the plan `planName`: keys it holds are passed to that plan's `beforeDrop`. */
  addReference(planName: string, reference: RetentionReference): void {
    ident(reference.table);
    ident(reference.column);
    const list = this.references.get(planName) ?? [];
    list.push(reference);
    this.references.set(planName, list);
  }

  onApplicationBootstrap(): void {
    this.work.whenReady(
      'partition-retention',
      () => this.start(),
      () => this.task.runNow(),
    );
  }

  private start(): void {
    // Through the task, so a pass asked for meanwhile waits for this one instead of finding the lock taken.
    void this.task.runNow().catch((e: Error) => this.logger.warn({ err: e.message }, 'partition retention pass failed'));
    this.task.start(this.config.PARTITION_RETENTION_SECONDS);
  }

  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
  }

  /** One pass over every plan, under the job's lock; nothing when another instance holds it. */
  async pass(): Promise<RetentionPassReport> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }]: Array<{ locked: boolean }> = await runner.query(`SELECT pg_try_advisory_lock(hashtext($1)) AS locked`, [RETENTION_LOCK]);
      if (!locked) return { locked: false, plans: [] };
      try {
        const report: RetentionPassReport = { locked: true, plans: [] };
        for (const plan of passOrder([...this.plans.values()], this.references)) report.plans.push(await this.runPlan(runner.manager, plan));
        this.lastPass.set(this.clock.now().getTime() / 1000);
        return report;
      } finally {
        await runner.query(`SELECT pg_advisory_unlock(hashtext($1))`, [RETENTION_LOCK]);
      }
    } finally {
      await runner.release();
    }
  }

  private async runPlan(m: EntityManager, plan: RetentionPlan): Promise<RetentionPassReport['plans'][number]> {
    const out = { plan: plan.name, created: [] as string[], dropped: [] as string[], waiting: [] as string[], kept: 0 };
    try {
      const now = this.clock.now();
      const existing = new Set(await this.suffixes(m, plan.tables[0].table));
      const wanted = rangesBetween(plan.unit, now, addUnits(plan.unit, rangeAt(plan.unit, now).from, plan.ahead));
      // Stray rows get their range's partition even when it is past retention (it is then dropped below, as any other).
      const stray = await this.strayRanges(m, plan);
      for (const range of [...stray, ...wanted.filter((r) => !isExpired(r, now, plan.retentionDays()))]) {
        if (existing.has(range.suffix)) continue;
        await this.create(m, plan, range);
        existing.add(range.suffix);
        out.created.push(range.suffix);
        this.created.inc({ plan: plan.name });
      }
      for (const suffix of [...existing].sort()) {
        const range = rangeOfSuffix(plan.unit, suffix);
        if (!range || !isExpired(range, now, plan.retentionDays())) continue;
        const decision = await this.drop(m, plan, range);
        if (decision.drop) {
          out.dropped.push(suffix);
          out.kept += decision.kept ?? 0;
          this.dropped.inc({ plan: plan.name });
          this.kept.inc({ plan: plan.name }, decision.kept ?? 0);
        } else {
          out.waiting.push(suffix);
          this.logger.log({ plan: plan.name, partition: suffix, reason: decision.reason }, 'partition past retention kept for now');
        }
      }
      for (const t of plan.tables) this.partitions.set({ table: t.table }, (await this.suffixes(m, t.table)).length);
      if (out.created.length || out.dropped.length) this.logger.log(out, `partition retention: ${plan.name}`);
      return out;
    } catch (e) {
      this.failures.inc({ plan: plan.name });
      this.logger.warn({ plan: plan.name, err: (e as Error).message }, 'partition retention failed for a plan; tried again next pass');
      return { ...out, error: (e as Error).message };
    }
  }

  /** The range partitions of `table` by suffix (its default partition and other names aside). */
  private async suffixes(m: EntityManager, table: string): Promise<string[]> {
    const rows: Array<{ name: string }> = await m.query(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass($1)`,
      [table],
    );
    const prefix = `${table}_`;
    return rows
      .map((r) => r.name)
      .filter((n) => n.startsWith(prefix) && n !== `${table}_default`)
      .map((n) => n.slice(prefix.length));
  }

  /** Ranges holding rows that landed in a default partition (written while their range did not exist): each unit that holds one. */
  private async strayRanges(m: EntityManager, plan: RetentionPlan): Promise<PartitionRange[]> {
    if (!plan.defaultPartition) return [];
    const { table, column } = plan.tables[0];
    const col = ident(column);
    const unit = plan.unit === 'day' ? 'day' : 'month';
    // The instant each row's key stands for: the time column itself, or the milliseconds a UUIDv7 id starts with.
    const at =
      plan.key.kind === 'time'
        ? col
        : `to_timestamp((('x' || substr(${col}, ${plan.key.prefix.length + 1}, 8) || substr(${col}, ${plan.key.prefix.length + 10}, 4))::bit(48)::bigint) / 1000.0)`;
    const where = plan.key.kind === 'time' ? '' : `WHERE ${col} ~ ('^' || $1 || '[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$')`;
    const rows: Array<{ s: string }> = await m.query(
      `SELECT DISTINCT extract(epoch FROM date_trunc('${unit}', ${at} AT TIME ZONE 'UTC'))::bigint::text AS s FROM ${ident(`${table}_default`)} ${where}`,
      plan.key.kind === 'time' ? [] : [plan.key.prefix],
    );
    return rows.map((r) => rangeAt(plan.unit, new Date(Number(r.s) * 1000))).sort((x, y) => x.from.getTime() - y.from.getTime());
  }

  /** Creates the range's partition of every table of the plan, moving rows of the range out of a default partition. */
  private async create(m: EntityManager, plan: RetentionPlan, range: PartitionRange): Promise<void> {
    const lower = literal(boundAt(plan.key, range.from));
    const upper = literal(boundAt(plan.key, range.to));
    await m.transaction(async (t) => {
      await t.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      for (const { table, column } of plan.tables) {
        const child = ident(`${table}_${range.suffix}`);
        if (!plan.defaultPartition) {
          await t.query(`CREATE TABLE ${child} PARTITION OF ${ident(table)} FOR VALUES FROM (${lower}) TO (${upper})`);
          continue;
        }
        // A default partition holding rows of the range refuses a new partition over them: move them first.
        // Readers and writers of the table wait for this short transaction, as for CREATE TABLE ... PARTITION OF:
        // a writer that routed a row to the default partition before the new one is attached would fail on the
        // default's new constraint, and a reader that listed the partitions before the commit and read after it
        // would find moved rows in neither.
        await t.query(`LOCK TABLE ${ident(table)} IN ACCESS EXCLUSIVE MODE`);
        const stray = ident(`${table}_default`);
        await t.query(`CREATE TABLE ${child} (LIKE ${ident(table)} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
        await t.query(
          `WITH moved AS (DELETE FROM ${stray} WHERE ${ident(column)} >= ${lower} AND ${ident(column)} < ${upper} RETURNING *) INSERT INTO ${child} SELECT * FROM moved`,
        );
        await t.query(`ALTER TABLE ${ident(table)} ATTACH PARTITION ${child} FOR VALUES FROM (${lower}) TO (${upper})`);
      }
    });
  }

  /**
   * Drops the range's partitions in one transaction, after `beforeDrop` kept what must stay. The checks run
   * first without locks, so a range still held (the usual answer, pass after pass) is kept without anyone
   * waiting for it. With `recheckUnderLock`, a range they would drop is checked again with its tables locked
   * as strongly as the drop locks them (dropping a partition locks its whole table): what that reads is every
   * writer's committed work, and nothing is written to the range until the drop commits. Checked only
   * before the lock, a writer still open then (a durable handler queueing deliveries of the range's
   * events) would be invisible, and the drop, waiting for it, would take its rows. The tables are locked in
   * the plan's order, the order writers touch them in (a delivery before its attempt), and dropped in the
   * reverse one (an attempt before its delivery).
   */
  private async drop(m: EntityManager, plan: RetentionPlan, range: PartitionRange): Promise<DropDecision> {
    const lower = boundAt(plan.key, range.from);
    const upper = boundAt(plan.key, range.to);
    const tables = plan.tables.map(({ table }) => table);
    return m.transaction(async (t) => {
      await t.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      let decision = await this.dropDecision(t, plan, { range, lower, upper });
      if (decision.drop && plan.recheckUnderLock) {
        await t.query(`LOCK TABLE ${tables.map(ident).join(', ')} IN ACCESS EXCLUSIVE MODE`);
        decision = await this.dropDecision(t, plan, { range, lower, upper });
      }
      if (!decision.drop) return decision;
      // Each drop locks its whole table: taken one by one in the drops' (reverse) order, a reader holding the
      // first table and asking for the second would deadlock with them. Taken together first, in the order
      // readers and writers touch them, the pass only waits.
      if (tables.length > 1 && !plan.recheckUnderLock) await t.query(`LOCK TABLE ${tables.map(ident).join(', ')} IN ACCESS EXCLUSIVE MODE`);
      for (const table of [...tables].reverse()) await t.query(`DROP TABLE IF EXISTS ${ident(`${table}_${range.suffix}`)}`);
      await plan.afterDrop?.(t, range);
      return decision;
    });
  }

  /** Whether the range may go now: the keys other tables hold in it, then the plan's own `beforeDrop`. */
  private async dropDecision(t: EntityManager, plan: RetentionPlan, candidate: Omit<DropCandidate, 'referenced'>): Promise<DropDecision> {
    const referenced = new Set<string>();
    for (const ref of this.references.get(plan.name) ?? []) {
      const rows: Array<{ v: string }> = await t.query(
        `SELECT DISTINCT ${ident(ref.column)}::text AS v FROM ${ident(ref.table)} WHERE ${ident(ref.column)} >= $1 AND ${ident(ref.column)} < $2`,
        [candidate.lower, candidate.upper],
      );
      for (const r of rows) referenced.add(r.v);
    }
    if (plan.beforeDrop) return plan.beforeDrop(t, { ...candidate, referenced: [...referenced].sort() });
    return referenced.size ? { drop: false, reason: `${referenced.size} keys still referenced and the plan keeps no copies` } : { drop: true };
  }
}
