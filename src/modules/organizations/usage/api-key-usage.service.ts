import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { TransactionRunner } from '../../../shared/db/transaction-runner';
import { BackgroundWork } from '../../../shared/lifecycle/background-work';
import { PeriodicTask } from '../../../shared/time/periodic-task';
import { UsageNotes, USAGE_WRITE_INTERVAL_MS } from '../domain/api-key';
import { OrganizationsRepository } from '../persistence/organizations.repository';

/**
 * The last-used time of API keys, kept off the request path: resolving a key only notes it in
 * memory (`UsageNotes`: at most one note a minute per key), and a background pass writes the notes
 * once a minute in one statement of its own, outside any request's transaction. A process that
 * stops writes what it noted. The time shown is therefore up to about two minutes behind.
 */
@Injectable()
export class ApiKeyUsage implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ApiKeyUsage');
  private readonly notes = new UsageNotes();
  private readonly task = new PeriodicTask(
    () => this.flush(),
    (error) => this.logger.error({ msg: 'writing API key usage failed', error: error.message }),
  );

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(OrganizationsRepository) private readonly repo: OrganizationsRepository,
    @Inject(BackgroundWork) private readonly work: BackgroundWork,
  ) {}

  onApplicationBootstrap(): void {
    this.work.whenReady(
      'api-key-usage',
      () => this.task.start(USAGE_WRITE_INTERVAL_MS / 1000),
      () => this.flush(),
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
    await this.flush().catch((error: Error) => this.logger.error({ msg: 'writing API key usage at shutdown failed', error: error.message }));
  }

  /** Notes that a key was used now (a map update; no I/O). */
  note(keyId: string, at: Date): void {
    this.notes.note(keyId, at);
  }

  /** Writes the pending notes (one statement); on failure they are kept for the next pass. */
  async flush(): Promise<void> {
    const pending = this.notes.take();
    if (!pending.length) return;
    try {
      await this.repo.recordKeyUsage(this.tx.manager, pending);
    } catch (error) {
      this.notes.restore(pending);
      throw error;
    }
  }
}
