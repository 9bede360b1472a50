import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { projectRoot } from '../../src/spec';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for the exit: the code, or the signal for a process (npm) that dies of it. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL to the process and everything it started: no chance to flush or clean up. */
  kill(): Promise<void>;
}

/**
 * Runs the server as a separate OS process (`npm start`, or the built entry point) and waits until GetPing answers.
 */
export async function spawnServer(env: Record<string, string>, opts: { viaNpmStart?: boolean; timeoutMs?: number } = {}): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // dist/ is built once by Jest's global setup; `--ignore-scripts` skips npm's prestart rebuild so a running suite
  // never sees dist/ rewritten under it. It is still `npm start`, with everything else it does.
  const [cmd, args] = opts.viaNpmStart ? ['npm', ['start', '--silent', '--ignore-scripts']] : [process.execPath, ['dist/src/main.js']];
  const child = spawn(cmd, args as string[], {
    cwd: projectRoot(),
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', MM_SERVICESETTINGS_LISTENADDRESS: `127.0.0.1:${port}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so kill() reaches whatever npm started too, even if a signal was not relayed.
    detached: true,
  });
  const killGroup = () => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
  };
  // If the test process dies first (a timeout, forceExit), the server must not outlive it.
  process.once('exit', killGroup);
  child.once('exit', () => process.removeListener('exit', killGroup));
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const deadline = Date.now() + (opts.timeoutMs ?? 120000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${output}`);
    try {
      const res = await fetch(`${url}/api/v4/system/ping`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      killGroup();
      throw new Error(`server did not become ready:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    child,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      killGroup();
      await exited;
    },
  };
}
