/**
 * Wakes a worker when something it handles happens, at most once every `spacingMs`: the first wake
 * after a quiet moment runs it at once, and the wakes that come while it runs or shortly after it
 * started are gathered into one run when the spacing has passed. Nothing a wake asks for is dropped:
 * a wake always leads to a run that starts after it.
 *
 * The durable event handlers use it: each commit of an event wakes the handlers of its type, and
 * under a steady stream of commits one pass a few milliseconds later reads them all, instead of one
 * pass (a transaction of four statements) per commit.
 */
export class SpacedWake {
  private timer: NodeJS.Timeout | null = null;
  private lastStart = Number.NEGATIVE_INFINITY;

  /**
   * @param run starts the worker (it calls `started()` when a run of its own begins).
   * @param busy whether a run is under way now; a wake then waits for a run that starts after it.
   */
  constructor(
    private readonly spacingMs: number,
    private readonly run: () => void,
    private readonly busy: () => boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /** Notes that a run began (woken or not), so the next wake is spaced from it. */
  started(): void {
    this.lastStart = this.now();
  }

  /** Something to handle happened: run now, or once the spacing since the last start has passed. */
  wake(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.lastStart + this.spacingMs - this.now());
    if (wait === 0 && !this.busy()) {
      this.run();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.run();
    }, wait);
    this.timer.unref();
  }

  /** Forgets a wake still waiting (at shutdown). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
