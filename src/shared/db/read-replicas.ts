import { AsyncLocalStorage } from 'node:async_hooks';
import Redis from 'ioredis';
import { Pool, PoolClient } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import type { Scope } from '../auth/request-context';
import { type PreflightCheck, settingStatus } from '../preflight/preflight-check';
import { poolOf, send } from './pipelined-transaction';
import { SESSION_OPTIONS } from './session-options';
import { serviceTypeParsers } from './timestamps';

/**
 * Reads served by streaming replicas (DATABASE_REPLICA_URLS), without a client ever reading data
 * older than its own acknowledged write.
 *
 * The rule: every write request of an organization's mode records the primary's WAL position
 * (`pg_current_wal_lsn()`) once its transactions have committed and before it is answered, in Redis
 * (shared by every instance) and in this process. A read of that organization and mode goes to a
 * replica only when the replica has replayed at least that far (`pg_last_wal_replay_lsn()`), else to
 * the primary. Positions are per organization and mode, so one tenant's writes never send another's
 * reads to the primary.
 *
 * Where the position is not known for certain (no REDIS_URL, or Redis not answering, or Redis has lost
 * its keys (a restart, a flush) since less than the lag limit, or the position of one of the
 * organization's acknowledged writes could not be read: `requiredPosition`), the primary's
 * current position stands in for it: one tiny statement on the primary, after which the read itself
 * can still go to a replica that has replayed that far. Never stale, only less saving.
 *
 * Health: each process asks every replica how far it has replayed every
 * DATABASE_REPLICA_CHECK_INTERVAL_MS, and the primary where it is. A replica that does not answer,
 * or that has not yet replayed a position the primary had more than DATABASE_REPLICA_MAX_LAG_SECONDS
 * ago, is skipped until a later check finds it caught up. A read that fails on a replica for any
 * reason is sent again to the primary (a SQL error repeats there and is thrown as usual).
 *
 * A replica that vanishes without closing its connections (its host lost, a network cut) must not hold
 * reads: the checks and the replay position asked before a read get an answer within `answerWithinMs`
 * or the replica is marked down, and marking it down ends at once the reads still waiting on it, which
 * the primary then answers. Its connections carry TCP keepalive and a client-side read timeout, so
 * the ones it left behind are closed rather than kept for minutes.
 */
export interface ReadReplicaSettings {
  urls: string[];
  maxLagMs: number;
  checkIntervalMs: number;
  poolSize: number;
  direct: boolean;
  redisUrl?: string;
  redisTimeoutMs: number;
}

interface ReplicaState {
  readonly name: string;
  /** The reads' connections. */
  readonly pool: Pool;
  /** Two connections of its own for the checks and replay positions, so busy reads never delay them. */
  readonly probe: Pool;
  /** Reads waiting on it: told when it is marked down, so they go to the primary at once. */
  readonly waiting: Set<(error: Error) => void>;
  /** Its replay position being asked now (`replayPosition`), shared by whoever asks meanwhile. */
  asking: Promise<bigint> | null;
  /** Answered the last check. */
  up: boolean;
  /** The last replay position it reported (0 before the first answer). */
  replayed: bigint;
  /** The primary's positions at the checks since it last caught up that it had not replayed, oldest first (`stillBehind`). */
  behind: PrimarySample[];
}

/** The primary's position at a check, and when it was read. */
export interface PrimarySample {
  lsn: bigint;
  at: number;
}

/** Samples kept per lagging replica; past it, every other one after the oldest goes (the lag stays exact). */
const MAX_SAMPLES = 512;

/**
 * A replica's lag, kept from check to check: the primary's positions it has not replayed yet, oldest first,
 * after a check that read `primary` and found the replica at `replayed`. How long it lags is the time since
 * the oldest of them: since the primary was first seen at a position the replica still has not reached (to
 * within one check interval). (Resetting
 * that time whenever the replica reached the previous check's position would read a replica steadily 8 s
 * behind as caught up every 8 s.) Positions the replica has replayed go; thinning keeps the oldest.
 */
/**
 * Whether reads may go to a replica now: it answered the last check, its lag (`behind`) is within the limit,
 * and that lag was measured against the primary recently (`primarySeenAt`: the last check that could read
 * the primary's position, within `trustMs`). While the primary's position cannot be read, a replica's lag
 * cannot be told, and a write acknowledged meanwhile may be missing from it: reads go to the primary.
 */
