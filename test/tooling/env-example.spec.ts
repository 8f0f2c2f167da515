import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { loadConfig } from '../../src/shared/config/app-config';
import { loadFilesConfig } from '../../src/modules/files/files.config';

/**
 * .env.example (at the repository root) must list every environment variable the service reads,
 * set to its default, each with a comment line above it. "Reads" is found in the source itself:
 * - every UPPER_CASE property of an exported `...Config` class (the classes that validate settings
 *   at start-up: AppConfig, FilesConfig, and any a module adds);
 * - every `process.env.NAME`, `process.env['NAME']`, `env.NAME` or `env['NAME']`;
 * - every `process.env[CONSTANT]` whose constant is a string literal in the same file (any other
 *   computed read fails: name the variable so it can be checked).
 */
const ROOT = resolve(__dirname, '..', '..');
const EXAMPLE = join(ROOT, '.env.example');

/** Variables the code reads that are not settings of the service. */
const NOT_SETTINGS: Record<string, string> = {
  NODE_OPTIONS: "Node's own options: read only to leave the operator's heap flags alone",
  IPA_WORKER_DATABASE_URL: 'set by the service itself for its cluster workers',
  PATH: "the system's search path, passed on to the embedded PostgreSQL server (which gets no other variable of ours)",
};

