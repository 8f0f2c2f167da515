import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Scope } from '../auth/request-context';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { EventOutbox } from '../events/outbox';
import { ConflictError } from '../errors/domain-error';
import { idempotencyScope } from '../idempotency/idempotency-scope';
import { inTransaction, onNestedBorrow, poolManager, writeBehind } from './pipelined-transaction';
import { setPreparedStatements } from './prepared';
import { ANY_CLIENT, ReadReplicas, replicaReadScope } from './read-replicas';

/**
 * Marks a request's Idempotency-Key claim applied, in the commit of its first transaction, if the
 * claim is still the request's own: in flight since it claimed it. A request that ran for more than
 * two minutes without committing may have been taken over by a retry (idempotency.ts), which wrote
 * its own claim; then nothing matches, the division by the count fails (22012), and the transaction
 * is rolled back, so the request and its retry never both commit. So a keyed request runs its
 * transactions one after another until the first has committed (none at once, none inside another):
 * a second one racing the first to mark the claim would find it marked and fail.
 */
const MARK_APPLIED_SQL = `WITH marked AS (
  UPDATE idempotency_keys SET state = 'applied'
   WHERE organization_id = $1 AND mode = $2 AND key = $3 AND state = 'in_flight' AND created_at = $4
  RETURNING 1)
SELECT 1 / count(*) FROM marked`;

function claimTakenOver(e: unknown): unknown {
  const code = (e as { driverError?: { code?: string }; code?: string }).driverError?.code ?? (e as { code?: string }).code;
  if (code !== '22012') return e;
  return new ConflictError(
    "A retry with this Idempotency-Key took over this request after it had run for two minutes without completing; nothing of this request was kept, and the retry's result stands",
    'idempotency_conflict',
  );
}

/**
 * Handlers own their transaction: `run(manager => ...)`, and every repository call inside takes
 * that manager. Nothing reaches the database outside it while it is open.
 */
