// The order Jest hands test files to its workers: the longest first, so no worker is left alone with a long
// file at the end of the run. Jest already does this from its own cache of the last run's times, but that cache
// lives outside the repository (and keyed by the checkout's path), so a fresh clone, CI's included, used to
// start in file-size order: the long service and chain files were spread over the run and one of them often
// ended it on one worker. When Jest's cache has no time for a file, the time recorded in test-durations.json
// (written by `node scripts/test-durations.js <jest --json output>`) stands in; a file in neither runs first,
// as Jest does with files it has never timed. Failed-last-time files still run first.
const { readFileSync, existsSync } = require('node:fs');
const { join, relative, sep } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const DURATIONS = join(__dirname, 'test-durations.json');
const recorded = existsSync(DURATIONS) ? JSON.parse(readFileSync(DURATIONS, 'utf8')) : {};

class LongestFirst extends Sequencer {
  time(test) {
    const cached = super.time(test);
    if (cached != null) return cached;
    const key = relative(test.context.config.rootDir, test.path).split(sep).join('/');
    return recorded[key];
  }
}

module.exports = LongestFirst;
