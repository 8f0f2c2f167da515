import { Injectable, Logger } from '@nestjs/common';

/**
 * When a process's background work may begin. Each module starts its own workers (a sweeper, a
 * dispatcher, a watcher) from its lifecycle hook (`onApplicationBootstrap`: `work.whenReady(() =>
 * this.start())`); they run once the service has migrated its database and opened the gate
 * (`ready()`, main.ts, after the migrations and once it listens). A process that never opens it (the
 * CLI) runs none of them. A start that throws is logged and does not keep the others from starting.
 *
 * A worker may also register one pass of its work under its name (`whenReady(name, start, pass)`): tests
 * run it on demand through POST /test_helpers/workers/{name}/run (WORKER_PASSES_ON_DEMAND, never in
 * production) instead of waiting for a tick.
 */
@Injectable()
export class BackgroundWork {
  private readonly logger = new Logger('BackgroundWork');
  private readonly waiting: Array<{ name: string; start: () => void }> = [];
  private readonly passes = new Map<string, (organizationId?: string) => Promise<unknown>>();
  private opened = false;

  /**
   * Runs `start` when the gate opens (at once when it is open). `pass`, when given, is one pass of the
   * worker, run to its end: what `runPass(name)` runs on demand (tests only, WORKER_PASSES_ON_DEMAND). A
   * worker may narrow a pass to the organization asking for it (the webhook dispatcher does: a test's pass
   * then never waits on another test's endpoints); the others run over every organization.
   */
  whenReady(name: string, start: () => void, pass?: (organizationId?: string) => Promise<unknown>): void {
    if (pass) this.passes.set(name, pass);
    if (this.opened) this.run(name, start);
    else this.waiting.push({ name, start });
  }

  /** The workers that registered a pass, by name, in the order they registered. */
  get passNames(): string[] {
    return [...this.passes.keys()];
  }

  /**
   * One pass of the named worker now, for the organization asking (`organizationId`) where the worker
   * narrows its passes; resolves when it has finished (rejects with its error). False when no worker of
   * that name registered a pass.
   */
  async runPass(name: string, organizationId?: string): Promise<boolean> {
    const pass = this.passes.get(name);
    if (!pass) return false;
    await pass(organizationId);
    return true;
  }

  /** Opens the gate: every worker registered so far starts, in the order the modules registered them. */
  ready(): void {
    if (this.opened) return;
    this.opened = true;
    for (const { name, start } of this.waiting.splice(0)) this.run(name, start);
  }

  get isReady(): boolean {
    return this.opened;
  }

  private run(name: string, start: () => void): void {
    try {
      start();
    } catch (e) {
      this.logger.error({ worker: name, err: (e as Error).message }, 'a background worker failed to start');
    }
  }
}
