import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
// The sequencer and the recorded times are plain files Jest loads itself.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const LongestFirst = require('../support/sequencer.cjs') as new () => {
  sort(tests: FakeTest[]): FakeTest[];
  _cache: Map<unknown, Record<string, [number, number]>>;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const recorded = require('../support/test-durations.json') as Record<string, number>;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const jestConfig = require('../../jest.config') as { testSequencer?: string };

interface FakeTest {
  path: string;
  duration?: number;
  context: { config: { rootDir: string; cacheDirectory: string; cache: boolean; id: string }; hasteFS: { getSize(path: string): number } };
}

/** A test file as Jest hands it to the sequencer, with no cache of its own (a fresh clone). */
function fileOf(relativePath: string, context: FakeTest['context']): FakeTest {
  return { path: join(ROOT, relativePath), context };
}

const freshContext = (): FakeTest['context'] => ({
  config: { rootDir: ROOT, cacheDirectory: '/nonexistent', cache: false, id: 'fresh' },
  // every file the same size, so only the recorded times can order them
  hasteFS: { getSize: () => 1000 },
});

describe('test order (test/support/sequencer.cjs)', () => {
  const byTime = Object.entries(recorded).sort((a, b) => b[1] - a[1]);

  it('is the sequencer of the whole run', () => {
    expect(jestConfig.testSequencer).toBe('<rootDir>/test/support/sequencer.cjs');
  });

  it('runs the files recorded as longest first when Jest has no times of its own', () => {
    expect(byTime.length).toBeGreaterThan(100);
    const context = freshContext();
    // files of distinct recorded times, from the longest to the shortest (ties may come in either order)
    const distinct = byTime.filter(([, ms], i) => i === 0 || ms !== byTime[i - 1][1]);
    const picked = [0, 1, 2, Math.floor(distinct.length / 2), distinct.length - 2, distinct.length - 1].map((i) => distinct[i][0]);
    const shuffled = [picked[4], picked[2], picked[5], picked[0], picked[3], picked[1]];
    const sorted = new LongestFirst().sort(shuffled.map((p) => fileOf(p, context))).map((t) => t.path);
    expect(sorted).toEqual(picked.map((p) => join(ROOT, p)));
  });

  it("runs a file with no recorded time first, and prefers Jest's own time for a file it has timed", () => {
    const context = freshContext();
    const sequencer = new LongestFirst();
    const [longest] = byTime[0];
    const [shortest] = byTime[byTime.length - 1];
    // Jest's cache of the last run says the recorded-shortest file took longest.
    sequencer._cache.set(context, { [join(ROOT, shortest)]: [1, 10 * byTime[0][1]] });
    const sorted = sequencer.sort([fileOf(longest, context), fileOf(shortest, context), fileOf('test/e2e/new-file.e2e-spec.ts', context)]).map((t) => t.path);
    expect(sorted).toEqual([join(ROOT, 'test/e2e/new-file.e2e-spec.ts'), join(ROOT, shortest), join(ROOT, longest)]);
  });

  it('records times only for test files that exist', () => {
    const missing = Object.keys(recorded).filter((p) => !existsSync(join(ROOT, p)));
    expect(missing).toEqual([]);
  });
});
