// Parley as a separate OS process, for the suites that need one (npm start, SIGTERM drains, kill -9, resident memory,
// database outages, a browser against a real server). One spawner: readiness wait on GetPing, its own process group,
// the output kept for failure messages, stop (SIGTERM) and kill (SIGKILL), pid and memory.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
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

export interface Build {
  entry: string;
  remove(): void;
}

/**
 * Compiles src/ with tsconfig.build.json into a private dist/robustness-* directory (about 5 s), so a suite never runs
 * a half-written dist/ from a concurrent `npm start` or build. The default entry (dist/src/main.js) is built once by
 * Jest's global setup.
 */
export function buildServer(): Build {
  const root = projectRoot();
  mkdirSync(join(root, 'dist'), { recursive: true });
  const outDir = mkdtempSync(join(root, 'dist', 'robustness-'));
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: root, stdio: 'pipe' });
  return { entry: join(outDir, 'src', 'main.js'), remove: () => rmSync(outDir, { recursive: true, force: true }) };
}

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export interface ServerProcess {
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** The last 100 kB of its stdout and stderr. */
  output(): string;
  exited: Promise<Exit>;
  /** SIGTERM (a graceful shutdown) and wait for the exit: the code, or the signal for a process (npm) that dies of it. */
  stop(): Promise<Exit>;
  /** SIGKILL to the process and everything it started: no chance to flush or clean up. */
  kill(): Promise<void>;
  /** Resident set size and its peak (VmHWM), in bytes. */
  memory(): { rss: number; peak: number };
}

export interface SpawnOptions {
  /** `npm start` (with everything it does) instead of `node <entry>`. */
  viaNpmStart?: boolean;
  /** The compiled entry point; dist/src/main.js by default (see buildServer). */
  entry?: string;
  nodeArgs?: string[];
  port?: number;
  /** How long GetPing may take to answer 200 (default 120 s: `npm start` on a busy machine is slow). */
  timeoutMs?: number;
}

const OUTPUT_KEPT = 100_000;

/**
 * Starts the server as a separate OS process with the given environment (on top of NODE_ENV=production,
 * LOG_LEVEL=warn and its own port) and waits until GetPing answers 200. A start that fails says why, with its output.
 * The caller stops or kills it: a process left running keeps the Jest worker alive (and is reported).
 */
export async function spawnServer(env: Record<string, string>, opts: SpawnOptions = {}): Promise<ServerProcess> {
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  // dist/ is built once by Jest's global setup; `--ignore-scripts` skips npm's prestart rebuild so a running suite
  // never sees dist/ rewritten under it. It is still `npm start`, with everything else it does.
  const [cmd, args] = opts.viaNpmStart
    ? ['npm', ['start', '--silent', '--ignore-scripts']]
    : [process.execPath, [...(opts.nodeArgs ?? []), opts.entry ?? join(process.env.PARLEY_DIST || 'dist', 'src', 'main.js')]];
  const child = spawn(cmd, args as string[], {
    cwd: projectRoot(),
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', MM_SERVICESETTINGS_LISTENADDRESS: `127.0.0.1:${port}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so kill() reaches whatever npm started too, even if a signal was not relayed.
    detached: true,
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const killGroup = () => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
  };
  let output = '';
  const keep = (d: Buffer) => (output = (output + d).slice(-OUTPUT_KEPT));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + (opts.timeoutMs ?? 120000);
  for (;;) {
    if (gone()) throw new Error(`server exited early (${child.exitCode ?? child.signalCode}):\n${output}`);
    try {
      const res = await fetch(`${url}/api/v4/system/ping`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      killGroup();
      await exited;
      throw new Error(`server did not become ready:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    pid: child.pid as number,
    child,
    output: () => output,
    exited,
    stop: async () => {
      if (!gone()) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      killGroup();
      await exited;
    },
    memory: () => memoryOf(child.pid as number),
  };
}

/** Resident set size of a process (kB → bytes), and its peak (VmHWM), from /proc. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}
