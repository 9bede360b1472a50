// Stall measurement for test/robustness/stall.test.ts: runs an attack against a server living in this process while
// timing cheap requests of a bystander, and records the event loop's longest delay. The server shares the Jest
// process's event loop, so anything that blocks it (a synchronous SQLite statement, a JSON.parse of megabytes) delays
// the probes and the loop monitor alike. The attackers' own work is kept small on purpose (bodies built once, answers
// counted and dropped, never parsed), so what the figures show is the server's.
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import WebSocket from 'ws';
import { startParley, type Parley } from '../../../src/parley';
import { newId } from '../../../src/lib/ids';
import { createTestDatabase, type TestDatabase } from '../../support/database';

export interface StallServer {
  parley: Parley;
  url: string;
  db: TestDatabase;
  close(): Promise<void>;
}

/**
 * A server as it runs in production: without the response validation the API suites turn on (it re-reads every
 * answer against the spec, which would put test-only work proportional to the answer's size on the loop).
 */
export async function startStallServer(env: Record<string, string> = {}): Promise<StallServer> {
  const db = await createTestDatabase();
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const filesDir = mkdtempSync(join(tmpdir(), 'parley-stall-files-'));
  const parley = await startParley({
    env: { MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource, MM_FILESETTINGS_DIRECTORY: filesDir, ...env },
    listen: '127.0.0.1:0',
    validateResponses: false,
  });
  return {
    parley,
    url: parley.url,
    db,
    close: async () => {
      await parley.close();
      await db.drop();
      rmSync(filesDir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------------- raw HTTP

export interface Answer {
  status: number;
  ms: number;
  bytes: number;
  /** A network-level failure (no HTTP answer), e.g. ECONNRESET when the server refused a body without reading it. */
  error?: string;
  /** The first bytes of the body (enough for an AppError's id), only when asked for. */
  head?: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One request; the answer's body is counted and dropped (the first `keep` bytes kept), never parsed. */
export function send(
  url: string,
  method: string,
  path: string,
  o: { token?: string; body?: Buffer | string; keep?: number; timeoutMs?: number; fresh?: boolean } = {},
): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = {};
    if (o.token) headers.Authorization = `Bearer ${o.token}`;
    const body = typeof o.body === 'string' ? Buffer.from(o.body) : o.body;
    if (body) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = body.length;
    }
    let done = false;
    const finish = (a: Omit<Answer, 'ms'>) => {
      if (done) return;
      done = true;
      resolve({ ...a, ms: performance.now() - started });
    };
    const req = http.request(url + path, { method, headers, agent: o.fresh ? undefined : agent, timeout: o.timeoutMs ?? 60000 }, (res) => {
      let bytes = 0;
      let head = '';
      const keep = o.keep ?? 0;
      res.on('data', (chunk: Buffer) => {
        if (head.length < keep) head += chunk.subarray(0, keep - head.length).toString('latin1');
        bytes += chunk.length;
      });
      res.on('end', () => finish({ status: res.statusCode ?? 0, bytes, head: keep ? head : undefined }));
      res.on('error', (err: NodeJS.ErrnoException) => finish({ status: res.statusCode ?? 0, bytes, error: err.code ?? err.message }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => finish({ status: 0, bytes: 0, error: err.code ?? err.message }));
    req.end(body);
  });
}

/** JSON request for set-up (small answers only). */
export async function call<T = any>(url: string, method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; json: T }> {
  const res = await fetch(url + path, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : undefined) as T };
}

export async function expectCall<T = any>(status: number, url: string, method: string, path: string, token?: string, body?: unknown): Promise<T> {
  const res = await call<T>(url, method, path, token, body);
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`);
  return res.json;
}

// ---------------------------------------------------------------------------------------------------- measuring

export interface Probe {
  name: string;
  run(): Promise<Answer>;
}

export interface StallReport {
  /** The event loop's longest delay while the attack ran, in ms. */
  loopMaxMs: number;
  /** Per probe: latencies in ms. */
  probes: Record<string, { n: number; p50: number; p90: number; max: number; bad: number }>;
  /** The attack's answers: count per status (or error code), and latency figures. */
  attack: { n: number; byStatus: Record<string, number>; p50: number; max: number; bytes: number };
  /** The slowest probe answer overall, for the assertion. */
  worstProbeMs: number;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const round = (x: number) => Math.round(x);

/**
 * Runs `attackers` loops of `attack` for `durationMs` (each loop sends its next request when the last is answered)
 * while each probe runs in its own loop, a request every `probeGapMs`; then waits for what is in flight. Probes
 * that started before the attack ends count. Returns the figures.
 */
export async function measure(o: {
  attack: (loop: number, i: number) => Promise<Answer>;
  attackers: number;
  durationMs: number;
  probes: Probe[];
  probeGapMs?: number;
}): Promise<StallReport> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  const latencies: Record<string, number[]> = {};
  const bad: Record<string, number> = {};
  const answers: Answer[] = [];
  let stopped = false;
  const until = performance.now() + o.durationMs;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  histogram.enable();
  const probeLoops = o.probes.map(async (p) => {
    latencies[p.name] = [];
    bad[p.name] = 0;
    while (!stopped) {
      const a = await p.run();
      latencies[p.name].push(a.ms);
      if (a.status !== 200) bad[p.name]++;
      await sleep(o.probeGapMs ?? 20);
    }
  });
  const attackLoops = Array.from({ length: o.attackers }, async (_, loop) => {
    for (let i = 0; performance.now() < until; i++) answers.push(await o.attack(loop, i));
  });
  await Promise.all(attackLoops);
  // A probe sent at the very end of the attack tells as much as one sent in its middle; one more round settles them.
  await sleep(50);
  stopped = true;
  await Promise.all(probeLoops);
  histogram.disable();
  const probes: StallReport['probes'] = {};
  let worst = 0;
  for (const [name, list] of Object.entries(latencies)) {
    const sorted = [...list].sort((a, b) => a - b);
    probes[name] = { n: sorted.length, p50: round(quantile(sorted, 0.5)), p90: round(quantile(sorted, 0.9)), max: round(sorted[sorted.length - 1] ?? 0), bad: bad[name] };
    worst = Math.max(worst, sorted[sorted.length - 1] ?? 0);
  }
  const byStatus: Record<string, number> = {};
  for (const a of answers) {
    const key = a.error ? `${a.status || 'none'}:${a.error}` : String(a.status);
    byStatus[key] = (byStatus[key] ?? 0) + 1;
  }
  const attackMs = answers.map((a) => a.ms).sort((a, b) => a - b);
  return {
    loopMaxMs: round(histogram.max / 1e6),
    probes,
    attack: { n: answers.length, byStatus, p50: round(quantile(attackMs, 0.5)), max: round(attackMs[attackMs.length - 1] ?? 0), bytes: answers.reduce((s, a) => s + a.bytes, 0) },
    worstProbeMs: round(worst),
  };
}

/**
 * What counts as a stall. A blocked event loop shows in both figures: its longest delay, and the slowest answer to
 * a cheap request of someone else. The bounds leave room for a loaded 2-core CI machine (another Jest worker, a
 * major GC of a big test heap: 100-350 ms seen; an idle server's p90 was 45 ms on the shared machine), and sit far below what the unfixed attacks cost (seconds; see the
 * figures in the suite's header).
 */
export const STALL = {
  loopMaxMs: 500,
  probeMaxMs: 800,
  probeP90Ms: 300,
};

/**
 * The bounds for this run: STALL plus what the same probes saw on the idle server just before (`idle`), so a machine
 * that is slow for everyone (a shared CI box at a load average of 14 made an idle p90 of 420 ms) widens them by its
 * own noise, not by a guess; the unfixed attacks cost seconds over that.
 */
export function boundsFor(idle?: StallReport): typeof STALL {
  if (!idle) return STALL;
  const worst = (f: (p: StallReport['probes'][string]) => number) => Math.max(0, ...Object.values(idle.probes).map(f));
  return {
    loopMaxMs: STALL.loopMaxMs + idle.loopMaxMs,
    probeMaxMs: STALL.probeMaxMs + worst((p) => p.max),
    probeP90Ms: STALL.probeP90Ms + worst((p) => p.p90),
  };
}

/** The reasons `r` is a stall (empty when it is not). */
export function stalls(r: StallReport, bounds = STALL): string[] {
  const out: string[] = [];
  if (r.loopMaxMs > bounds.loopMaxMs) out.push(`event loop blocked ${r.loopMaxMs} ms (bound ${bounds.loopMaxMs})`);
  for (const [name, p] of Object.entries(r.probes)) {
    if (p.max > bounds.probeMaxMs) out.push(`${name}: slowest answer ${p.max} ms (bound ${bounds.probeMaxMs})`);
    if (p.p90 > bounds.probeP90Ms) out.push(`${name}: p90 ${p.p90} ms (bound ${bounds.probeP90Ms})`);
    if (p.bad > 0) out.push(`${name}: ${p.bad} answers were not 200`);
    if (p.n < 3) out.push(`${name}: only ${p.n} answers`);
  }
  return out;
}

/** Attack answers that break "a quick answer or a clear refusal": any 5xx, or none at all (unless `allowErrors`). */
export function badAnswers(r: StallReport, allowErrors = false): string[] {
  return Object.entries(r.attack.byStatus)
    .filter(([k]) => {
      const status = Number(k.split(':')[0]);
      if (k.includes(':')) return !allowErrors;
      return !(status >= 200 && status < 500);
    })
    .map(([k, n]) => `${n} × ${k}`);
}

export function describeReport(label: string, r: StallReport): string {
  const probes = Object.entries(r.probes)
    .map(([n, p]) => `${n} n=${p.n} p50=${p.p50} p90=${p.p90} max=${p.max}${p.bad ? ` bad=${p.bad}` : ''}`)
    .join('; ');
  return `${label}: loop max ${r.loopMaxMs} ms; ${probes}; attack n=${r.attack.n} ${JSON.stringify(r.attack.byStatus)} p50=${r.attack.p50} max=${r.attack.max} bytes=${r.attack.bytes}`;
}

// ---------------------------------------------------------------------------------------------------- memory

let gcFn: (() => void) | undefined;

/** A full collection, where V8 lets the flag be set at run time (it does on Node 20); undefined if not. */
export function fullGc(): (() => void) | undefined {
  if (gcFn) return gcFn;
  try {
    setFlagsFromString('--expose-gc');
    gcFn = runInNewContext('gc') as () => void;
  } catch {
    gcFn = undefined;
  }
  return gcFn;
}

/** Live heap in bytes after full collections (the settled figure), or heapUsed as it is when no GC can be forced. */
export async function liveHeap(): Promise<number> {
  const gc = fullGc();
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
}

// ---------------------------------------------------------------------------------------------------- WebSocket

export interface LeanSocket {
  ws: WebSocket;
  /** Events received, by name (frames are parsed only when small). */
  counts: Record<string, number>;
  /** Times (ms) at which `typing` events arrived, with the typist. */
  typing: Array<{ at: number; userId: string }>;
  bytes: number;
  opened: boolean;
  closed: boolean;
  hello: Promise<boolean>;
  close(): void;
}

/**
 * A WebSocket client that stays cheap under a flood: frames over 4 KB are counted and dropped unparsed (a `posted`
 * with large props), small ones are parsed for their event name. `hello` resolves true on hello, false if the socket
 * closed or was refused first.
 */
export function leanSocket(url: string, token: string): LeanSocket {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/api/v4/websocket`, { headers: { Authorization: `Bearer ${token}` } });
  const s: LeanSocket = { ws, counts: {}, typing: [], bytes: 0, opened: false, closed: false, hello: Promise.resolve(false), close: () => ws.terminate() };
  s.hello = new Promise<boolean>((resolve) => {
    ws.on('open', () => (s.opened = true));
    ws.on('message', (raw: Buffer) => {
      s.bytes += raw.length;
      if (raw.length > 4096) {
        s.counts.large = (s.counts.large ?? 0) + 1;
        return;
      }
      const frame = JSON.parse(raw.toString()) as { event?: string; data?: Record<string, any>; broadcast?: Record<string, any> };
      if (!frame.event) return;
      s.counts[frame.event] = (s.counts[frame.event] ?? 0) + 1;
      if (frame.event === 'hello') resolve(true);
      if (frame.event === 'typing') s.typing.push({ at: performance.now(), userId: String(frame.data?.user_id ?? '') });
    });
    ws.on('close', () => {
      s.closed = true;
      resolve(false);
    });
    ws.on('unexpected-response', () => resolve(false));
    ws.on('error', () => resolve(false));
  });
  return s;
}

// ---------------------------------------------------------------------------------------------------- seeding

export interface SeedPost {
  channelId: string;
  userId: string;
  message: string;
  props?: string;
  rootId?: string;
  hashtags?: string;
  createAt: number;
}

/**
 * Inserts posts straight into the posts table (as data from before today's limits would be, or a bulk load),
 * `perStatement` rows per INSERT, in one transaction per `perTransaction`. The search index follows through its own
 * means (SQLite's triggers, InnoDB's FULLTEXT index), as it does for every write. Returns the ids, in order.
 */
export async function seedPosts(parley: Parley, posts: SeedPost[], perStatement = 500, perTransaction = 10000): Promise<string[]> {
  const knex = parley.db.knex;
  const ids: string[] = [];
  const rows = posts.map((p) => {
    const id = newId();
    ids.push(id);
    return {
      id,
      create_at: p.createAt,
      update_at: p.createAt,
      edit_at: 0,
      delete_at: 0,
      is_pinned: false,
      user_id: p.userId,
      channel_id: p.channelId,
      root_id: p.rootId ?? '',
      original_id: '',
      message: p.message,
      type: '',
      props: p.props ?? '{}',
      hashtags: p.hashtags ?? '',
      file_ids: '[]',
      pending_post_id: '',
      metadata: null,
    };
  });
  for (let from = 0; from < rows.length; from += perTransaction) {
    await knex.transaction(async (trx) => {
      const chunk = rows.slice(from, from + perTransaction);
      for (let i = 0; i < chunk.length; i += perStatement) await trx('posts').insert(chunk.slice(i, i + perStatement));
    });
  }
  return ids;
}

/** A deterministic pseudo-random source, so both databases get the same corpus. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The review's fat props: `count` keys each holding `[1]` (~12 bytes per key; 19,500 keys ≈ 240 KB). */
export function manyKeyProps(count: number): Record<string, number[]> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, [1]]));
}

export { newId };
