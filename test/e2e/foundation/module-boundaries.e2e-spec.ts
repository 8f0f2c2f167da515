import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'module-boundaries');

/** Runs the module-boundary rules (as `npm run depcheck` and CI do) over `src` of `cwd`. */
function depcruise(cwd: string): { code: number | null; output: string } {
  const res = spawnSync(DEPCRUISE, ['--config', CONFIG, 'src'], { cwd, encoding: 'utf8', timeout: 120_000 });
  return { code: res.status, output: `${res.stdout}${res.stderr}` };
}

describe('module boundaries (.dependency-cruiser.cjs)', () => {
  it("the service's own source keeps every rule", () => {
    const { code, output } = depcruise(ROOT);
    expect(output).toContain('no dependency violations found');
    expect(code).toBe(0);
  });

  it('fails on a tree that breaks each rule once, and names every violation', () => {
    const { code, output } = depcruise(FIXTURE);
    expect(code).not.toBe(0);
    const expected: Array<[string, string, string]> = [
      ['public-file-only', 'src/modules/quotes/queries/price.ts', 'src/modules/rates/domain/table.ts'],
      ['root-through-public-file', 'src/main.ts', 'src/modules/rates/domain/table.ts'],
      ['kernel-imports-no-module', 'src/shared/kernel-uses-module.ts', 'src/modules/rates/index.ts'],
      ['unmapped-module', 'src/modules/reports/report.ts', 'src/modules/rates/index.ts'],
      ['module-map:rates', 'src/modules/rates/uses-quotes.ts', 'src/modules/quotes/index.ts'],
      ['domain-is-pure', 'src/modules/quotes/domain/pure.ts', 'src/modules/quotes/queries/price.ts'],
      ['domain-imports-no-adapter', 'src/modules/quotes/domain/uses-adapter.ts', 'src/modules/quotes/evm/chain.ts'],
    ];
    for (const [rule, from, to] of expected) expect(output).toContain(`error ${rule}: ${from} → ${to}`);
    expect(output).toMatch(/error domain-is-pure: src\/modules\/quotes\/domain\/pure\.ts → \S*node_modules\/@nestjs\/common\//);
    expect(output).toMatch(/error no-cycles-between-modules: src\/modules\/quotes\/index\.ts →/);
    expect(output).toContain('9 dependency violations (9 errors');
  });
});
