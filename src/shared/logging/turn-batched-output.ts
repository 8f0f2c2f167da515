import type { DestinationStream } from 'pino';

/** The asynchronous standard output (SonicBoom) as TurnBatchedOutput uses it. */
export interface AsyncOutput extends DestinationStream {
  flush(cb?: (err?: Error) => void): void;
  flushSync(): void;
}

/** The outputs whose held lines are written on exit. */
const open = new Set<TurnBatchedOutput>();

function flushAllOnExit(): void {
  for (const output of open) {
    try {
      output.flushSync();
    } catch {
      // That output is gone (a closed pipe): nothing more can be written to it.
    }
  }
}

/**
 * Holds the lines written during one turn of the event loop and hands them to `output` as one
 * string when the turn's callbacks are done (setImmediate), so each line does not cost a write (a
 * call into libuv's thread pool and its completion callback) of its own. Nothing waits longer than
 * the turn; on exit (process.exit included) what is held is written synchronously.
 */
export class TurnBatchedOutput implements DestinationStream {
  private held: string[] = [];
  private scheduled = false;
  private readonly release = () => this.handOn();

  constructor(private readonly output: AsyncOutput) {
    if (!open.size) process.once('exit', flushAllOnExit);
    open.add(this);
  }

  write(line: string): void {
    this.held.push(line);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.release);
  }

  /** What is held, then the output's own buffer (pino's `logger.flush`). */
  flush(cb?: (err?: Error) => void): void {
    this.handOn();
    this.output.flush(cb);
  }

  flushSync(): void {
    this.handOn();
    this.output.flushSync();
  }

  private handOn(): void {
    this.scheduled = false;
    if (!this.held.length) return;
    const text = this.held.length === 1 ? this.held[0] : this.held.join('');
    this.held = [];
    this.output.write(text);
  }
}
