// The Jest test environment: Node's, plus a quick end for a worker process that has finished on its own.
import { TestEnvironment } from 'jest-environment-node';

// When a worker's event loop has drained (no socket, timer or child left: only then does 'exit' fire, so a leaked
// handle still keeps the worker alive and is still reported), Node goes on to free the whole V8 heap before the
// process ends: a few hundred MB after a suite, which takes 0.2-0.6 s on a busy 2-core machine, past the 500 ms Jest
// grants before it reports "A worker process has failed to exit gracefully". process.exit() from the 'exit' event
// ends the process at once, without that teardown. This module runs in the worker itself (outside the test sandbox,
// whose `process` is a copy), once per worker.
const marker = Symbol.for('parley.test.quickExit');
const host = process as NodeJS.Process & { [marker]?: true };
if (process.env.JEST_WORKER_ID && !host[marker]) {
  host[marker] = true;
  process.once('exit', (code) => process.exit(code));
}

export default TestEnvironment;
