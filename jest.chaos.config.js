// Crash-safety runs (npm run test:chaos): the service is killed mid-burst and restarted on its data.
// The full run's settings, as one project of its own (not the per-module projects).
const { projects: _projects, ...base } = require('./jest.config');

module.exports = { ...base, testRegex: ['test/chaos/.*\\.chaos-spec\\.ts$'], testTimeout: 300000, maxWorkers: 1 };