@Injectable()
export class TransactionRunner implements OnModuleInit, OnModuleDestroy {
  private readonly reads: EntityManager;
  /** With DATABASE_REPLICA_URLS: where reads of `readsFor` go (read-replicas.ts); null without replicas. */
  readonly replicas: ReadReplicas | null = null;
  private readonly logger = new Logger('Transactions');

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(AppConfig) config: AppConfig,
    @Inject(EventOutbox) private readonly outbox: EventOutbox,
  ) {
    setPreparedStatements(config.DB_PREPARED_STATEMENTS);
    onNestedBorrow((entry) => this.logger.warn(entry));
    this.reads = poolManager(dataSource);
    if (config.replicaUrls.length) {
      const log = new Logger('ReadReplicas');
      this.replicas = new ReadReplicas(
        dataSource,
        {
          urls: config.replicaUrls,
          maxLagMs: config.DATABASE_REPLICA_MAX_LAG_SECONDS * 1000,
          checkIntervalMs: config.DATABASE_REPLICA_CHECK_INTERVAL_MS,
          poolSize: config.dbPoolSize,
          direct: config.DB_PREPARED_STATEMENTS,
          redisUrl: config.REDIS_URL,
          redisTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
        },
        (level, entry) => (level === 'warn' ? log.warn(entry) : log.log(entry)),
      );
    }
  }

  async onModuleInit(): Promise<void> {
    await this.replicas?.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.replicas?.stop();
  }

  /**
   * Runs `work` in one transaction. A transaction PostgreSQL chose as a deadlock victim (40P01) or
   * could not serialize (40001) was rolled back whole, so it is run again, up to three times.
   * Each retry is logged (warn, `transaction_retried`): a deadlock costs its victim PostgreSQL's
   * deadlock_timeout (1 s by default), so a steady trickle of them is a lock-order bug to fix.
   */
  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.retrying(() => this.runOnce(work));
  }

  /**
   * For work that sends exactly one statement, which PostgreSQL runs atomically on its own (a
   * change and its event written by one statement with data-modifying CTEs): the statement goes
   * straight to the pool, without BEGIN and COMMIT around it, two round trips fewer. It still runs
   * in a transaction of its own, as `run` does, when the request carries an idempotency claim (marked
   * applied in the same commit) or when the caller asks for one (`transaction`: e.g. outbox
   * subscribers that write with the same manager). Deadlocks and serialization failures are retried
   * as in `run`.
   */
  runAlone<T>(work: (manager: EntityManager) => Promise<T>, transaction = false): Promise<T> {
    const claim = idempotencyScope.getStore();
    if (transaction || (claim && !claim.applied)) return this.run(work);
    return this.retrying(() => work(this.reads));
  }

  private async retrying<T>(once: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await once();
      } catch (e) {
        const code = (e as { code?: string; driverError?: { code?: string } }).driverError?.code ?? (e as { code?: string }).code;
        if (attempt >= 3 || (code !== '40P01' && code !== '40001')) throw e;
        this.logger.warn({
          msg: code === '40P01' ? 'deadlock: transaction run again' : 'serialization failure: transaction run again',
          event: 'transaction_retried',
          code,
          attempt,
        });
        await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 20 * attempt)));
      }
    }
  }

  /** One attempt; after its commit the events it recorded are published (EventOutbox.committed). */
  private async runOnce<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    let manager: EntityManager | null = null;
    const result = await this.attempt((m) => {
      manager = m;
      return work(m);
    });
    if (manager) this.outbox.committed(manager);
    return result;
  }

  private attempt<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const claim = idempotencyScope.getStore();
    if (!claim || claim.applied) return inTransaction(this.dataSource, work);
    // A request sent with an Idempotency-Key: its claim is marked applied in the same commit.
    return inTransaction(this.dataSource, async (m) => {
      const result = await work(m);
      // Sent without waiting: COMMIT follows right behind it and is not answered before it is. It
      // fails, and the transaction with it, when the claim is no longer this request's.
      await writeBehind(m, MARK_APPLIED_SQL, [claim.organizationId, claim.mode, claim.key, claim.claimedAt], claimTakenOver);
      return result;
    }).then((result) => {
      claim.applied = true;
      return result;
    });
  }

  /**
   * For the reads of one query of `scope` that may be served by a read replica (lists, single
   * reads, figures), when asked while a keyed GET of that scope is handled: a replica that has replayed the organization's mode's last acknowledged write,
   * else the primary (read-replicas.ts). Only `query()` is routed. Without DATABASE_REPLICA_URLS it
   * is `manager`, at no cost. `scope` null (a payer's read, whose organization is not known before
   * it reads): on a keyless GET, a replica that has replayed the primary's position now. Never for reads that decide a write: those belong in its transaction.
   */
  readsFor(scope: Scope | null): EntityManager {
    const routed = this.routing(scope);
    if (!this.replicas || routed === undefined) return this.reads;
    return this.replicas.managerFor(routed, this.reads);
  }

  /**
   * For a query of `scope` that needs one snapshot across its statements (a product with its
   * schemas and tiers, read while a replace may commit): `work` runs in a REPEATABLE READ READ ONLY
   * transaction, on a replica under the same rule as `readsFor` (entity reads included), else on
   * the primary. `snapshotOnPrimary` false: on the primary its statements go to the pool as they
   * would through `manager` (reads that need no common snapshot, on a path where a transaction
   * would cost round trips); on a replica they still share one transaction, the replica's connection.
   */
  readSnapshot<T>(scope: Scope | null, work: (manager: EntityManager) => Promise<T>, snapshotOnPrimary = true): Promise<T> {
    const onPrimary = () =>
      snapshotOnPrimary
        ? this.run(async (m) => {
            await m.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
            return work(m);
          })
        : work(this.reads);
    const routed = this.routing(scope);
    if (!this.replicas || routed === undefined) return onPrimary();
    return this.replicas.snapshot(routed, work, onPrimary);
  }

  /**
   * Whose acknowledged writes a read of `scope` asked now must see, when a replica may serve it: the
   * scope itself (a keyed read of that scope), null (a keyless read: every client's), or undefined
   * (the primary must answer: no replicas, not a read request, or a read of another scope).
   */
  private routing(scope: Scope | null): Scope | null | undefined {
    if (!this.replicas) return undefined;
    const reading = replicaReadScope.getStore();
    if (!reading) return undefined;
    if (reading === ANY_CLIENT) return null;
    if (!scope || reading.organizationId !== scope.organizationId || reading.mode !== scope.mode) return undefined;
    return scope;
  }

  /** For reads (and single statements) that need no transaction. */
  get manager(): EntityManager {
    return this.reads;
  }
}
