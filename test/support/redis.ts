// A private Redis server for one test file: its own port, no persistence, stopped (or killed, for outage tests) by
// the test. Debian's redis-server (installed by .ci/run).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from './process';

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export function redisAvailable(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** In CI a missing redis-server is a failure; elsewhere the suite says loudly that it was skipped. */
export function describeWithRedis(name: string, fn: () => void): void {
  if (redisAvailable()) describe(name, fn);
  else if (process.env.CI) describe(name, () => test('redis-server is installed', () => expect(redisAvailable()).toBe(true)));
  else describe.skip(`${name} (SKIPPED: no redis-server on this machine; .ci/run installs it)`, fn);
}

export async function startRedis(port?: number): Promise<RedisServer> {
  const p = port ?? (await freePort());
  const child: ChildProcess = spawn('redis-server', ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const reap = () => child.kill('SIGKILL');
  process.once('exit', reap);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10000;
  for (;;) {
    const ping = spawnSync('redis-cli', ['-p', String(p), 'ping'], { encoding: 'utf8' });
    if (ping.stdout?.trim() === 'PONG') break;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${p} did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${p}`,
    port: p,
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
      process.removeListener('exit', reap);
    },
  };
}
