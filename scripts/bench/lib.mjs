// Shared helpers of `npm run bench`: processes, load runs, RSS sampling, statistics, formatting.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import WebSocket from 'ws';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function median(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = srv.address().port;
      srv.close(() => resolve(port));
    });
  });
}

// Mattermost's id alphabet (src/lib/ids.ts), so seeded rows look like the server's own.
const ALPHABET = 'ybndrfg8ejkmcpqxot1uwisza345h769';
export function newId() {
  const bytes = randomBytes(26);
  let out = '';
  for (let i = 0; i < 26; i++) out += ALPHABET[bytes[i] & 31];
  return out;
}

/** Resident set size of a process in MB, from /proc (Linux). */
export function rssMb(pid) {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** Samples a process's VmRSS every `everyMs` until stopped; returns the peak and the samples. */
export function sampleRss(pid, everyMs = 200) {
  const samples = [];
  const timer = setInterval(() => samples.push(rssMb(pid)), everyMs);
  return {
    stop() {
      clearInterval(timer);
      samples.push(rssMb(pid));
      const ok = samples.filter(Number.isFinite);
      return { peak: Math.max(...ok), samples: ok };
    },
  };
}

async function ping(url) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/**
 * Spawns a server process and waits for `readyPath` to answer 200. Returns the process handle and the
 * milliseconds from spawn to that first 200 (cold start to ready).
 */
export async function spawnProcess(name, args, env, readyPath, cwd = ROOT) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env, PORT: String(port), MM_SERVICESETTINGS_LISTENADDRESS: `127.0.0.1:${port}` },
    // stdout (one JSON log line per request at the default level) goes to /dev/null, as to a log shipper that keeps up.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited early:\n${stderr}`);
    if ((await ping(url + readyPath)) === 200) break;
    if (performance.now() - started > 60000) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not become ready:\n${stderr}`);
    }
    await sleep(5);
  }
  const readyMs = performance.now() - started;
  return {
    name,
    url,
    pid: child.pid,
    readyMs,
    stderr: () => stderr,
    /** How the process ended, if it has: for the failure report. */
    ended: () => (child.exitCode === null && child.signalCode === null ? undefined : `exit code ${child.exitCode}, signal ${child.signalCode}`),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * A Parley process on a database. `extraEnv` adds variables; one set to undefined is left out. `root` runs another
 * build of Parley (a checkout with dist/ built) instead of this one. `nodeArgs` go to node before the script.
 */
export function spawnParley(name, { driver, dataSource, extraEnv = {}, root = ROOT, nodeArgs = [] }) {
  const env = {
    NODE_ENV: 'production',
    MM_SQLSETTINGS_DRIVERNAME: driver,
    MM_SQLSETTINGS_DATASOURCE: dataSource,
    // The per-hook limit (on by default, 10/s) would answer the webhook load 429: the bench measures the server.
    MM_RATELIMITSETTINGS_WEBHOOKPERSEC: '0',
    ...extraEnv,
  };
  return spawnProcess(name, [...nodeArgs, 'dist/src/main.js'], Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)), '/api/v4/system/ping', root);
}

/**
 * A full garbage collection in a process started with `--inspect=127.0.0.1:0`, through its inspector (the address is
 * the one node prints on stderr): what is left is what the process holds, not garbage a collection would free.
 */
export async function collectGarbage(proc) {
  const address = /ws:\/\/\S+/.exec(proc.stderr())?.[0];
  if (!address) throw new Error(`${proc.name} has no inspector (start it with --inspect=127.0.0.1:0)`);
  const ws = new WebSocket(address);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  await new Promise((resolve) => {
    ws.on('message', (m) => JSON.parse(String(m)).id === 1 && resolve());
    ws.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
  });
  ws.close();
  // Let freed pages go back to the system before RSS is read.
  await sleep(500);
}

/**
 * A private redis-server on a free port, no persistence (as the test suites start theirs), or undefined when
 * redis-server is not installed. Its pid is reported so its CPU can be read.
 */
export async function startRedis() {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status !== 0) return undefined;
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 10000;
  while (spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout?.trim() !== 'PONG') {
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server on port ${port} did not start`);
    }
    await sleep(50);
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export function spawnBare(name, mode, dataSource = '') {
  return spawnProcess(name, ['scripts/bench/bare-server.mjs', mode, dataSource], {}, '/ready');
}

/** One autocannon run; returns req/s (2xx only), latency percentiles (ms) and the error counts. */
export async function load(url, { method = 'GET', body, headers = {}, connections = 50, duration = 5, overallRate } = {}) {
  const opts = { url, method, connections, duration, pipelining: 1, headers };
  if (body !== undefined) {
    opts.body = body;
    opts.headers = { 'content-type': 'application/json', ...headers };
  }
  if (overallRate) opts.overallRate = Math.max(1, Math.round(overallRate));
  const r = await autocannon(opts);
  const ok = r['2xx'];
  return {
    rps: ok / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    p999: r.latency.p99_9,
    max: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

/**
 * A fixed overall rate, offered evenly. autocannon paces a connection by releasing its per-second quota at each
 * one-second tick, and all its connections tick together, so one instance sends each second's requests in a burst
 * at the start of the second. Here `slots` instances share the connections and the rate, started 1/slots of a second
 * apart, so the bursts are small and spread over the second. Latencies are those of the actual requests (2xx),
 * recorded from autocannon's response events.
 */
export async function loadAtRate(url, { method = 'GET', body, headers = {}, connections = 50, duration = 5, rate, slots = 10 } = {}) {
  const latencies = [];
  let ok = 0;
  let other = 0;
  let errors = 0;
  const runs = [];
  for (let i = 0; i < slots; i++) {
    const opts = {
      url,
      method,
      connections: Math.max(1, Math.round(connections / slots)),
      duration,
      pipelining: 1,
      overallRate: Math.max(1, Math.round(rate / slots)),
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body }),
    };
    const instance = autocannon(opts);
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) {
        ok++;
        latencies.push(ms);
      } else other++;
    });
    instance.on('reqError', () => errors++);
    runs.push(new Promise((resolve) => instance.on('done', resolve)));
    await sleep(1000 / slots);
  }
  await Promise.all(runs);
  const sorted = Float64Array.from(latencies).sort();
  return {
    rps: ok / duration,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    p999: percentile(sorted, 0.999),
    max: sorted[sorted.length - 1],
    non2xx: other,
    errors,
  };
}

export const fmt = {
  int: (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–'),
  ms: (n) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(1) : n.toFixed(0)) : '–'),
  ratio: (n) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : '–'),
  mb: (n) => (Number.isFinite(n) ? n.toFixed(0) : '–'),
};

/** A Markdown table from a header row and data rows. */
export function table(header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((h, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

export function log(...args) {
  const t = new Date().toISOString().slice(11, 19);
  process.stderr.write(`[${t}] ${args.join(' ')}\n`);
}
