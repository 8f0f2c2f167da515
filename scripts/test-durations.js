#!/usr/bin/env node
/**
 * Writes test/support/test-durations.json from a Jest run's JSON report: each test file's wall time in
 * milliseconds, by its path from the project root. test/support/sequencer.cjs orders a run by it (longest
 * first) where Jest has no times of its own, as in a fresh clone.
 *
 *   npx jest --json --outputFile=/tmp/jest.json && node scripts/test-durations.js /tmp/jest.json
 */
const { readFileSync, writeFileSync } = require('node:fs');
const { join, relative, sep } = require('node:path');

const ROOT = join(__dirname, '..');
const report = process.argv[2];
if (!report) {
  process.stderr.write('usage: node scripts/test-durations.js <jest --json output>\n');
  process.exit(2);
}
const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
const durations = Object.fromEntries(
  testResults.map((t) => [relative(ROOT, t.name).split(sep).join('/'), Math.round(t.endTime - t.startTime)]).sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(join(ROOT, 'test', 'support', 'test-durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
process.stdout.write(`${Object.keys(durations).length} files\n`);