export function replicaUsable(
  r: { up: boolean; behind: readonly PrimarySample[] },
  now: number,
  primarySeenAt: number,
  limits: { maxLagMs: number; trustMs: number },
): boolean {
  if (!r.up || now - primarySeenAt > limits.trustMs) return false;
  return !r.behind.length || now - r.behind[0].at <= limits.maxLagMs;
}

export function stillBehind(behind: readonly PrimarySample[], primary: PrimarySample, replayed: bigint): PrimarySample[] {
  if (replayed >= primary.lsn) return [];
  const kept = behind.filter((sample) => sample.lsn > replayed);
  const last = kept[kept.length - 1];
  if (!last || last.lsn < primary.lsn) kept.push(primary);
  return kept.length > MAX_SAMPLES ? kept.filter((_, i) => i === 0 || i % 2 === 1) : kept;
}

/**
 * The scope of a keyed read request being handled (set by WritePositionInterceptor): only its reads
 * may go to a replica. A write request's own reads (the answer it builds after committing), a payer
 * page's and background work's read from the primary.
 */
export const replicaReadScope = new AsyncLocalStorage<Scope | typeof ANY_CLIENT>();

/**
 * The store of a read request without a key (the payer's checkout and claim pages, polled): whose
 * writes it must see is not known before it reads, so it must see every acknowledged write: the
 * primary's position now (one tiny statement there), and the read itself on a replica that has
 * replayed that far.
 */
export const ANY_CLIENT = 'any client';

/** Where reads and routing went, for /metrics and the tests. */
export interface ReplicaRoutingCounts {
  replica: number;
  primary: number;
  fallbacks: number;
}

/** The replicas' own limit on one statement (statement_timeout). */
const REPLICA_STATEMENT_TIMEOUT_MS = 30_000;

/** Positions kept for an organization's mode: long after any replica must have replayed them. */
const POSITION_TTL_SECONDS = 3600;

/** What is known of an organization's mode's acknowledged writes when one of its reads is routed. */
export interface KnownPosition {
  /** This process's own record of them (0 when none). */
  own: bigint;
  /** Until when (ms) this process holds the scope's position unknown: a write's position could not be read (0: not). */
  unknownUntil: number;
  /**
   * What Redis holds: the shared position (0 when none), and `unknown` when an instance holds it unknown or
   * Redis has lost its keys since less than the window below (`KEPT_SCRIPT`); null when Redis cannot be asked.
   */
  shared: { lsn: bigint; unknown: boolean } | null;
}

/** A read must see what the primary has now: the rule of reads whose writer's position is not known. */
export const PRIMARY_NOW = 'primary now';

/**
 * The position a read of an organization's mode must see on a replica: the larger of the shared and this
 * process's records; or PRIMARY_NOW when they may miss one of its acknowledged writes: Redis cannot be
 * asked, or the position of one of its writes could not be read after its commit (here or on another
 * instance) less than the lag limit and one round of checks ago. Past that window a replica that has
 * not replayed such a write lags past the limit and is skipped anyway.
 */
export function requiredPosition(known: KnownPosition, now: number): bigint | typeof PRIMARY_NOW {
  if (now < known.unknownUntil || !known.shared || known.shared.unknown) return PRIMARY_NOW;
  return known.shared.lsn > known.own ? known.shared.lsn : known.own;
}

