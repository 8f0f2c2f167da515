// Unit tests (npm run test:unit): the pure code's specs beside it under src/, with no build, no database and
// no service; the full run (jest.config.js) takes them again with everything else.
const base = require('./jest.config');

module.exports = {
  testEnvironment: base.testEnvironment,
  rootDir: base.rootDir,
  transform: base.transform,
  testRegex: ['src/.*\\.spec\\.ts$'],
  maxWorkers: 2,
};
