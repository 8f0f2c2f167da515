/**
 * A background pass run every few seconds, at most one at a time per process: a tick that finds the
 * previous pass still running is skipped, a failed pass is logged and tried again on the next tick,
 * and `stop` waits for the pass under way. The timer does not keep the process alive.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly onFailure: (error: Error) => void,
  ) {}

  /** Runs the pass every `seconds` (0 or less: never); a second start is a no-op. */
  start(seconds: number): void {
    if (seconds <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.pass()
        .catch((e) => this.onFailure(e as Error))
        .finally(() => (this.running = null));
    }, seconds * 1000);
    this.timer.unref();
  }

  /** No further passes; resolves when the one under way (if any) has ended. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
