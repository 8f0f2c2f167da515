import { PeriodicTask } from './periodic-task';

describe('PeriodicTask', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs one pass at a time: a tick during a pass is skipped', async () => {
    let finish: () => void = () => undefined;
    const pass = jest.fn(() => new Promise<void>((r) => (finish = r)));
    const task = new PeriodicTask(pass, () => undefined);
    task.start(1);
    jest.advanceTimersByTime(3000);
    expect(pass).toHaveBeenCalledTimes(1);
    finish();
    await Promise.resolve();
    await Promise.resolve();
    jest.advanceTimersByTime(1000);
    expect(pass).toHaveBeenCalledTimes(2);
    finish();
    await task.stop();
  });

  it('reports a failed pass and tries again on the next tick', async () => {
    const failures: string[] = [];
    const pass = jest.fn().mockRejectedValueOnce(new Error('down')).mockResolvedValue(undefined);
    const task = new PeriodicTask(pass, (e) => failures.push(e.message));
    task.start(1);
    jest.advanceTimersByTime(1000);
    await jest.runOnlyPendingTimersAsync();
    expect(failures).toEqual(['down']);
    expect(pass.mock.calls.length).toBeGreaterThanOrEqual(2);
    await task.stop();
  });

  it('never runs with 0 seconds, and stop waits for the pass under way', async () => {
    const idle = jest.fn(() => Promise.resolve());
    const off = new PeriodicTask(idle, () => undefined);
    off.start(0);
    jest.advanceTimersByTime(10_000);
    expect(idle).not.toHaveBeenCalled();

    let ended = false;
    let finish: () => void = () => undefined;
    const task = new PeriodicTask(
      () => new Promise<void>((r) => (finish = () => ((ended = true), r()))),
      () => undefined,
    );
    task.start(1);
    jest.advanceTimersByTime(1000);
    const stopped = task.stop();
    finish();
    await stopped;
    expect(ended).toBe(true);
  });

  it('shift moves the schedule: the next pass that much later, then every period from there', async () => {
    const pass = jest.fn(() => Promise.resolve());
    const task = new PeriodicTask(pass, () => undefined);
    task.shift(0.5);
    jest.advanceTimersByTime(1000);
    expect(pass).not.toHaveBeenCalled(); // not started: nothing to move

    task.start(1);
    jest.advanceTimersByTime(1000);
    expect(pass).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(0);

    task.shift(0.5);
    jest.advanceTimersByTime(499);
    expect(pass).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(1);
    expect(pass).toHaveBeenCalledTimes(2);
    await jest.advanceTimersByTimeAsync(0);
    jest.advanceTimersByTime(999);
    expect(pass).toHaveBeenCalledTimes(2);
    jest.advanceTimersByTime(1);
    expect(pass).toHaveBeenCalledTimes(3);
    await jest.advanceTimersByTimeAsync(0);

    // a shift pending when the task stops runs nothing
    task.shift(0.5);
    await task.stop();
    jest.advanceTimersByTime(5000);
    expect(pass).toHaveBeenCalledTimes(3);
  });
  it('runs a pass now on demand, after the one under way, resolving when it has ended; ticks meanwhile are skipped', async () => {
    const order: string[] = [];
    const finishers: Array<() => void> = [];
    const pass = jest.fn(
      () =>
        new Promise<void>((r) => {
          const n = pass.mock.calls.length;
          order.push(`start ${n}`);
          finishers.push(() => {
            order.push(`end ${n}`);
            r();
          });
        }),
    );
    const task = new PeriodicTask(pass, () => undefined);
    task.start(1);
    jest.advanceTimersByTime(1000);
    expect(pass).toHaveBeenCalledTimes(1);
    let done = false;
    const now = task.runNow().then(() => (done = true));
    await Promise.resolve();
    // It waits for the tick's pass before starting its own.
    expect(pass).toHaveBeenCalledTimes(1);
    finishers[0]();
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(pass).toHaveBeenCalledTimes(2);
    jest.advanceTimersByTime(3000);
    expect(pass).toHaveBeenCalledTimes(2);
    expect(done).toBe(false);
    finishers[1]();
    await now;
    expect(done).toBe(true);
    expect(order).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
    await task.stop();
  });

  it('runs a pass on demand when never started, and passes its failure to the caller', async () => {
    const failures: string[] = [];
    const task = new PeriodicTask(
      () => Promise.reject(new Error('node down')),
      (e) => failures.push(e.message),
    );
    await expect(task.runNow()).rejects.toThrow('node down');
    expect(failures).toEqual([]);
    const ok = jest.fn(() => Promise.resolve());
    await new PeriodicTask(ok, () => undefined).runNow();
    expect(ok).toHaveBeenCalledTimes(1);
  });
});
