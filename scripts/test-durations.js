#!/usr/bin/env node
/**
 * Writes test/support/test-durations.json from one or more Jest runs' JSON reports: each test file's wall time
 * in milliseconds, by its path from the project root; with several reports, its shortest (a file that once
 * waited out an hour boundary or a busy machine is not put first for it). test/support/sequencer.cjs orders a
 * run by it (longest first) where Jest has no times of its own, as in a fresh clone.
 *
 *   npx jest --json --outputFile=/tmp/jest.json && node scripts/test-durations.js /tmp/jest.json [more.json ...]
 */
const { readFileSync, writeFileSync } = require('node:fs');
const { join, relative, sep } = require('node:path');

const ROOT = join(__dirname, '..');
const reports = process.argv.slice(2);
if (!reports.length) {
  process.stderr.write('usage: node scripts/test-durations.js <jest --json output> [...]\n');
  process.exit(2);
}
const shortest = new Map();
for (const report of reports) {
  for (const t of JSON.parse(readFileSync(report, 'utf8')).testResults) {
    const path = relative(ROOT, t.name).split(sep).join('/');
    const ms = Math.round(t.endTime - t.startTime);
    if (!shortest.has(path) || ms < shortest.get(path)) shortest.set(path, ms);
  }
}
const durations = Object.fromEntries([...shortest].sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(join(ROOT, 'test', 'support', 'test-durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
process.stdout.write(`${shortest.size} files\n`);
