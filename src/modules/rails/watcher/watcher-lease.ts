import type { Logger } from '@nestjs/common';
import type { DataSource, QueryRunner } from 'typeorm';

/**
 * Which instance follows a network: the one holding the network's PostgreSQL advisory lock, a session
 * lock on a connection of its own. When the holder dies its connection closes, the lock is freed and
 * another instance takes it on its next try.
 */
export class WatcherLease {
  private lock: QueryRunner | null = null;
  private readonly key: string;

  constructor(
    private readonly dataSource: DataSource,
    mode: string,
    network: string,
    private readonly logger: Logger,
    private readonly labels: { network: string; mode: string },
  ) {
    this.key = `chain_watcher:${mode}:${network}`;
  }

  get held(): boolean {
    return this.lock !== null;
  }

  /** Tries to take the lock; true when this instance now holds it. */
  async take(): Promise<boolean> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [this.key]);
      if (!locked) {
        await runner.release();
        return false;
      }
    } catch (error) {
      await runner.release().catch(() => undefined);
      throw error;
    }
    this.lock = runner;
    this.logger.log({ msg: 'watching the chain (this instance holds the watcher lock)', event: 'chain_watcher_started', ...this.labels });
    return true;
  }

  /** Asks the lock's connection whether it is alive (a failure is thrown, and the step fails). */
  async ping(): Promise<void> {
    await this.lock!.query('SELECT 1');
  }

  /** A failed step may mean the lock's connection is gone: then the lock is too, and it must be taken again. */
  async check(): Promise<void> {
    if (!this.lock) return;
    try {
      await this.lock.query('SELECT 1');
    } catch {
      const lost = this.lock;
      this.lock = null;
      await lost.release().catch(() => undefined);
      this.logger.warn({ msg: 'watcher lock connection lost; taking the lock again', event: 'chain_watcher_lock_lost', ...this.labels });
    }
  }

  async release(): Promise<void> {
    const runner = this.lock;
    this.lock = null;
    if (!runner) return;
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [this.key]).catch(() => undefined);
    await runner.release().catch(() => undefined);
  }
}
