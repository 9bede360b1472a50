// Builds dist/ once before any suite runs, so suites that start the server as a separate process (the e2e,
// robustness and browser suites) run the code under test, and never race each other rebuilding it: the server with
// tsc, the browser client (dist/web, served at /) with esbuild. PARLEY_DIST names another build directory (several
// people working in one checkout each build and run their own, so one's rebuild never pulls files from under another's
// running server).
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

module.exports = async function globalSetup() {
  const root = join(__dirname, '..', '..');
  const dist = process.env.PARLEY_DIST || 'dist';
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', dist], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [join(root, 'scripts', 'build-web.mjs'), '--quiet', `--out=${join(dist, 'web')}`], { cwd: root, stdio: 'inherit' });
};
