// Unit tests sit next to pure domain code (src/.../*.spec.ts), tests of the repository's own tooling in test/tooling/; e2e tests drive the built service over HTTP.
module.exports = {
  testEnvironment: 'node',
  rootDir: '.',
  testRegex: ['src/.*\\.spec\\.ts$', 'test/tooling/.*\\.spec\\.ts$', 'test/e2e/.*\\.e2e-spec\\.ts$'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
};
