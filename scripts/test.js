#!/usr/bin/env node
/**
 * `npm test`: type check, build (the e2e tests run dist/), then Jest (jest.config.js). Arguments go to Jest,
 * except that a project's name (a module: `invoices`, `webhooks`; or `foundation`, `timing`, `tooling`, ...)
 * selects that project: `npm test -- invoices refunds` runs `jest --selectProjects invoices refunds`,
 * the modules' unit specs and e2e files. Any other argument (a path, `-t name`, `--runInBand`) is Jest's
 * as before (names count before the first option), and no argument runs everything.
 */
const { spawnSync } = require('node:child_process');
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

run('npm', ['run', '--silent', 'typecheck']);
run('npm', ['run', '--silent', 'build']);
run(process.execPath, [require.resolve('jest/bin/jest'), ...(selected.length ? ['--selectProjects', ...selected] : []), ...rest]);
