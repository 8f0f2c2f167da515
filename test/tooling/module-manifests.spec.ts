import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { readManifests, moduleMap } = require('../../scripts/module-manifests.cjs') as {
  readManifests: (root: string) => Record<string, { name: string; uses: string[]; owner: string; docs?: string; idKinds?: string[] }>;
  moduleMap: (root: string) => Record<string, string[]>;
};

const folders = readdirSync(join(ROOT, 'src', 'modules'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

describe("the modules' manifests (src/modules/<m>/manifest.ts)", () => {
  const manifests = readManifests(ROOT);

  it('exist for every module folder, each named after its folder', () => {
    expect(Object.keys(manifests).sort()).toEqual(folders);
    for (const [folder, m] of Object.entries(manifests)) expect(m.name).toBe(folder);
  });

  it('are each registered in src/module-registry.ts, once (the one line a new module adds there)', () => {
    const registry = readFileSync(join(ROOT, 'src', 'module-registry.ts'), 'utf8');
    const registered = [...registry.matchAll(/from '\.\/modules\/([^/]+)\/manifest'/g)].map((m) => m[1]).sort();
    expect(registered).toEqual(folders);
  });

  it('use only modules that have a manifest, and the map they make has no cycle', () => {
    const map = moduleMap(ROOT);
    for (const [m, uses] of Object.entries(map)) for (const used of uses) expect(`${m} uses ${used}: ${used in map}`).toBe(`${m} uses ${used}: true`);
    // Loading the boundary rules checks the map is acyclic (and throws naming the cycle).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const rules = require('../../.dependency-cruiser.cjs') as { forbidden: Array<{ name: string }> };
    expect(
      rules.forbidden
        .filter((r) => r.name.startsWith('module-map:'))
        .map((r) => r.name.slice('module-map:'.length))
        .sort(),
    ).toEqual(folders);
  });

  it('name a docs page that exists, and a team', () => {
    for (const m of Object.values(manifests)) {
      expect(m.owner).toMatch(/^@[a-z0-9-]+$/);
      expect(`${m.name}: ${m.docs}: ${!!m.docs && existsSync(join(ROOT, m.docs))}`).toBe(`${m.name}: ${m.docs}: true`);
    }
  });

  it('declare each id kind once, none of them the kernel’s own', () => {
    const owners = new Map<string, string>();
    for (const m of Object.values(manifests)) {
      for (const kind of m.idKinds ?? []) {
        expect(`${kind}: ${owners.get(kind) ?? 'none'}`).toBe(`${kind}: none`);
        owners.set(kind, m.name);
      }
    }
    expect(owners.has('event')).toBe(false);
    expect(owners.get('invoice')).toBe('invoices');
  });

  it('put payouts between rails and refunds: refunds uses payouts, payouts uses rails and never refunds (module-map rules)', () => {
    const map = moduleMap(ROOT);
    expect(map.refunds).toContain('payouts');
    expect(map.refunds).not.toContain('rails');
    expect(map.payouts).toContain('rails');
    expect(map.payouts).not.toContain('refunds');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const rules = require('../../.dependency-cruiser.cjs') as { forbidden: Array<{ name: string; to: { pathNot?: string[] } }> };
    const payoutsRule = rules.forbidden.find((r) => r.name === 'module-map:payouts')!;
    expect(payoutsRule.to.pathNot).not.toContain('^src/modules/refunds/');
  });
});
