// Builds dist/ once before any suite runs, so suites that start the server as a separate process (the e2e,
// robustness and browser suites) run the code under test, and never race each other rebuilding it: the server with
// tsc, the browser client (dist/web, served at /) with esbuild.
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

module.exports = async function globalSetup() {
  const root = join(__dirname, '..', '..');
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [join(root, 'scripts', 'build-web.mjs'), '--quiet'], { cwd: root, stdio: 'inherit' });
};
