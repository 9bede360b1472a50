/**
 * The slow robustness suites (test/robustness-slow/): too slow for every `npm test`, run by scripts/ci-extra.sh.
 * `npx jest -c jest.slow.config.js`
 */
const base = require('./jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  roots: ['<rootDir>/test/robustness-slow'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 180000,
};