/** `X/Y` (pg_lsn as text) as a number of bytes. */
export function parseLsn(text: string | null | undefined): bigint {
  if (!text) return 0n;
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/**
 * Redis keeps positions only while it keeps its keys: a restart without persistence, a flush or a failover
 * loses them, and an organization's last write would then read as never made. `replica-positions:kept`
 * (no TTL, KEYS[1] of the scripts) says this Redis has kept them; found missing, it is set again, and with it
 * `replica-positions:settling` (KEYS[2]) for the window (ARGV[1], ms) in which a write acknowledged before the loss may
 * still be missing from a usable replica: meanwhile every instance's reads take the primary's position.
 * The first start on an empty Redis counts as a loss too (it cannot be told from one).
 */
const KEPT_KEYS = ['replica-positions:kept', 'replica-positions:settling'] as const;
const KEPT_SCRIPT = `
if redis.call('SET', KEYS[1], '1', 'NX') then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
end`;

/** A read's position: {position or nil, above 0 when it must not be trusted}; KEYS[3] the position, KEYS[4] its "unknown" mark. */
const READ_SCRIPT = `${KEPT_SCRIPT}
local untrusted = redis.call('EXISTS', KEYS[4]) + redis.call('EXISTS', KEYS[2])
return {redis.call('GET', KEYS[3]), untrusted}`;

/** Sets KEYS[3] to the larger of its value and ARGV[2] (decimal strings), with a TTL (ARGV[3], s). */
const RAISE_SCRIPT = `${KEPT_SCRIPT}
local current = redis.call('GET', KEYS[3])
if (not current) or (string.len(ARGV[2]) > string.len(current)) or (string.len(ARGV[2]) == string.len(current) and ARGV[2] > current) then
  redis.call('SET', KEYS[3], ARGV[2], 'EX', ARGV[3])
else
  redis.call('EXPIRE', KEYS[3], ARGV[3])
end
return 1`;

export class ReadReplicas {
  private readonly replicas: ReplicaState[];
  private readonly redis: (Redis & PositionCommands) | null;
  /** This process's own writes: organization:mode -> position. */
  private readonly local = new Map<string, { lsn: bigint; at: number }>();
  /** Scopes whose write's position could not be read: organization:mode -> until when reads take the primary's position. */
  private readonly unknown = new Map<string, number>();
  /** Positions (and "unknown" marks, until when) Redis did not take when they were recorded: stored again at each check. */
  private readonly unshared = new Map<string, bigint>();
  private readonly unsharedUnknown = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  /** When a check last read the primary's position (replicaUsable). */
  private primarySeenAt = 0;
  private next = 0;
  readonly counts: ReplicaRoutingCounts = { replica: 0, primary: 0, fallbacks: 0 };
  /** How long a replica has to say how far it has replayed (one tiny statement) before it counts as down. */
  private readonly answerWithinMs: number;
  /**
   * How long a write whose position is not known may still be missing from a usable replica: the lag
   * limit, counted from the next check (within one interval, answered within `answerWithinMs`).
   */
  private readonly unknownForMs: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly settings: ReadReplicaSettings,
    private readonly log: (level: 'warn' | 'info', entry: Record<string, unknown>) => void = () => undefined,
  ) {
    this.answerWithinMs = Math.max(settings.checkIntervalMs, 1000);
    this.unknownForMs = settings.maxLagMs + settings.checkIntervalMs + this.answerWithinMs;
    const connection = (url: string) => ({
      connectionString: url,
      connectionTimeoutMillis: 2_000,
      // A host that is gone answers nothing, not even a reset: keepalive finds it out on idle connections,
      // and the client-side timeout (a statement the replica would itself have cancelled by now) on busy ones.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      application_name: 'invoicing-api',
      types: serviceTypeParsers(),
    });
    this.replicas = settings.urls.map((url, i) => ({
      name: `replica ${i + 1} (${new URL(url).host})`,
      pool: new Pool({
        ...connection(url),
        max: settings.poolSize,
        statement_timeout: REPLICA_STATEMENT_TIMEOUT_MS,
        query_timeout: REPLICA_STATEMENT_TIMEOUT_MS + this.answerWithinMs,
        ...(settings.direct && { options: SESSION_OPTIONS }),
      }),
      probe: new Pool({ ...connection(url), max: 2, query_timeout: this.answerWithinMs }),
      waiting: new Set(),
      asking: null,
      up: false,
      replayed: 0n,
      behind: [],
    }));
    for (const r of this.replicas) {
      r.pool.on('error', () => undefined);
      r.probe.on('error', () => undefined);
    }
    this.redis = settings.redisUrl
      ? (new Redis(settings.redisUrl, {
          enableOfflineQueue: false,
          maxRetriesPerRequest: 0,
          commandTimeout: settings.redisTimeoutMs,
          connectTimeout: 2000,
        }) as Redis & PositionCommands)
      : null;
    this.redis?.on('error', () => undefined);
    this.redis?.defineCommand('readPosition', { numberOfKeys: 4, lua: READ_SCRIPT });
    this.redis?.defineCommand('raisePosition', { numberOfKeys: 3, lua: RAISE_SCRIPT });
  }

  /** Starts the periodic checks (the first one at once). */
  async start(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), this.settings.checkIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.checking;
    await Promise.all(this.replicas.flatMap((r) => [r.pool.end().catch(() => undefined), r.probe.end().catch(() => undefined)]));
    this.redis?.disconnect();
  }

  /** Per replica: whether reads may go to it now, and how far it had replayed at the last check. */
  status(): Array<{ name: string; up: boolean; usable: boolean; lagMs: number }> {
    const now = Date.now();
    return this.replicas.map((r) => ({ name: r.name, up: r.up, usable: this.usable(r, now), lagMs: r.behind.length ? now - r.behind[0].at : 0 }));
  }

  /** One round of checks; overlapping calls share it. */
  check(): Promise<void> {
    this.checking ??= this.checkOnce().finally(() => (this.checking = null));
    return this.checking;
  }

  private async checkOnce(): Promise<void> {
    let primary: bigint;
    const at = Date.now();
    try {
      primary = await this.primaryPosition();
    } catch {
      return;
    }
    this.primarySeenAt = at;
    await Promise.all(
      this.replicas.map(async (r) => {
        try {
          const replayed = await this.replayPosition(r);
          if (!r.up) this.log('info', { msg: `${r.name} answers: reads may go to it`, event: 'replica_up', replica: r.name });
          r.up = true;
          r.replayed = replayed;
          r.behind = stillBehind(r.behind, { lsn: primary, at }, replayed);
        } catch (e) {
          this.markDown(r, e);
        }
      }),
    );
    for (const [key, entry] of this.local) if (at - entry.at > POSITION_TTL_SECONDS * 1000) this.local.delete(key);
    for (const [key, until] of this.unknown) if (at >= until) this.unknown.delete(key);
    await this.shareAgain();
  }

  private usable(r: ReplicaState, now = Date.now()): boolean {
    return replicaUsable(r, now, this.primarySeenAt, { maxLagMs: this.settings.maxLagMs, trustMs: this.unknownForMs });
  }

  private async primaryPosition(): Promise<bigint> {
    const rows = (await send(poolOf(this.dataSource), 'SELECT pg_current_wal_lsn()::text AS lsn', undefined)) as Array<{ lsn: string }>;
    return parseLsn(rows[0].lsn);
  }

  /**
   * How far `r` has replayed, asked now; no answer within `answerWithinMs` is an error. Callers that ask
   * while a question is out share its answer: a burst of reads waiting for one replica to catch up asks it
   * once, not once each, and never queues long enough on the two probe connections to pass for a dead replica.
   */
  private replayPosition(r: ReplicaState): Promise<bigint> {
    r.asking ??= this.askReplayPosition(r).finally(() => (r.asking = null));
    return r.asking;
  }

  private async askReplayPosition(r: ReplicaState): Promise<bigint> {
    const rows = (await withTimeout(send(r.probe, 'SELECT pg_last_wal_replay_lsn()::text AS lsn', undefined), this.answerWithinMs)) as Array<{
      lsn: string | null;
    }>;
    if (!rows[0].lsn) throw new Error('not a streaming replica (no replay position)');
    return parseLsn(rows[0].lsn);
  }

  /** `work` on `r`, unless `r` is marked down first: then an error at once, and the read goes to the primary. */
  private whileUp<T>(r: ReplicaState, work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      r.waiting.add(reject);
      work.then(resolve, reject).finally(() => r.waiting.delete(reject));
    });
  }

  /**
   * Records that a write of `scope` was acknowledged: the primary's position now, which every
   * transaction the request committed is behind. Awaited before the response is sent.
   */
  async recordWrite(scope: Scope): Promise<void> {
    await this.recordWrites([scope]);
  }

  /**
   * The same for several scopes at one position: what the webhooks about to be sent announce, written by
   * background work (a chain watcher, an expiry, a payer) that no request of the organization's recorded.
   */
  async recordWrites(scopes: readonly Scope[]): Promise<void> {
    const keys = [...new Set(scopes.map(positionKey))];
    let lsn: bigint;
    try {
      lsn = await this.primaryPosition();
    } catch (e) {
      await this.positionUnknown(keys, e);
      return;
    }
    for (const key of keys) {
      const known = this.local.get(key);
      if (!known || known.lsn < lsn) this.local.set(key, { lsn, at: Date.now() });
    }
    if (!this.redis) return;
    const failed = await this.share(keys.map((key) => [key, lsn]));
    if (failed) this.log('warn', { msg: 'the write position could not be shared through Redis', event: 'replica_position_unshared', error: failed.message });
  }

  /** Raises the shared positions; those Redis did not take are kept to be stored again at the next checks. */
  private async share(positions: ReadonlyArray<[string, bigint]>): Promise<Error | null> {
    let failed: Error | null = null;
    await Promise.all(
      positions.map(async ([key, lsn]) => {
        try {
          await this.redis!.raisePosition(...KEPT_KEYS, `replica-position:${key}`, this.unknownForMs, lsn.toString(), POSITION_TTL_SECONDS);
          if (this.unshared.get(key) === lsn) this.unshared.delete(key);
        } catch (e) {
          failed ??= e as Error;
          if ((this.unshared.get(key) ?? 0n) < lsn) this.unshared.set(key, lsn);
        }
      }),
    );
    return failed;
  }

  /**
   * What Redis did not take when it was recorded, stored again (each check). Meanwhile another instance
   * that reaches Redis reads without it; if Redis lost its keys in between, it knows (`KEPT_SCRIPT`).
   */
  private async shareAgain(): Promise<void> {
    if (!this.redis || this.redis.status !== 'ready') return;
    if (this.unshared.size) await this.share([...this.unshared]);
    const now = Date.now();
    for (const [key, until] of this.unsharedUnknown) {
      if (until <= now) this.unsharedUnknown.delete(key);
      else
        await this.redis
          .set(`replica-position-unknown:${key}`, '1', 'PX', until - now)
          .then(() => this.unsharedUnknown.delete(key))
          .catch(() => undefined);
    }
  }

  /**
   * The primary did not say its position after a write of `keys` was committed (a reset connection, a
   * full pool): the write is acknowledged all the same, so until any usable replica must have replayed it
   * (`unknownForMs`), reads of those scopes take the primary's position now, here and, through Redis
   * (best effort, with that TTL), on every instance.
   */
  private async positionUnknown(keys: readonly string[], error: unknown): Promise<void> {
    const until = Date.now() + this.unknownForMs;
    for (const key of keys) if ((this.unknown.get(key) ?? 0) < until) this.unknown.set(key, until);
    this.log('warn', {
      msg: "a write's position could not be read: its organization's reads take the primary's position for a while",
      event: 'replica_position_unknown',
      error: (error as Error)?.message ?? String(error),
    });
    if (!this.redis) return;
    try {
      await Promise.all(keys.map((key) => this.redis!.set(`replica-position-unknown:${key}`, '1', 'PX', this.unknownForMs)));
    } catch (e) {
      for (const key of keys) this.unsharedUnknown.set(key, until);
      this.log('warn', { msg: 'the write position could not be shared through Redis', event: 'replica_position_unshared', error: (e as Error).message });
    }
  }

  /** The position a read of `scope` must see (`requiredPosition`); the primary's position now when it cannot be known. */
  private async required(scope: Scope | null): Promise<bigint> {
    if (!scope) return this.primaryPosition();
    const key = positionKey(scope);
    const rule = requiredPosition(
      { own: this.local.get(key)?.lsn ?? 0n, unknownUntil: this.unknown.get(key) ?? 0, shared: await this.shared(key) },
      Date.now(),
    );
    if (rule !== PRIMARY_NOW) return rule;
    this.counts.fallbacks++;
    return this.primaryPosition();
  }

  /** What Redis holds for `key`; null when it cannot be asked. */
  private async shared(key: string): Promise<KnownPosition['shared']> {
    if (!this.redis || this.redis.status !== 'ready') return null;
    try {
      const [lsn, untrusted] = await this.redis.readPosition(...KEPT_KEYS, `replica-position:${key}`, `replica-position-unknown:${key}`, this.unknownForMs);
      return { lsn: lsn ? BigInt(lsn) : 0n, unknown: untrusted > 0 };
    } catch {
      return null;
    }
  }

  /** The pool a read of `scope` goes to: a usable replica that has replayed far enough, else the primary. */
  private async target(scope: Scope | null): Promise<Pool | null> {
    const now = Date.now();
    const candidates = this.replicas.filter((r) => this.usable(r, now));
    if (!candidates.length) return null;
    const required = await this.required(scope);
    const start = this.next++ % candidates.length;
    const ordered = [...candidates.slice(start), ...candidates.slice(0, start)];
    const ready = ordered.find((r) => r.replayed >= required);
    if (ready) return ready.pool;
    // Behind at the last check: it may have replayed since (usually within milliseconds). Ask it.
    const chosen = ordered[0];
    try {
      const replayed = await this.replayPosition(chosen);
      if (replayed > chosen.replayed) chosen.replayed = replayed;
      return replayed >= required ? chosen.pool : null;
    } catch (e) {
      this.markDown(chosen, e);
      return null;
    }
  }

  /**
   * A replica that did not answer (a check, a read, a replay position asked): said once, when it goes down.
   * The reads still waiting on it stop waiting and go to the primary.
   */
  private markDown(r: ReplicaState, error: unknown): void {
    const gone = new Error(`${r.name} does not answer`);
    for (const stop of r.waiting) stop(gone);
    r.waiting.clear();
    if (r.up)
      this.log('warn', {
        msg: `${r.name} does not answer: its reads go to the primary`,
        event: 'replica_down',
        replica: r.name,
        error: (error as Error)?.message ?? String(error),
      });
    r.up = false;
  }

  /**
   * A manager for the reads of one query of `scope` (null: of any client, see ANY_CLIENT): its `query()` statements go where the rule
   * above sends them (decided at the first statement, kept for the rest), everything else is the
   * primary's manager.
   */
  managerFor(scope: Scope | null, primary: EntityManager): EntityManager {
    const manager = Object.create(primary) as EntityManager;
    let decided: Promise<Pool | null> | null = null;
    manager.query = (async (sql: string, parameters?: unknown[]) => {
      decided ??= this.target(scope).catch(() => null);
      const pool = await decided;
      if (!pool) {
        this.counts.primary++;
        return primary.query(sql, parameters);
      }
      const replica = this.replicas.find((r) => r.pool === pool)!;
      try {
        const result = await this.whileUp(replica, send(pool, sql, parameters));
        this.counts.replica++;
        return result;
      } catch {
        // The replica failed (stopped, restarting, a query cancelled by replay): the primary answers.
        decided = Promise.resolve(null);
        void this.replayPosition(replica).catch((e: unknown) => this.markDown(replica, e));
        this.counts.primary++;
        return primary.query(sql, parameters);
      }
    }) as EntityManager['query'];
    return manager;
  }

  /**
   * The go-live checks of the replicas (`cli doctor`, and once after the service listens), one per
   * replica, asked afresh: it answers, it is a streaming replica of this primary (same cluster
   * identifier) with replay running, and it replays the primary's position of now within
   * DATABASE_REPLICA_MAX_LAG_SECONDS. A replica that fails one is skipped by reads, which the primary
   * then serves: a warning outside production, a failure in production.
   */
  async preflight(production: boolean): Promise<PreflightCheck[]> {
    const limit = `DATABASE_REPLICA_MAX_LAG_SECONDS (${this.settings.maxLagMs / 1000} s)`;
    const [primary, identifier] = await Promise.all([
      this.primaryPosition(),
      send(poolOf(this.dataSource), 'SELECT system_identifier::text AS id FROM pg_control_system()', undefined).then(
        (rows) => (rows as Array<{ id: string }>)[0].id,
      ),
    ]);
    return Promise.all(
      this.replicas.map(async (r, i): Promise<PreflightCheck> => {
        const check = (status: PreflightCheck['status'], detail: string, facts: Record<string, unknown> = {}): PreflightCheck => ({
          name: `settings.read_replica.${i + 1}`,
          status,
          detail: `${r.name} ${detail}`,
          replica: r.name,
          ...facts,
        });
        const problem = settingStatus(production);
        let state: { recovering: boolean; paused: boolean | null; id: string };
        try {
          const rows = (await withTimeout(
            send(
              r.pool,
              `SELECT pg_is_in_recovery() AS recovering, CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() END AS paused,
                      system_identifier::text AS id FROM pg_control_system()`,
              undefined,
            ),
            5_000,
          )) as Array<{ recovering: boolean; paused: boolean | null; id: string }>;
          state = rows[0];
        } catch (e) {
          const reason = ((e as Error)?.message || 'no answer').split('\n')[0].replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>');
          return check(problem, `does not answer (${reason}): reads go to the primary until it does; check the server and DATABASE_REPLICA_URLS`, {
            reachable: false,
          });
        }
        if (state.id !== identifier) {
          return check(
            problem,
            'is not a copy of this primary (another cluster): its reads would not follow our writes; point DATABASE_REPLICA_URLS at replicas of DATABASE_URL',
            {
              reachable: true,
            },
          );
        }
        if (!state.recovering) {
          return check(
            problem,
            'is not a streaming replica (not in recovery: a primary of its own): it never replays our writes; point DATABASE_REPLICA_URLS at a replica',
            {
              reachable: true,
            },
          );
        }
        if (state.paused) {
          return check(problem, 'has paused replay (pg_wal_replay_pause): it falls behind and reads skip it; resume it with pg_wal_replay_resume()', {
            reachable: true,
            replaying: false,
          });
        }
        // How long it takes to replay what the primary had written when asked: the lag, measured.
        const started = Date.now();
        for (;;) {
          let replayed: bigint;
          try {
            replayed = await withTimeout(this.replayPosition(r), 5_000);
          } catch (e) {
            return check(
              problem,
              `stopped answering while its lag was measured (${(e as Error).message.split('\n')[0]}): reads go to the primary until it answers`,
              {
                reachable: false,
              },
            );
          }
          const waited = Date.now() - started;
          if (replayed >= primary) {
            return check('ok', `answers and replays: it had the primary's position of now within ${waited} ms (limit ${limit})`, {
              reachable: true,
              replaying: true,
              lag_ms: waited,
            });
          }
          if (waited > this.settings.maxLagMs) {
            return check(
              problem,
              `lags: it had not replayed the primary's position after ${waited} ms, past ${limit}; reads skip it until it catches up (check its network, disk and load)`,
              {
                reachable: true,
                replaying: true,
                lag_ms: waited,
              },
            );
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }),
    );
  }

  /**
   * Runs `work` in one REPEATABLE READ READ ONLY transaction (a single snapshot for several
   * statements, entity reads included) on the replica the rule above picks for `scope`; with none
   * (none usable, none far enough, or it failed before `work` finished), `onPrimary` answers instead.
   * An error `work` throws itself (a not-found) is thrown as it is.
   */
  async snapshot<T>(scope: Scope | null, work: (manager: EntityManager) => Promise<T>, onPrimary: () => Promise<T>): Promise<T> {
    const pool = await this.target(scope).catch(() => null);
    const replica = this.replicas.find((r) => r.pool === pool);
    if (!pool || !replica) {
      this.counts.primary++;
      return onPrimary();
    }
    let client: PoolClient;
    const connecting = pool.connect();
    try {
      client = await this.whileUp(replica, connecting);
    } catch (e) {
      // A connection that arrives after the replica was given up is closed, not kept out of the pool.
      connecting.then(
        (late) => late.release(true),
        () => undefined,
      );
      this.markDown(replica, e);
      this.counts.primary++;
      return onPrimary();
    }
    const failed: { error: Error | null } = { error: null };
    const runner = this.dataSource.createQueryRunner('master');
    // TypeORM's entity reads ask the runner for its connection: this one, on the replica.
    (runner as unknown as { databaseConnection: PoolClient }).databaseConnection = client;
    const query = runner.query.bind(runner);
    runner.query = ((...args: Parameters<typeof query>) =>
      this.whileUp(replica, query(...args)).catch((e: Error) => {
        failed.error ??= e;
        throw e;
      })) as typeof runner.query;
    const manager = Object.create(runner.manager) as EntityManager;
    manager.query = ((sql: string, parameters?: unknown[]) =>
      this.whileUp(replica, send(client, sql, parameters)).catch((e: Error) => {
        failed.error ??= e;
        throw e;
      })) as EntityManager['query'];
    try {
      await manager.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const result = await work(manager);
      await manager.query('COMMIT');
      this.counts.replica++;
      return result;
    } catch (e) {
      if (!failed.error) {
        await send(client, 'ROLLBACK', undefined).catch(() => undefined);
        throw e;
      }
      // The replica failed (stopped, a statement cancelled by replay): the primary answers.
      void this.replayPosition(replica).catch((err: unknown) => this.markDown(replica, err));
      this.counts.primary++;
      return onPrimary();
    } finally {
      client.release(failed.error ?? undefined);
    }
  }
}

/** The scripts above, as commands of the Redis client (sent by their digest, the script itself when Redis lacks it). */
interface PositionCommands {
  readPosition(kept: string, settling: string, positionKey: string, unknownKey: string, windowMs: number): Promise<[string | null, number]>;
  raisePosition(kept: string, settling: string, positionKey: string, windowMs: number, lsn: string, ttlSeconds: number): Promise<number>;
}

function positionKey(scope: Scope): string {
  return `${scope.organizationId}:${scope.mode}`;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: Error) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
