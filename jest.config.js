/** @type {import('jest').Config} */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testTimeout: 60000,
  // Each worker gets its own database; two workers keep a 2-core machine busy without thrashing.
  maxWorkers: 2,
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true, diagnostics: false }] },
  setupFiles: ['<rootDir>/test/support/env.ts'],
};
