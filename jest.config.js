/** @type {import('jest').Config} */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: '<rootDir>/test/support/environment.ts',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Slow robustness suites (a private MariaDB server, outages) run from scripts/ci-extra.sh with jest.slow.config.js.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/robustness-slow/'],
  testTimeout: 60000,
  // Each worker gets its own database; two workers keep a 2-core machine busy without thrashing.
  maxWorkers: 2,
  // A worker whose heap passed this after a test file is replaced by a fresh one. Heaps grow from file to file (to
  // ~800 MB on the MariaDB pass), and a big one takes longer to end than the 500 ms Jest waits at the end of a run.
  workerIdleMemoryLimit: '512MB',
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // openapi-backend's ref parser and mattermost-redux's serialize-error ship ESM only, which Jest's CommonJS runtime
    // cannot load untransformed.
    '^.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true, isolatedModules: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(openapi-backend/node_modules/)?@apidevtools/|serialize-error/)'],
  globalSetup: '<rootDir>/test/support/global-setup.js',
  setupFiles: ['<rootDir>/test/support/env.ts'],
};