interface Read {
  name: string;
  where: string;
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/** The environment variables one source file reads, and computed reads it could not name. */
export function scanSource(text: string, file: string): { reads: Read[]; unnamed: string[] } {
  const reads: Read[] = [];
  const unnamed: string[] = [];
  const at = (i: number) => `${file}:${lineOf(text, i)}`;
  const literal = /\b(?:process\.)?env(?:\??\.([A-Z][A-Z0-9_]*)\b|\[\s*(['"`])([A-Z][A-Z0-9_]*)\2\s*\])/g;
  for (const m of text.matchAll(literal)) reads.push({ name: m[1] ?? m[3], where: at(m.index) });
  const computed = /\bprocess\.env\[\s*([^\]'"`]+?)\s*\]/g;
  for (const m of text.matchAll(computed)) {
    const constant = new RegExp(`\\bconst\\s+${m[1].replace(/[^\w$]/g, '')}\\s*=\\s*(['"\`])([A-Z][A-Z0-9_]*)\\1`).exec(text);
    if (/^[\w$]+$/.test(m[1]) && constant) reads.push({ name: constant[2], where: at(m.index) });
    else unnamed.push(`${at(m.index)}: process.env[${m[1]}]`);
  }
  const configClass = /^export class (\w+Config)\b[^{]*\{\n([\s\S]*?)^\}/gm;
  for (const m of text.matchAll(configClass)) {
    const bodyStart = m.index + m[0].indexOf('{\n') + 2;
    for (const p of m[2].matchAll(/^ {2}(?:@.*?\)\s+)?(?:readonly\s+)?([A-Z][A-Z0-9_]*)[?!]?\s*[:=]/gm)) {
      reads.push({ name: p[1], where: `${at(bodyStart + p.index + p[0].lastIndexOf(p[1]))} (${m[1]})` });
    }
  }
  return { reads, unnamed };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

function serviceReads(): { reads: Map<string, string[]>; unnamed: string[] } {
  const reads = new Map<string, string[]>();
  const unnamed: string[] = [];
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    const found = scanSource(readFileSync(file, 'utf8'), relative(ROOT, file));
    unnamed.push(...found.unnamed);
    for (const r of found.reads) {
      if (r.name in NOT_SETTINGS) continue;
      reads.set(r.name, [...(reads.get(r.name) ?? []), r.where]);
    }
  }
  return { reads, unnamed };
}

interface ExampleVariable {
  name: string;
  value: string;
  line: number;
  comment: string | null;
}

/** NAME=value lines (a value may be quoted), each with the comment line right above it. */
function parseExample(text: string): ExampleVariable[] {
  const lines = text.split('\n');
  const out: ExampleVariable[] = [];
  lines.forEach((line, i) => {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!m) return;
    const raw = m[2].trim();
    const value = /^(["'])(.*)\1$/.exec(raw)?.[2] ?? raw;
    const above = i > 0 ? /^#\s*(.+)$/.exec(lines[i - 1]) : null;
    out.push({ name: m[1], value, line: i + 1, comment: above ? above[1] : null });
  });
  return out;
}

function exampleEnv(): Record<string, string> {
  return Object.fromEntries(parseExample(readFileSync(EXAMPLE, 'utf8')).map((v) => [v.name, v.value]));
}

describe('.env.example', () => {
  const example = parseExample(readFileSync(EXAMPLE, 'utf8'));
  const listed = new Set(example.map((v) => v.name));

  it('lists every environment variable the service reads', () => {
    const { reads, unnamed } = serviceReads();
    const missing = [...reads]
      .filter(([name]) => !listed.has(name))
      .map(
        ([name, where]) =>
          `${name} is read by ${where.join(', ')} but missing from .env.example (repository root): add "${name}=<its default>" with a one-line comment above it`,
      );
    const computed = unnamed.map((u) => `${u}: read a named variable (or a string constant) so .env.example can be checked against it`);
    if (missing.length || computed.length) throw new Error([...missing, ...computed].join('\n'));
    expect(reads.size).toBeGreaterThan(40);
  });

  it('lists only variables the service reads', () => {
    const { reads } = serviceReads();
    const stale = example
      .filter((v) => !reads.has(v.name))
      .map((v) => `.env.example:${v.line}: ${v.name} is not read by anything under src/: remove it, or read it`);
    if (stale.length) throw new Error(stale.join('\n'));
  });

  it('gives each variable one line, with a comment line above it', () => {
    const problems = [
      ...example.filter((v) => !v.comment).map((v) => `.env.example:${v.line}: ${v.name} needs a one-line comment above it`),
      ...example.filter((v, i) => example.findIndex((w) => w.name === v.name) !== i).map((v) => `.env.example:${v.line}: ${v.name} is listed twice`),
    ];
    if (problems.length) throw new Error(problems.join('\n'));
  });

  it('sets each variable to its default: the example loads to the same settings as an empty environment', () => {
    const env = exampleEnv();
    expect(loadConfig(env)).toEqual(loadConfig({}));
    expect(loadFilesConfig(env)).toEqual(loadFilesConfig({}));
    // Spot checks that the comparison sees values at all.
    expect(env.PORT).toBe('3000');
    expect(env.TRUST_PROXY).toBe(loadConfig({}).TRUST_PROXY);
  });

  it('reads the same under node --env-file as this test reads it', () => {
    const names = example.map((v) => v.name);
    const printed = execFileSync(
      process.execPath,
      [
        `--env-file=${EXAMPLE}`,
        '-e',
        `
      const names = ${JSON.stringify(names)};
      console.log(JSON.stringify(Object.fromEntries(names.map((n) => [n, process.env[n] ?? null]))));`,
      ],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH },
      },
    );
    expect(JSON.parse(printed)).toEqual(exampleEnv());
  });
});

describe('the scan of the source for environment reads', () => {
  const sample = [
    "const WORKER = 'IPA_SAMPLE_WORKER';",
    'export class ChainsConfig {',
    '  /** File of chains. */',
    "  @IsString() CHAINS_FILE = './chains.json';",
    '  @IsOptional() @IsString()',
    '  METRICS_TOKEN?: string;',
    '  get helper(): boolean { return true; }',
    '}',
    'const a = process.env.DOCS_ENABLED;',
    "const b = process.env['CHECKOUT_FRAME_ANCESTORS'];",
    'function f(env = process.env) { return env.SECRETS_KEY ?? env["OTHER_KEY"]; }',
    'const c = process.env[WORKER];',
    'const d = process.env[name];',
  ].join('\n');

  it('finds config class properties, literal reads and constant-named reads, and flags the rest', () => {
    const { reads, unnamed } = scanSource(sample, 'sample.ts');
    expect(reads.map((r) => r.name).sort()).toEqual([
      'CHAINS_FILE',
      'CHECKOUT_FRAME_ANCESTORS',
      'DOCS_ENABLED',
      'IPA_SAMPLE_WORKER',
      'METRICS_TOKEN',
      'OTHER_KEY',
      'SECRETS_KEY',
    ]);
    expect(reads.find((r) => r.name === 'METRICS_TOKEN')!.where).toBe('sample.ts:6 (ChainsConfig)');
    expect(unnamed).toEqual(['sample.ts:13: process.env[name]']);
  });
});
