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
});
