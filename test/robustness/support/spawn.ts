// Server processes for the robustness suites (kill -9, RSS, database outages). Each test file compiles the
// server into its own directory under dist/ (so it never runs a half-written dist/ from a concurrent `npm start`
// or build) and runs that build as a separate OS process.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../src/spec';
import { freePort } from '../../support/process';

export interface Build {
  entry: string;
  remove(): void;
}

/** Compiles src/ with tsconfig.build.json into a private dist/robustness-* directory (about 5 s). */
export function buildServer(): Build {
  const root = projectRoot();
  mkdirSync(join(root, 'dist'), { recursive: true });
  const outDir = mkdtempSync(join(root, 'dist', 'robustness-'));
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: root, stdio: 'pipe' });
  return { entry: join(outDir, 'src', 'main.js'), remove: () => rmSync(outDir, { recursive: true, force: true }) };
}

export interface Proc {
  url: string;
  port: number;
  child: ChildProcess;
  pid: number;
  output(): string;
  /** SIGKILL and wait for the exit: no chance to flush or clean up. */
  kill(): Promise<void>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `node <entry>` with the given environment and waits until GetPing answers 200. */
export async function startProcess(entry: string, env: Record<string, string>, opts: { port?: number; timeoutMs?: number; nodeArgs?: string[] } = {}): Promise<Proc> {
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), entry], {
    cwd: projectRoot(),
    // These suites load one hook far past its default rate limit on purpose (the limiter has its own tests).
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', MM_SERVICESETTINGS_LISTENADDRESS: `127.0.0.1:${port}`, MM_RATELIMITSETTINGS_WEBHOOKPERSEC: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // If the test process dies first (a timeout, forceExit), the server must not outlive it.
  const reap = () => child.kill('SIGKILL');
  process.once('exit', reap);
  child.once('exit', () => process.removeListener('exit', reap));
  let output = '';
  child.stdout?.on('data', (d) => (output = (output + d).slice(-20000)));
  child.stderr?.on('data', (d) => (output = (output + d).slice(-20000)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + (opts.timeoutMs ?? 60000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited early (${child.exitCode ?? child.signalCode}):\n${output}`);
    try {
      const res = await fetch(`${url}/api/v4/system/ping`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not become ready:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    url,
    port,
    child,
    pid: child.pid as number,
    output: () => output,
    exited,
    kill: async () => {
      if (!gone()) child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (!gone()) child.kill('SIGTERM');
      await exited;
    },
  };
}
