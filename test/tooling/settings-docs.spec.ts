import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const docs = require('../../scripts/settings-docs.cjs') as {
  settings: (root: string) => Array<{ name: string; owner: string; readme?: { label?: string } }>;
  render: (root: string) => Record<string, string>;
  stale: (root: string) => string[];
};

describe('npm run docs:settings (.env.example and the README settings table, from the settings docs)', () => {
  it('has written both files from the current docs (run npm run docs:settings after changing a setting)', () => {
    expect(docs.stale(ROOT)).toEqual([]);
  });

  it("lists each module's settings from its manifest, and the kernel's", () => {
    const byName = new Map(docs.settings(ROOT).map((s) => [s.name, s.owner]));
    expect(byName.get('INVOICE_EXPIRY_MINUTES')).toBe('invoices');
    expect(byName.get('WEBHOOK_TIMEOUT_MS')).toBe('webhooks');
    expect(byName.get('PORT')).toBe('the kernel');
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const s of docs.settings(ROOT)) {
      expect(example).toMatch(new RegExp(`^${s.name}=`, 'm'));
      if (s.readme) expect(readme).toContain(`| ${s.readme.label ?? `\`${s.name}\``} |`);
    }
  });

  it("fails the check when a manifest's setting changes, until the script runs again", () => {
    const tree = mkdtempSync(join(tmpdir(), 'ipa-settings-'));
    try {
      for (const path of ['src/modules', 'src/shared/config/settings-docs.ts', 'README.md', '.env.example'])
        cpSync(join(ROOT, path), join(tree, path), { recursive: true });
      const manifest = join(tree, 'src', 'modules', 'invoices', 'manifest.ts');
      writeFileSync(manifest, readFileSync(manifest, 'utf8').replace("default: '15'", "default: '60'"));
      expect(docs.stale(tree).sort()).toEqual(['.env.example']);
      for (const [file, text] of Object.entries(docs.render(tree))) writeFileSync(join(tree, file), text);
      expect(docs.stale(tree)).toEqual([]);
      expect(readFileSync(join(tree, '.env.example'), 'utf8')).toMatch(/^INVOICE_EXPIRY_MINUTES=60$/m);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });
});
