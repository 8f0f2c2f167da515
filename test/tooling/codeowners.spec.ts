import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { readManifests } = require('../../scripts/module-manifests.cjs') as { readManifests: (root: string) => Record<string, { owner: string }> };

const ROOT = resolve(__dirname, '..', '..');

/** The CODEOWNERS patterns and their owners, in file order (the last match wins). */
function codeowners(): Array<{ pattern: string; owner: string }> {
  return readFileSync(join(ROOT, '.github', 'CODEOWNERS'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [pattern, owner] = line.split(/\s+/);
      return { pattern, owner };
    });
}

describe('.github/CODEOWNERS', () => {
  const lines = codeowners();
  const ownerOf = (folder: string) => lines.filter((l) => l.pattern === folder).at(-1)?.owner;

  it('names an owning team for every module folder and for its migrations folder, the same team for both', () => {
    const modules = readdirSync(join(ROOT, 'src', 'modules'));
    const missing: string[] = [];
    for (const m of modules) {
      const code = ownerOf(`/src/modules/${m}/`);
      if (!code) missing.push(`/src/modules/${m}/`);
      const migrations = readdirSync(join(ROOT, 'migrations')).includes(m);
      if (migrations && ownerOf(`/migrations/${m}/`) !== code) missing.push(`/migrations/${m}/ (as ${code})`);
    }
    expect(missing).toEqual([]);
    expect(ownerOf('/migrations/shared/')).toBe(ownerOf('/src/shared/'));
  });

  it('gives each module folder and its migrations the team its manifest names (src/modules/<m>/manifest.ts, owner)', () => {
    const wrong: string[] = [];
    for (const [m, manifest] of Object.entries(readManifests(ROOT))) {
      if (ownerOf(`/src/modules/${m}/`) !== manifest.owner) wrong.push(`/src/modules/${m}/ should be ${manifest.owner} (its manifest's owner)`);
      const migrations = readdirSync(join(ROOT, 'migrations')).includes(m);
      if (migrations && ownerOf(`/migrations/${m}/`) !== manifest.owner) wrong.push(`/migrations/${m}/ should be ${manifest.owner} (its manifest's owner)`);
    }
    expect(wrong).toEqual([]);
  });
});
