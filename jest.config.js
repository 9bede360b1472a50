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
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // openapi-backend's ref parser ships ESM only, which Jest's CommonJS runtime cannot load untransformed.
    '^.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true, isolatedModules: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(openapi-backend/node_modules/)?@apidevtools/)'],
  globalSetup: '<rootDir>/test/support/global-setup.js',
  setupFiles: ['<rootDir>/test/support/env.ts'],
};
