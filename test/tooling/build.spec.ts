import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

interface BuildStats {
  compiled: number;
  copied: number;
  removed: number;
}
// The build is plain JavaScript run by node before anything is compiled.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { build } = require('../../scripts/build.js') as {
  build: (options?: { root?: string; outDir?: string; dirs?: string[] }) => Promise<BuildStats>;
};

const ROOT = resolve(__dirname, '..', '..');

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe('build (scripts/build.js)', () => {
  // The project itself, built into a folder of its own under dist/ (so node_modules resolves from it).
  let out: string;
  beforeAll(async () => {
    mkdirSync(join(ROOT, 'dist'), { recursive: true });
    out = mkdtempSync(join(ROOT, 'dist', '.build-check-'));
    await build({ root: ROOT, outDir: out });
  }, 60_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('lays dist/ out as the service, the CLI and the migration runner expect it, without unit tests', () => {
    expect(existsSync(join(out, 'src', 'main.js'))).toBe(true);
    expect(existsSync(join(out, 'src', 'cli', 'main.js'))).toBe(true);
    // Migrations sit in their owners' folders (migrations/<module>/): each one built at the same path.
    const sources = readdirSync(join(ROOT, 'migrations'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.replace(/\.ts$/, '.js'))
      .sort();
    const built = readdirSync(join(out, 'migrations'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.js'))
      .sort();
    expect(sources.length).toBeGreaterThan(30);
    expect(built).toEqual(sources);
    const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [e.name]));
    expect(walk(join(out, 'src')).filter((f) => f.includes('.spec.'))).toEqual([]);
  });

  it('emits the design-type metadata that injection, validation and the OpenAPI document read', () => {
    // Nest's packages are ES modules: load the built classes in node itself, as the service does.
    const probe = `
      require('reflect-metadata');
      const { PayableInvoices } = require('./src/modules/invoices/payable-invoices.service.js');
      const { InvoicesRepository } = require('./src/modules/invoices/persistence/invoices.repository.js');
      const { AppConfig } = require('./src/shared/config/app-config.js');
      const { InvoicesConfig } = require('./src/modules/invoices/invoices.config.js');
      const { FileRecord } = require('./src/modules/files/persistence/file.record.js');
      const params = Reflect.getMetadata('design:paramtypes', PayableInvoices);
      console.log(JSON.stringify({
        params: params.slice(0, 2).map((c) => c === InvoicesRepository ? 'InvoicesRepository' : c === InvoicesConfig ? 'InvoicesConfig' : String(c)),
        createdAt: Reflect.getMetadata('design:type', FileRecord.prototype, 'createdAt') === Date,
        fields: Object.keys(new AppConfig()),
      }));`;
    const result = JSON.parse(execFileSync(process.execPath, ['-e', probe], { cwd: out, encoding: 'utf8' })) as {
      params: string[];
      createdAt: boolean;
      fields: string[];
    };
    expect(result.params).toEqual(['InvoicesRepository', 'InvoicesConfig']);
    expect(result.createdAt).toBe(true);
    // A declared field exists on new instances (define semantics, as tsc emits for ES2022).
    expect(result.fields).toEqual(expect.arrayContaining(['PORT', 'DATABASE_URL']));
  });

  it('keeps import() a real dynamic import (ESM-only packages load through it)', () => {
    const code = readFileSync(join(out, 'src/shared/db/embedded-postgres.js'), 'utf8');
    expect(code).toMatch(/await import\(name\)/);
    expect(code).not.toMatch(/require\(name\)/);
  });
});

describe('build of assets', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'ipa-build-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('copies every file that is not TypeScript to the same path under dist/, byte for byte', async () => {
    const assets: Record<string, string> = {
      'src/modules/checkout/assets/checkout.js': 'document.querySelector("#pay").hidden = false;\n',
      'src/modules/checkout/assets/checkout.css': 'body { margin: 0 }\n',
      'src/modules/checkout/locales/de.json': '{ "pay": "Bezahlen" }\n',
      'src/modules/chains/contracts/Token.sol': '// SPDX-License-Identifier: MIT\npragma solidity ^0.8.24;\n',
      'src/modules/providers/assets/usdt.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>\n',
    };
    for (const [path, text] of Object.entries(assets)) write(root, path, text);
    write(root, 'src/page.ts', 'export const page: string = "x";\n');
    write(root, 'src/page.spec.ts', 'it("x", () => undefined);\n');

    const stats = await build({ root, outDir: join(root, 'dist') });

    for (const [path, text] of Object.entries(assets)) expect(readFileSync(join(root, 'dist', path), 'utf8')).toBe(text);
    expect(readFileSync(join(root, 'dist/src/page.js'), 'utf8')).toContain('const page = "x"');
    expect(existsSync(join(root, 'dist/src/page.spec.js'))).toBe(false);
    expect(stats).toEqual({ compiled: 1, copied: Object.keys(assets).length, removed: 0 });
  });

  it('removes what an earlier build left for sources that are gone (a deleted migration does not run again)', async () => {
    write(root, 'migrations/1-kept.ts', 'export class Kept1 {}\n');
    write(root, 'migrations/2-dropped.ts', 'export class Dropped2 {}\n');
    write(root, 'src/modules/checkout/locales/fr.json', '{}\n');
    await build({ root, outDir: join(root, 'dist') });
    expect(existsSync(join(root, 'dist/migrations/2-dropped.js'))).toBe(true);

    rmSync(join(root, 'migrations/2-dropped.ts'));
    rmSync(join(root, 'src/modules/checkout/locales/fr.json'));
    const stats = await build({ root, outDir: join(root, 'dist') });

    expect(readdirSync(join(root, 'dist/migrations')).sort()).toEqual(['1-kept.js', '1-kept.js.map']);
    expect(existsSync(join(root, 'dist/src/modules/checkout/locales/fr.json'))).toBe(false);
    expect(stats.removed).toBe(3);
  });

  it('refuses two sources that would build to one file', async () => {
    write(root, 'src/page.ts', 'export const a = 1;\n');
    write(root, 'src/page.js', 'exports.a = 2;\n');
    await expect(build({ root, outDir: join(root, 'dist') })).rejects.toThrow(/two sources build to src\/page\.js/);
  });
});
