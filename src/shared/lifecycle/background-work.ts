import { Injectable, Logger } from '@nestjs/common';

/**
 * When a process's background work may begin. Each module starts its own workers (a sweeper, a
 * dispatcher, a watcher) from its lifecycle hook (`onApplicationBootstrap`: `work.whenReady(() =>
 * this.start())`); they run once the service has migrated its database and opened the gate
 * (`ready()`, main.ts, after the migrations and once it listens). A process that never opens it (the
 * CLI) runs none of them. A start that throws is logged and does not keep the others from starting.
 */
@Injectable()
export class BackgroundWork {
  private readonly logger = new Logger('BackgroundWork');
  private readonly waiting: Array<{ name: string; start: () => void }> = [];
  private opened = false;

  /** Runs `start` when the gate opens (at once when it is open). */
  whenReady(name: string, start: () => void): void {
    if (this.opened) this.run(name, start);
    else this.waiting.push({ name, start });
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
