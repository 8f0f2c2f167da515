import { SpacedWake } from './spaced-wake';

describe('SpacedWake', () => {
  let now: number;
  let busy: boolean;
  let runs: number[];
  let wake: SpacedWake;

  beforeEach(() => {
    jest.useFakeTimers();
    now = 1_000;
    busy = false;
    runs = [];
    wake = new SpacedWake(
      50,
      () => {
        runs.push(now);
        wake.started();
      },
      () => busy,
      () => now,
    );
  });

  afterEach(() => {
    wake.stop();
    jest.useRealTimers();
  });

  const advance = (ms: number) => {
    now += ms;
    jest.advanceTimersByTime(ms);
  };

  it('runs the first wake after a quiet moment at once', () => {
    wake.wake();
    expect(runs).toEqual([1_000]);
  });

  it('gathers a burst of wakes into one run per spacing, the last wake of the burst included', () => {
    // 100 commits in 100 ms, one a millisecond: one run per 50 ms, and a run after the last wake.
    for (let i = 0; i < 100; i++) {
      wake.wake();
      advance(1);
    }
    advance(100);
    expect(runs).toEqual([1_000, 1_050, 1_100]);
    // The last wake came at 1,099: the run at 1,100 started after it.
  });

  it('runs each wake at once when they are further apart than the spacing', () => {
    for (let i = 0; i < 5; i++) {
      wake.wake();
      advance(60);
    }
    expect(runs).toEqual([1_000, 1_060, 1_120, 1_180, 1_240]);
  });

  it('answers a wake that comes while a run is under way with a run after it, never by dropping it', () => {
    wake.wake();
    busy = true;
    advance(80);
    wake.wake();
    expect(runs).toEqual([1_000]);
    advance(0);
    // The worker is told again (it notes it must pass once more when busy); it is not left waiting for a poll.
    expect(runs).toEqual([1_000, 1_080]);
  });

  it('counts the spacing from the last run of any kind, woken or not', () => {
    now = 5_000;
    wake.started(); // a poll's run
    advance(10);
    wake.wake();
    expect(runs).toEqual([]);
    advance(39);
    expect(runs).toEqual([]);
    advance(1);
    expect(runs).toEqual([5_050]);
  });

  it('forgets a waiting wake when stopped', () => {
    wake.wake();
    wake.wake();
    wake.stop();
    advance(100);
    expect(runs).toEqual([1_000]);
  });
});
