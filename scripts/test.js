#!/usr/bin/env node
/**
 * `npm test`: build (the e2e tests run dist/), then Jest (jest.config.js) with the type check beside it. Arguments go to Jest,
 * except that a project's name (a module: `invoices`, `webhooks`; or `foundation`, `timing`, `tooling`, ...)
 * selects that project: `npm test -- invoices refunds` runs `jest --selectProjects invoices refunds`,
 * the modules' unit specs and e2e files. Any other argument (a path, `-t name`, `--runInBand`) is Jest's
 * as before (names count before the first option), and no argument runs everything.
 */
const { spawn, spawnSync } = require('node:child_process');
const { projects } = require('../jest.config');

const names = new Set(projects.map((p) => p.displayName));

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

// Projects are the names before the first option, so `-t invoices` stays a test name.
const given = process.argv.slice(2);
const firstOption = given.findIndex((a) => a.startsWith('-'));
const leading = firstOption < 0 ? given : given.slice(0, firstOption);
const selected = leading.filter((a) => names.has(a));
const rest = given.filter((a, i) => !(i < leading.length && names.has(a)));

// The build first (Jest's e2e files run dist/), then the type check beside Jest rather than before it: the run is
// bound by the two cores, so tsc's 20 s of CPU costs about half that in wall time there. A type error still fails
// `npm test`: Jest is stopped and tsc's report printed.
run('npm', ['run', '--silent', 'build']);
const typecheck = spawn('npm', ['run', '--silent', 'typecheck'], { stdio: ['ignore', 'pipe', 'pipe'] });
let report = '';
typecheck.stdout.on('data', (d) => (report += d));
typecheck.stderr.on('data', (d) => (report += d));
const tests = spawn(process.execPath, [require.resolve('jest/bin/jest'), ...(selected.length ? ['--selectProjects', ...selected] : []), ...rest], {
  stdio: 'inherit',
});
const ended = (child) => new Promise((resolve) => child.once('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
const typesChecked = ended(typecheck).then((code) => {
  if (code !== 0) {
    process.stderr.write(`\nnpm run typecheck failed (exit ${code}); stopping the tests:\n${report}`);
    tests.kill('SIGTERM');
  }
  return code;
});
Promise.all([typesChecked, ended(tests)]).then(([types, jestCode]) => process.exit(types !== 0 ? types : jestCode));
