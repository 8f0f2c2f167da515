import { MemoryCounter } from './memory-counter';

describe('MemoryCounter', () => {
  it('counts a bucket within its window and starts again in the next', () => {
    let now = 10_000;
    const counter = new MemoryCounter(() => now);
    expect(counter.window('a', 1000, 1)).toEqual({ count: 1, resetMs: 1000 });
    now += 400;
    expect(counter.window('a', 1000, 1)).toEqual({ count: 2, resetMs: 600 });
    expect(counter.window('a', 1000, 0)).toEqual({ count: 2, resetMs: 600 });
    now += 600;
    expect(counter.window('a', 1000, 1)).toEqual({ count: 1, resetMs: 1000 });
  });

  it('takes a hit back within the window, never below zero (a new window has nothing to take back)', async () => {
    let now = 10_000;
    const counter = new MemoryCounter(() => now);
    await counter.hit('a', 1000);
    await counter.hit('a', 1000);
    expect(await counter.unhit('a', 1000)).toEqual({ count: 1, resetMs: 1000 });
    now += 1000;
    expect(await counter.unhit('a', 1000)).toEqual({ count: 0, resetMs: 1000 });
    expect(await counter.hit('a', 1000)).toEqual({ count: 1, resetMs: 1000 });
  });

  it("counts a pair's second bucket only while the first is within its limit", async () => {
    const counter = new MemoryCounter(() => 10_000);
    for (let i = 1; i <= 3; i++) expect((await counter.hitPair('key', 'org', 1000, 3)).map((w) => w.count)).toEqual([i, i]);
    // Past the key's limit: the key's own count grows, the organization's is only looked at.
    expect((await counter.hitPair('key', 'org', 1000, 3)).map((w) => w.count)).toEqual([4, 3]);
    expect((await counter.hitPair('other', 'org', 1000, 3)).map((w) => w.count)).toEqual([1, 4]);
  });

  it('past 50,000 buckets sweeps at most once a second, and a sweep drops every window that ended', () => {
    let now = 1_000_000;
    const counter = new MemoryCounter(() => now);
    for (let i = 0; i < 50_000; i++) counter.window(`ip:${i}`, 1000, 1);
    expect(counter.sweeps).toBe(0);
    // A new window past the bound sweeps once; the thousands of new clients after it in the same second do not.
    now += 1000;
    for (let i = 0; i < 5_000; i++) counter.window(`late:${i}`, 1000, 1);
    expect(counter.sweeps).toBe(1);
    // The first sweep dropped the 50,000 one-second windows that had ended (not only those a minute old).
    expect(counter.size).toBe(5_000);
    now += 500;
    for (let i = 0; i < 50_000; i++) counter.window(`more:${i}`, 1000, 1);
    expect(counter.sweeps).toBe(1);
    now += 600;
    counter.window('next', 1000, 1);
    expect(counter.sweeps).toBe(2);
    // What the second sweep kept: the window just opened.
    expect(counter.size).toBe(1);
  });

  it('keeps a longer window through sweeps until it ends', () => {
    let now = 0;
    const counter = new MemoryCounter(() => now);
    counter.window('authfail:x', 60_000, 1);
    for (let i = 0; i < 50_001; i++) counter.window(`ip:${i}`, 1000, 1);
    now += 2000;
    counter.window('trigger', 1000, 1);
    expect(counter.sweeps).toBeGreaterThan(0);
    expect(counter.window('authfail:x', 60_000, 0).count).toBe(1);
  });
});
