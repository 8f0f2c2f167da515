// The whole run (`npm test`, CI): unit tests beside pure domain code (src/.../*.spec.ts), tests of the repository's
// own tooling (test/tooling/), and e2e tests that drive the built service over HTTP (test/e2e/).
//
// It is split into one Jest project per module, so a team runs its own: `npm test -- invoices` (scripts/test.js
// turns a project's name into `--selectProjects`) runs src/modules/invoices/**/*.spec.ts and
// test/e2e/invoices/. Every folder of src/modules/ and of test/e2e/ with tests is a project of that name;
// `foundation` also takes the kernel's and the CLI's specs (src/ outside src/modules/), `tooling` is
// test/tooling/. Together they hold exactly the files the single project held before; no argument runs them all.
const { readdirSync, existsSync } = require('node:fs');
const { join } = require('node:path');

const UNIT = /\.spec\.ts$/;
const E2E = /\.e2e-spec\.ts$/;

/** True when `dir` (relative to this file) holds a file whose name matches `pattern`, at any depth. */
function holds(dir, pattern) {
  const full = join(__dirname, dir);
  if (!existsSync(full)) return false;
  return readdirSync(full, { recursive: true }).some((name) => pattern.test(String(name)));
}

const folders = (dir) =>
  existsSync(join(__dirname, dir))
    ? readdirSync(join(__dirname, dir), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
    : [];

const literal = (text) => text.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');

// Test files are compiled as the build compiles src/ (scripts/build.js): SWC, file by file, with the same options,
// so a unit spec runs the code as the service does. Types are tsc's job (`npm run typecheck`, tsconfig.json takes
// test/ too), as with ts-jest's diagnostics off before. A fresh clone compiles every file once per worker: SWC does
// it in a fraction of TypeScript's time (unit specs with no cache: 31 s -> 19 s wall, all passing).
const { SWC_OPTIONS } = require('./scripts/build');

/** What every project shares (the global set-up is one per run: Jest runs a path once however many projects name it). */
const shared = {
  testEnvironment: 'node',
  rootDir: __dirname,
  // inline source maps: a failure's stack points at the TypeScript line
  transform: { '^.+\\.ts$': ['@swc/jest', { ...SWC_OPTIONS, sourceMaps: 'inline' }] },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

/** A project's test paths, by name: its module's unit specs and its e2e folder. */
const paths = new Map();
const add = (name, regex) => paths.set(name, [...(paths.get(name) ?? []), regex]);
for (const m of folders('src/modules')) if (holds(`src/modules/${m}`, UNIT)) add(m, `src/modules/${literal(m)}/.*\\.spec\\.ts$`);
for (const m of folders('test/e2e')) if (holds(`test/e2e/${m}`, E2E)) add(m, `test/e2e/${literal(m)}/.*\\.e2e-spec\\.ts$`);
add('foundation', 'src/(?!modules/).*\\.spec\\.ts$');
add('tooling', 'test/tooling/.*\\.spec\\.ts$');

module.exports = {
  ...shared,
  testTimeout: 60000,
  // Three workers on the 2-core machine: with two, about a fifth of the CPU sat idle while tests waited on real
  // processes (a node's block, a rate period, a service's start or stop); a third worker fills that. Whole run,
  // one idle machine, the same order: 761 s wall with two workers (82% busy), 700 s with three (95%), all passing.
  maxWorkers: 3,
  // Longest files first, from Jest's cache or else from test/support/test-durations.json (a fresh clone).
  testSequencer: '<rootDir>/test/support/sequencer.cjs',
  projects: [...paths].map(([name, testRegex]) => ({ ...shared, displayName: name, testRegex })),
};
