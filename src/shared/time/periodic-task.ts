/**
 * A background pass run every few seconds, at most one at a time per process: a tick that finds the
 * previous pass still running is skipped, a failed pass is logged and tried again on the next tick,
 * and `stop` waits for the pass under way. The timer does not keep the process alive.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | null = null;
  private delay: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private seconds = 0;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly onFailure: (error: Error) => void,
  ) {}

  /** Runs the pass every `seconds` (0 or less: never); a second start is a no-op. */
  start(seconds: number): void {
    if (seconds <= 0 || this.timer || this.delay) return;
    this.seconds = seconds;
    this.repeat();
  }

  /**
   * Moves the schedule: the next pass runs `seconds` from now, and the ones after it every period
   * from then on (no-op when not started). Lets processes that run the same task against shared
   * state stop ticking in step.
   */
  shift(seconds: number): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    this.delay = setTimeout(
      () => {
        this.delay = null;
        this.tick();
        this.repeat();
      },
      Math.max(0, seconds * 1000),
    );
    this.delay.unref();
  }

  /** No further passes; resolves when the one under way (if any) has ended. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.delay) clearTimeout(this.delay);
    this.timer = null;
    this.delay = null;
    await this.running;
  }

  /**
   * One pass now, whether or not the task was started, and resolves when it has ended (rejects with its
   * error). It waits for a pass under way first, and ticks that come while it runs are skipped, so passes
   * stay one at a time.
   */
  async runNow(): Promise<void> {
    while (this.running) await this.running;
    const pass = this.pass();
    this.running = pass.catch(() => undefined).finally(() => (this.running = null));
    await pass;
  }

  private repeat(): void {
    this.timer = setInterval(() => this.tick(), this.seconds * 1000);
    this.timer.unref();
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.pass()
      .catch((e) => this.onFailure(e as Error))
      .finally(() => (this.running = null));
  }
}
