import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../src/shared/config/app-config';
import { loadFilesConfig } from '../../src/modules/files/files.config';
import { loadRatesConfig } from '../../src/modules/rates/rates.config';
import { EXAMPLE, exampleEnv, parseExample, scanSource, serviceReads } from './env-scan';

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
    expect(loadRatesConfig(env)).toEqual(loadRatesConfig({ NODE_ENV: env.NODE_ENV }));
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
