import { Inject, Injectable, Logger, OnModuleDestroy, OnApplicationBootstrap } from '@nestjs/common';
import { BackgroundWork } from '../../shared/lifecycle/background-work';
import { DataSource } from 'typeorm';
import { AnalyticsConfig } from './analytics.config';
import { PeriodicTask } from '../../shared/time/periodic-task';

/** The advisory lock one folding instance holds at a time (session level, on its own connection). */
const FOLD_LOCK = 7_301_455_023;
/** Appended changes of each table folded per transaction. */
const FOLD_BATCH = 5_000;

/**
 * Folds the rollup changes that writers append (analytics_payment_deltas, analytics_invoice_deltas;
 * migration 1763702000000) into the rollup rows, every ANALYTICS_FOLD_SECONDS, one organization and
 * mode per transaction (analytics_fold). Only one instance folds at a time (advisory lock; the others
 * skip the tick). Folding keeps the appended tail short, so the dashboard, which folds its own
 * organization before it reads, finds little or nothing to fold. Correctness does not depend on it:
 * a change is either appended or folded, and folds of one organization take its anchor row.
 */
@Injectable()
export class RollupFolder implements OnModuleDestroy, OnApplicationBootstrap {
  private readonly logger = new Logger('RollupFolder');
  private readonly task = new PeriodicTask(
    () => this.foldAll(),
    (e) => this.logger.warn({ err: e.message }, 'rollup fold failed; retrying on the next tick'),
  );

  constructor(
    @Inject(BackgroundWork) private readonly work: BackgroundWork,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(AnalyticsConfig) private readonly config: AnalyticsConfig,
  ) {}

  /** One pass: folds every organization's appended changes; returns how many it folded (null: another instance holds the lock). */
  async foldAll(): Promise<number | null> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [FOLD_LOCK]);
      if (!locked) return null;
      try {
        const scopes: Array<{ organization_id: string; mode: string }> = await runner.query(
          `SELECT organization_id, mode FROM analytics_payment_deltas UNION SELECT organization_id, mode FROM analytics_invoice_deltas ORDER BY 1, 2`,
        );
        let folded = 0;
        for (const s of scopes) {
          // In batches, each its own transaction: a backlog (writes while no instance folded) is worked
          // off in steps that each stay well within the statement timeout. One organization's fold that
          // fails is logged and left for the next pass; the organizations after it are folded all the same.
          try {
            for (;;) {
              const [{ n }] = await runner.query('SELECT analytics_fold($1, $2, $3) AS n', [s.organization_id, s.mode, FOLD_BATCH]);
              folded += Number(n);
              if (Number(n) < FOLD_BATCH) break;
            }
          } catch (error) {
            this.logger.warn(
              { event: 'analytics_fold_failed', organization_id: s.organization_id, mode: s.mode, err: (error as Error).message },
              "an organization's analytics changes were not folded; the others are, and it is tried again on the next pass",
            );
          }
        }
        return folded;
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [FOLD_LOCK]);
      }
    } finally {
      await runner.release();
    }
  }

  /** Starts with the service's background work (after the migrations; never in the CLI). */
  onApplicationBootstrap(): void {
    this.work.whenReady('analytics-rollup-folder', () => this.start());
  }

  /** Folds every ANALYTICS_FOLD_SECONDS (0: never); one pass at a time per process. */
  start(): void {
    this.task.start(this.config.ANALYTICS_FOLD_SECONDS);
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }
}
