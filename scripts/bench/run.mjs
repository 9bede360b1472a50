// `npm run bench` (after a build): Parley against bare baselines, on SQLite and MariaDB, in one run on this machine.
//
//   node scripts/bench/run.mjs [--quick] [--no-mysql] [--rounds=N] [--duration=S] [--big=N] [--big-mysql=N]
//                              [--only=webhook,latency,validation,limiter,history,coldstart,upload,search,realtime] [--filter=REGEX] [--json=FILE]
//                              [--keep-search-db]
//
// --quick: about 2 minutes (one round, 3 s runs, a 100k-post history channel). Default: about 9 minutes (3 rounds,
// 5 s runs, 1M posts). --only and --filter run a subset, for working on one figure; a published run runs everything.
// The limiter section (about 5.5 minutes, 1 with --quick) filters its comparisons as limiter-<on>-vs-<off>.
// Environment: PARLEY_BENCH_MYSQL (default mysql://parley:parley@127.0.0.1:3306/, the user must create databases).
// The limiter section starts a private redis-server (no persistence) when redis-server is installed.
//
// Every figure is the median of alternating rounds (the order rotates each round); ratios are taken between medians
// of the same run. The load generator (autocannon) shares the machine with the servers and the database.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import http from 'node:http';
import { Socket } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, cpuSeconds, fmt, load, loadAtRate, log, median, rssMb, sampleRss, sleep, spawnBare, spawnParley, startRedis, table } from './lib.mjs';
import { createMysqlDatabase, migrateDatabase, SEARCH_VOCABULARY, searchPostTime, seedPosts, seedSearchPosts } from './seed.mjs';
import { realtimeReport, realtimeSection } from './realtime.mjs';

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const option = (name, fallback) => {
  const a = argv.find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : fallback;
};
const quick = flag('quick');
const withMysql = !flag('no-mysql');
const ROUNDS = Number(option('rounds', quick ? 1 : 3));
const DURATION = Number(option('duration', quick ? 3 : 5));
const WARM = quick ? 1 : 2;
/** Runs per path in the validation section (its server CPU per request is their median). */
const VALIDATION_RUNS = Math.max(ROUNDS, quick ? 1 : 5);
/** Back-to-back pairs per comparison in the limiter section (the same reasoning). */
const LIMITER_PAIRS = Math.max(ROUNDS, quick ? 1 : 5);
const SMALL = 10_000;
const BIG = Number(option('big', quick ? 100_000 : 1_000_000));
const BIG_MYSQL = Number(option('big-mysql', BIG));
const CONNECTIONS = 50;
const HISTORY_CONNECTIONS = 20;
const execFileAsync = promisify(execFile);
const ONLY = option('only', 'webhook,latency,validation,limiter,history,coldstart,upload,search,realtime').split(',');
/** The upload section: this many concurrent uploads of this many MB each (the robustness suite's memory case). */
const UPLOADS = 20;
const UPLOAD_MB = 20;
const FILTER = new RegExp(option('filter', '.'));
const runs = (section) => ONLY.includes(section);
const MYSQL_SERVER = process.env.PARLEY_BENCH_MYSQL ?? 'mysql://parley:parley@127.0.0.1:3306/';
const PASSWORD = 'Passw0rd!bench';
// A typical CI notification: Slack-style, no mention, to the hook's own channel.
const PAYLOAD = JSON.stringify({
  text: 'Build 4711 of parley passed on main: 849 tests, 0 failures. Deployed to staging in 42s.',
  username: 'ci',
  icon_emoji: ':white_check_mark:',
});

const started = Date.now();
const processes = [];
const cleanups = [];
const results = { meta: {}, webhook: {}, halfRate: {}, validation: {}, limiter: {}, history: {}, coldStart: {}, rss: {}, upload: {}, search: {} };
let mysqldPid = NaN;

async function api(url, method, path, body, token) {
  const res = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return { body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** Through the API: the first user (system admin), a team, a webhook on town-square, two history channels. */
async function setupWorld(url) {
  const user = (await api(url, 'POST', '/api/v4/users', { username: 'bench', email: 'bench@example.com', password: PASSWORD })).body;
  const token = (await api(url, 'POST', '/api/v4/users/login', { login_id: 'bench', password: PASSWORD })).headers.get('token');
  const team = (await api(url, 'POST', '/api/v4/teams', { name: 'bench', display_name: 'Bench', type: 'O' }, token)).body;
  const town = (await api(url, 'GET', `/api/v4/teams/${team.id}/channels/name/town-square`, undefined, token)).body;
  const hook = (await api(url, 'POST', '/api/v4/hooks/incoming', { channel_id: town.id, display_name: 'CI' }, token)).body;
  const channel = async (name) => (await api(url, 'POST', '/api/v4/channels', { team_id: team.id, name, display_name: name, type: 'O' }, token)).body.id;
  return { token, userId: user.id, teamId: team.id, townId: town.id, hookId: hook.id, small: await channel('history-small'), big: await channel('history-big') };
}

/**
 * A search world through the API: the searcher (first user, system admin), three more users on the team, 8 channels
 * the searcher is in and 4 it has left (their posts are in the index but not the searcher's to find).
 */
async function setupSearchWorld(url) {
  const admin = (await api(url, 'POST', '/api/v4/users', { username: 'searcher', email: 'searcher@example.com', password: PASSWORD })).body;
  const token = (await api(url, 'POST', '/api/v4/users/login', { login_id: 'searcher', password: PASSWORD })).headers.get('token');
  const team = (await api(url, 'POST', '/api/v4/teams', { name: 'search', display_name: 'Search', type: 'O' }, token)).body;
  const users = [{ id: admin.id, username: 'searcher' }];
  for (const name of ['alice', 'bob', 'carol']) {
    const u = (await api(url, 'POST', '/api/v4/users', { username: name, email: `${name}@example.com`, password: PASSWORD }, token)).body;
    await api(url, 'POST', `/api/v4/teams/${team.id}/members`, { team_id: team.id, user_id: u.id }, token);
    users.push({ id: u.id, username: name });
  }
  const channels = [];
  const hidden = [];
  for (let i = 0; i < 12; i++) {
    const c = (await api(url, 'POST', '/api/v4/channels', { team_id: team.id, name: `topic-${i}`, display_name: `Topic ${i}`, type: 'O' }, token)).body;
    if (i < 8) channels.push({ id: c.id, name: c.name });
    else {
      await api(url, 'DELETE', `/api/v4/channels/${c.id}/members/${admin.id}`, undefined, token);
      hidden.push(c.id);
    }
  }
  return { token, teamId: team.id, users, channels, hidden };
}

/** "60", or "60 (0 in 3 of 433 answers)" when some answers had another page size. */
function pageSizes(r) {
  const total = Object.values(r.resultSizes).reduce((a, b) => a + b, 0);
  const others = Object.entries(r.resultSizes).filter(([size]) => Number(size) !== r.results);
  return others.length === 0 ? String(r.results) : `${r.results} (${others.map(([size, n]) => `${size} in ${n}`).join(', ')} of ${total} answers)`;
}

/**
 * p50/p99 of one request at a time (a closed loop of one): the service time, without queueing behind others. Every
 * answer's page size is counted, warm-up and timed alike: `results` is the size most answers had and `resultSizes`
 * how many answers had each size. They differ on MariaDB when a search meets InnoDB's FULLTEXT cache sync (README
 * "Search"): one sample would report that moment's page as the search's result (it once reported 0 for "deploy").
 */
async function sequentialLatency(url, body, token) {
  const init = { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) };
  const sizes = new Map();
  const count = (page) => sizes.set(page.order.length, (sizes.get(page.order.length) ?? 0) + 1);
  for (let i = 0; i < 10; i++) {
    // The first request after a long seeding may meet a keep-alive connection the server has just closed: once, the
    // cause is logged and the request sent again.
    const res = await fetch(url, init).catch((err) => {
      if (i > 0) throw err;
      log(`  (first search request failed: ${err.cause?.code ?? err.cause?.message ?? err.message}; sent again)`);
      return fetch(url, init);
    });
    if (res.status !== 200) throw new Error(`search ${body.terms}: ${res.status} ${await res.text()}`);
    count(await res.json());
  }
  const times = [];
  const until = performance.now() + DURATION * 1000;
  while ((performance.now() < until && times.length < 2000) || times.length < 20) {
    const t0 = performance.now();
    const res = await fetch(url, init);
    const text = await res.text();
    times.push(performance.now() - t0);
    // An error (a statement past SqlSettings.QueryTimeout answers 5xx) is counted as such, not read as a page.
    if (res.status === 200) count(JSON.parse(text));
    else sizes.set(`HTTP ${res.status}`, (sizes.get(`HTTP ${res.status}`) ?? 0) + 1);
  }
  times.sort((a, b) => a - b);
  const at = (p) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)];
  const [[results]] = [...sizes].sort((a, b) => b[1] - a[1]);
  return { p50: at(0.5), p99: at(0.99), n: times.length, results, resultSizes: Object.fromEntries(sizes) };
}

async function start(spawnFn) {
  const p = await spawnFn();
  processes.push(p);
  log(`${p.name} ready in ${p.readyMs.toFixed(0)} ms (pid ${p.pid})`);
  return p;
}

/**
 * One multipart upload of `mb` MB to UploadFile (or to the bare upload server), streamed: the client never holds it
 * whole either. Resolves with the status once the answer is in.
 */
function streamUpload(url, { token, channelId, mb, n }) {
  const head = Buffer.from(
    `--bench\r\nContent-Disposition: form-data; name="channel_id"\r\n\r\n${channelId}\r\n--bench\r\nContent-Disposition: form-data; name="files"; filename="bench-${n}.bin"\r\n\r\n`,
  );
  const tail = Buffer.from('\r\n--bench--\r\n');
  const size = mb * 1024 * 1024;
  const block = Buffer.alloc(64 * 1024, n & 0xff);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'multipart/form-data; boundary=bench', 'content-length': String(head.length + size + tail.length) },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const piece = block.subarray(0, Math.min(block.length, size - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    req.write(head);
    pump();
  });
}

async function cleanup() {
  for (const p of processes.splice(0)) await p.stop().catch(() => {});
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
}
process.on('SIGINT', () => cleanup().finally(() => process.exit(130)));

/** A measured run, with the CPU time the server (and the database server) spent on it per 2xx response. */
async function measured(t, opts) {
  // The database server's process: MariaDB's, or another one the target names (the limiter section's Redis).
  const dbPid = t.dbPid ?? (t.db ? mysqldPid : NaN);
  const cpu0 = cpuSeconds(t.proc.pid);
  const db0 = cpuSeconds(dbPid);
  const r = await load(t.url, { ...t, ...opts });
  const answered = r.rps * opts.duration;
  return { ...r, cpuUs: ((cpuSeconds(t.proc.pid) - cpu0) / answered) * 1e6, dbCpuUs: ((cpuSeconds(dbPid) - db0) / answered) * 1e6 };
}

/** Runs each target once per round, rotating the order every round; returns the per-target lists of results. */
async function rounds(allTargets, runOne, unit = 'req/s') {
  const targets = allTargets.filter((t) => FILTER.test(t.key));
  const out = new Map(targets.map((t) => [t.key, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = targets.map((_, i) => targets[(i + r) % targets.length]);
    for (const t of order) {
      const res = await runOne(t, r);
      out.get(t.key).push(res);
      const bad = res.non2xx || res.errors ? `, NON-2XX ${res.non2xx}, ERRORS ${res.errors}` : '';
      const cpu = Number.isFinite(res.cpuUs) ? `, server CPU ${res.cpuUs.toFixed(0)} µs/req` : '';
      const latency = Number.isFinite(res.p50) ? `, p50 ${fmt.ms(res.p50)} ms, p99 ${fmt.ms(res.p99)} ms` : '';
      log(`  round ${r + 1}/${ROUNDS} ${t.key}: ${fmt.int(res.rps)} ${unit}${latency}${cpu}${bad}`);
    }
  }
  return out;
}

function summarise(list) {
  const m = (f) => median(list.map(f));
  return {
    rps: m((x) => x.rps),
    p50: m((x) => x.p50),
    p99: m((x) => x.p99),
    p999: m((x) => x.p999),
    cpuUs: m((x) => x.cpuUs),
    dbCpuUs: m((x) => x.dbCpuUs),
    non2xx: list.reduce((a, x) => a + x.non2xx, 0),
    errors: list.reduce((a, x) => a + x.errors, 0),
    runs: list.map((x) => Math.round(x.rps)),
  };
}

async function main() {
  const cpus = os.cpus();
  results.meta = {
    date: new Date().toISOString(),
    node: process.version,
    cores: cpus.length,
    cpu: cpus[0]?.model ?? 'unknown',
    memoryGb: +(os.totalmem() / 2 ** 30).toFixed(1),
    kernel: os.release(),
    loadBefore: os.loadavg()[0],
    quick,
    rounds: ROUNDS,
    durationS: DURATION,
    connections: CONNECTIONS,
  };
  log(`Parley bench${quick ? ' (quick)' : ''}: ${results.meta.cores} cores (${results.meta.cpu}), Node ${results.meta.node}, ${ROUNDS} round(s) × ${DURATION} s, ${CONNECTIONS} connections, load average ${results.meta.loadBefore.toFixed(2)}`);
  const { default: Database } = await import('better-sqlite3');
  results.meta.sqlite = new Database(':memory:').prepare('select sqlite_version() v').get().v;

  const dir = mkdtempSync(join(os.tmpdir(), 'parley-bench-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const suffix = `${process.pid}`;

  // ---- databases and processes ------------------------------------------------------------------------------
  const dbs = { sqlite: { driver: 'sqlite', dataSource: join(dir, 'parley.db') } };
  if (withMysql) {
    const mysql = await import('mysql2/promise');
    const c = await mysql.createConnection({ uri: MYSQL_SERVER });
    const [[v]] = await c.query('SELECT VERSION() AS v, @@innodb_flush_log_at_trx_commit AS f, @@log_bin AS b, @@pid_file AS pidFile');
    await c.end();
    results.meta.mariadb = `${v.v} (innodb_flush_log_at_trx_commit=${v.f}, log_bin=${v.b})`;
    try {
      mysqldPid = Number(readFileSync(v.pidFile, 'utf8').trim());
    } catch {
      // The database server's CPU is then not reported.
    }
    const made = await createMysqlDatabase(MYSQL_SERVER, `parley_bench_${suffix}`);
    cleanups.push(made.drop);
    dbs.mysql = { driver: 'mysql', dataSource: made.dataSource };
  }

  const parley = {};
  const worlds = {};
  for (const [key, db] of Object.entries(dbs)) {
    parley[key] = await start(() => spawnParley(`parley-${key}`, db));
    results.coldStart[key] = { firstStartMs: parley[key].readyMs };
    worlds[key] = await setupWorld(parley[key].url);
    results.rss[key] = { idleMb: rssMb(parley[key].pid) };
  }

  const bare = {};
  if (runs('webhook')) {
    bare.http = await start(() => spawnBare('bare-http', 'http'));
    const bareSqlite = join(dir, 'bare.db');
    await migrateDatabase('sqlite', bareSqlite);
    bare.sqlite = await start(() => spawnBare('bare-sqlite-insert', 'sqlite', bareSqlite));
    const bareNormal = join(dir, 'bare-normal.db');
    await migrateDatabase('sqlite', bareNormal);
    bare.sqliteNormal = await start(() => spawnBare('bare-sqlite-normal-insert', 'sqlite-normal', bareNormal));
    const bareSortable = join(dir, 'bare-normal-sortable.db');
    await migrateDatabase('sqlite', bareSortable);
    bare.sqliteNormalSortable = await start(() => spawnBare('bare-sqlite-normal-insert-sortable-ids', 'sqlite-normal-sortable', bareSortable));
  }
  if (withMysql && runs('webhook')) {
    for (const mode of ['mysql-pool', 'mysql-naive']) {
      const made = await createMysqlDatabase(MYSQL_SERVER, `parley_bench_${mode.replace('-', '_')}_${suffix}`);
      cleanups.push(made.drop);
      await migrateDatabase('mysql', made.dataSource);
      bare[mode] = await start(() => spawnBare(`bare-${mode}`, mode, made.dataSource));
    }
  }

  // The small history channels first: the validation runs read one of them.
  for (const [key, db] of runs('validation') || runs('history') ? Object.entries(dbs) : []) {
    const w = worlds[key];
    const seeded = await seedPosts({ ...db, channelId: w.small, userId: w.userId, count: SMALL, label: `${key} ${SMALL.toLocaleString('en-US')}` });
    w.smallAnchor = seeded.anchors[100];
  }

  const hookPost = (proc, key) => ({ url: `${proc.url}/hooks/${worlds[key]?.hookId ?? 'x'}`, method: 'POST', body: PAYLOAD, proc });

  // ---- 1. webhook throughput --------------------------------------------------------------------------------
  async function webhookSection() {
    log('1. webhook POST throughput (closed loop, maximum rate)');
    const targets = [
      { key: 'bare-http', ...hookPost(bare.http) },
      { key: 'bare-sqlite-insert', ...hookPost(bare.sqlite) },
      { key: 'bare-sqlite-normal-insert', ...hookPost(bare.sqliteNormal) },
      { key: 'bare-sqlite-normal-insert-sortable-ids', ...hookPost(bare.sqliteNormalSortable) },
      { key: 'parley-sqlite', ...hookPost(parley.sqlite, 'sqlite') },
    ];
    if (withMysql) {
      targets.push(
        { key: 'bare-mysql-naive', ...hookPost(bare['mysql-naive']), db: true },
        { key: 'bare-mysql-pool-insert', ...hookPost(bare['mysql-pool']), db: true },
        { key: 'parley-mysql', ...hookPost(parley.mysql, 'mysql'), db: true },
      );
    }
    for (const t of targets.filter((x) => FILTER.test(x.key))) await load(t.url, { ...t, connections: CONNECTIONS, duration: WARM + 1 });
    const rssPeak = {};
    const wh = await rounds(targets, async (t) => {
      await load(t.url, { ...t, connections: CONNECTIONS, duration: WARM });
      const sampler = sampleRss(t.proc.pid);
      const r = await measured(t, { connections: CONNECTIONS, duration: DURATION });
      rssPeak[t.key] = Math.max(rssPeak[t.key] ?? 0, sampler.stop().peak);
      return r;
    });
    for (const [k, list] of wh) results.webhook[k] = summarise(list);
    for (const key of Object.keys(dbs)) results.rss[key].webhookPeakMb = rssPeak[`parley-${key}`];
    if (!runs('latency')) return;

    // ---- 2. latency at half of the maximum rate -------------------------------------------------------------
    log('2. webhook latency at 50% of the maximum rate (fixed overall rate)');
    const halfTargets = targets.filter((t) => t.key.startsWith('parley-') && results.webhook[t.key]).map((t) => ({ ...t, rate: results.webhook[t.key].rps / 2 }));
    const half = await rounds(halfTargets, (t) => loadAtRate(t.url, { ...t, connections: CONNECTIONS, duration: DURATION, rate: t.rate }));
    for (const [k, list] of half) results.halfRate[k] = { offered: halfTargets.find((t) => t.key === k).rate, ...summarise(list) };
  }

  // ---- 3. the cost of request validation --------------------------------------------------------------------
  async function validationSection() {
    log('3. request validation: its CPU per request (in-process, scripts/bench/validation-cost.mjs) against the server CPU per request of the same path (SQLite)');
    const w = worlds.sqlite;
    const auth = { authorization: `Bearer ${w.token}` };
    const paths = [
      { what: 'webhook', target: (proc) => hookPost(proc, 'sqlite') },
      { what: 'GetPostsForChannel', target: (proc) => ({ url: `${proc.url}/api/v4/channels/${w.small}/posts?page=0&per_page=60`, headers: auth, proc }) },
      {
        what: 'CreatePost',
        target: (proc) => ({
          url: `${proc.url}/api/v4/posts`,
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ channel_id: w.townId, message: 'A message posted through the API, as a client would.' }),
          proc,
        }),
      },
    ].filter((p) => FILTER.test(`${p.what}-validate`));
    // The validators are the server's, compiled from the spec as the server compiles them, run on the request the load
    // sends: what validation adds to a request, without a second server that skips it.
    const { stdout } = await execFileAsync(process.execPath, [join(ROOT, 'scripts/bench/validation-cost.mjs')]);
    const perRequest = JSON.parse(stdout);
    for (const { what, target } of paths) {
      const t = target(parley.sqlite);
      await load(t.url, { ...t, connections: CONNECTIONS, duration: WARM });
      const runsOf = [];
      for (let r = 0; r < VALIDATION_RUNS; r++) runsOf.push(await measured(t, { connections: CONNECTIONS, duration: DURATION }));
      const cpuUs = median(runsOf.map((x) => x.cpuUs));
      const validationUs = perRequest[what];
      results.validation[what] = { rps: median(runsOf.map((x) => x.rps)), cpuUs, validationUs, cost: validationUs / cpuUs };
      log(`  ${what}: server ${fmt.int(cpuUs)} µs CPU/req, validation ${validationUs.toFixed(2)} µs/req (${((validationUs / cpuUs) * 100).toFixed(2)} %)`);
    }
  }

  // ---- 3b. the cost of the rate limiters on the webhook path ---------------------------------------------------
  async function limiterSection() {
    log('3b. rate limiters on vs off, webhook POST (SQLite; each configuration set at runtime by PatchConfig on one process)');
    // Limits so high that nothing is ever refused: what is measured is the check itself, on every request.
    const HIGH = 1_000_000;
    const hook = { WebhookPerSec: HIGH, WebhookMaxBurst: HIGH };
    const apiOn = { Enable: true, PerSec: HIGH, MaxBurst: HIGH };
    // The rate limits are read per request and patchable at runtime, so on and off run in the same process and a pair
    // compares the configurations, not two processes (their heaps, JIT, place on the CPUs). ClusterSettings is read at
    // start-up: cluster mode is a second process, with its own database (a patch on one must not reach the other
    // through the shared config) and a private Redis.
    const states = [
      { key: 'off', on: 'memory', label: 'a) off: WebhookPerSec=0, API limit off', limits: { WebhookPerSec: 0, Enable: false } },
      { key: 'hook-memory', on: 'memory', label: 'b) per-hook limit, in memory', limits: { ...hook, Enable: false } },
      { key: 'hook+api-memory', on: 'memory', label: 'c) per-hook + API limit, in memory', limits: { ...hook, ...apiOn } },
    ];
    const redis = await startRedis();
    if (redis) {
      cleanups.push(() => redis.stop());
      states.push(
        { key: 'cluster', on: 'cluster', label: 'd0) cluster mode (Redis), per-hook limit off', limits: { WebhookPerSec: 0, Enable: false } },
        { key: 'hook-redis', on: 'cluster', label: 'd) cluster mode, per-hook limit in Redis', limits: { ...hook, Enable: false } },
      );
    } else log('  redis-server is not installed: the Redis configurations are skipped');
    const servers = {};
    for (const [on, env] of Object.entries({ memory: {}, cluster: redis ? { MM_CLUSTERSETTINGS_ENABLE: 'true', MM_CLUSTERSETTINGS_REDISURL: redis.url } : undefined })) {
      if (!env) continue;
      const db = { driver: 'sqlite', dataSource: join(dir, `limiter-${on}.db`) };
      // Without spawnParley's WebhookPerSec=0: an MM_ variable would override every patch.
      const proc = await start(() => spawnParley(`parley-sqlite-limiter-${on}`, { ...db, extraEnv: { ...env, MM_RATELIMITSETTINGS_WEBHOOKPERSEC: undefined } }));
      const world = await setupWorld(proc.url);
      servers[on] = { proc, world, dbPid: on === 'cluster' ? redis.pid : undefined, state: undefined };
    }
    /** Puts a server in a state; checks that it runs it (a typo would measure nothing) and that a post passes. */
    const enter = async (state) => {
      const srv = servers[state.on];
      if (srv.state === state.key) return srv;
      await api(srv.proc.url, 'PUT', '/api/v4/config/patch', { RateLimitSettings: state.limits }, srv.world.token);
      const got = (await api(srv.proc.url, 'GET', '/api/v4/config', undefined, srv.world.token)).body;
      const seen = { hook: got.RateLimitSettings.WebhookPerSec, api: got.RateLimitSettings.Enable, cluster: got.ClusterSettings.Enable };
      const want = { hook: state.limits.WebhookPerSec, api: state.limits.Enable, cluster: state.on === 'cluster' };
      if (JSON.stringify(seen) !== JSON.stringify(want)) throw new Error(`${srv.proc.name} runs ${JSON.stringify(seen)}, not ${JSON.stringify(want)} (${state.key})`);
      const probe = await fetch(`${srv.proc.url}/hooks/${srv.world.hookId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: PAYLOAD });
      await probe.arrayBuffer();
      if (probe.status !== 200) throw new Error(`${srv.proc.name} (${state.key}): webhook POST answered ${probe.status}`);
      // The API limit covers /hooks too (checked in the request listener, before routing): its headers show it.
      if (probe.headers.has('x-ratelimit-limit') !== state.limits.Enable) throw new Error(`${srv.proc.name} (${state.key}): X-RateLimit-Limit ${probe.headers.get('x-ratelimit-limit')}`);
      srv.state = state.key;
      return srv;
    };
    const target = (srv) => ({ url: `${srv.proc.url}/hooks/${srv.world.hookId}`, method: 'POST', body: PAYLOAD, proc: srv.proc, dbPid: srv.dbPid });
    const byKey = Object.fromEntries(states.map((st) => [st.key, st]));
    // Every server warmed up before the first pair, in its first state (the stored default, 10/s, would refuse).
    for (const [on, srv] of Object.entries(servers)) {
      await enter(states.find((st) => st.on === on));
      await load(target(srv).url, { ...target(srv), connections: CONNECTIONS, duration: WARM + 1 });
    }
    const comparisons = [
      // The same state twice: what a pair shows when nothing differs (the method's noise).
      ['off', 'off'],
      ['hook-memory', 'off'],
      ['hook+api-memory', 'off'],
      ['hook-redis', 'cluster'],
      // Across processes: cluster mode's own cost (every event also published to Redis) is in this one.
      ['hook-redis', 'off'],
    ].filter(([on, off]) => byKey[on] && byKey[off] && FILTER.test(`limiter-${on}-vs-${off}`));
    results.limiter = { configs: Object.fromEntries(states.map((st) => [st.key, st.label])), comparisons: [] };
    // As in the validation section: each state measured right after its baseline (the order alternating per pair),
    // each pair one cost; the verdict is the median of the paired costs.
    for (const [onKey, offKey] of comparisons) {
      const lists = { on: [], off: [], cost: [], cpuCost: [] };
      for (let r = 0; r < LIMITER_PAIRS; r++) {
        const order = r % 2 ? [['off', offKey], ['on', onKey]] : [['on', onKey], ['off', offKey]];
        const pair = {};
        for (const [onOff, key] of order) {
          const t = target(await enter(byKey[key]));
          await load(t.url, { ...t, connections: CONNECTIONS, duration: r === 0 ? WARM : 1 });
          pair[onOff] = await measured(t, { connections: CONNECTIONS, duration: DURATION });
          lists[onOff].push(pair[onOff]);
        }
        lists.cost.push(1 - pair.on.rps / pair.off.rps);
        lists.cpuCost.push(1 - pair.off.cpuUs / pair.on.cpuUs);
        const bad = pair.on.non2xx + pair.on.errors + pair.off.non2xx + pair.off.errors;
        log(`  pair ${r + 1}/${LIMITER_PAIRS} ${onKey} vs ${offKey}: ${fmt.int(pair.on.rps)} vs ${fmt.int(pair.off.rps)} req/s, cost ${(lists.cost.at(-1) * 100).toFixed(1)} %, CPU ${pair.on.cpuUs.toFixed(0)} vs ${pair.off.cpuUs.toFixed(0)} µs/req${bad ? `, NON-2XX/ERRORS ${bad}` : ''}`);
      }
      results.limiter.comparisons.push({ on: onKey, off: offKey, onRuns: summarise(lists.on), offRuns: summarise(lists.off), cost: median(lists.cost), cpuCost: median(lists.cpuCost), costs: lists.cost, cpuCosts: lists.cpuCost });
    }
    for (const { proc } of Object.values(servers)) {
      await proc.stop();
      processes.splice(processes.indexOf(proc), 1);
    }
    results.limiter.checks = await limiterCheckCost(servers.memory.world.hookId);
  }

  /**
   * The in-memory checks on their own, in this process, from dist/: CPU time per check (process.cpuUsage, so time
   * other work takes from this process does not count), to set beside the server's CPU per webhook post.
   */
  async function limiterCheckCost(hookId) {
    const { RateLimits } = await import('../../dist/src/http/rate-limits.js');
    const { MemoryRateStore } = await import('../../dist/src/lib/gcra.js');
    const { defaultConfig } = await import('../../dist/src/config/settings.js');
    const config = defaultConfig();
    Object.assign(config.RateLimitSettings, { Enable: true, PerSec: 1e6, MaxBurst: 1e6, WebhookPerSec: 1e6, WebhookMaxBurst: 1e6 });
    const store = () => new MemoryRateStore(() => config.RateLimitSettings.MemoryStoreSize);
    const limits = new RateLimits(() => config, store(), store());
    const socket = new Socket();
    Object.defineProperty(socket, 'remoteAddress', { value: '127.0.0.1' });
    const req = new http.IncomingMessage(socket);
    const res = new http.ServerResponse(req);
    const N = 200_000;
    const cpuUsPer = async (check) => {
      for (let i = 0; i < N / 4; i++) await check();
      const c0 = process.cpuUsage();
      // Awaited as the server would if the check answered with a promise (it does not for the in-memory store).
      for (let i = 0; i < N; i++) {
        const r = check();
        if (r instanceof Promise) await r;
      }
      const c = process.cpuUsage(c0);
      return (c.user + c.system) / N;
    };
    const out = {};
    for (let round = 0; round < 3; round++) {
      for (const [what, check] of [
        ['checkHook (per-hook limit)', () => limits.checkHook(hookId, res)],
        ['checkRequest (API limit, X-RateLimit headers)', () => limits.checkRequest(req, res)],
      ]) (out[what] ??= []).push(await cpuUsPer(check));
    }
    const checks = Object.fromEntries(Object.entries(out).map(([k, v]) => [k, median(v)]));
    for (const [k, v] of Object.entries(checks)) log(`  in-process ${k}: ${v.toFixed(2)} µs of CPU per check`);
    return checks;
  }

  // ---- 4. channel history at page 0 and at a deep cursor, small vs big channel ------------------------------
  async function historySection() {
    log('4. GetPostsForChannel: page 0 and deep cursor, small vs big channel');
    for (const [key, db] of Object.entries(dbs)) {
      const big = key === 'mysql' ? BIG_MYSQL : BIG;
      const seeded = await seedPosts({ ...db, channelId: worlds[key].big, userId: worlds[key].userId, count: big, label: `${key} ${big.toLocaleString('en-US')}` });
      worlds[key].bigAnchor = seeded.anchors[100];
      results.history[key] = { small: SMALL, big, seedSeconds: seeded.seconds, seedRowsPerS: big / seeded.seconds };
    }
    const targets = [];
    // The bare read baseline (bare-server.mjs sqlite-read) on Parley's own SQLite database, same request.
    const bareRead = await start(() => spawnBare('bare-sqlite-read', 'sqlite-read', dbs.sqlite.dataSource));
    targets.push({ key: 'bare-sqlite-read', url: `${bareRead.url}/api/v4/channels/${worlds.sqlite.small}/posts?page=0&per_page=60`, headers: { authorization: `Bearer ${worlds.sqlite.token}` }, proc: bareRead });
    for (const key of Object.keys(dbs)) {
      const wk = worlds[key];
      const headers = { authorization: `Bearer ${wk.token}` };
      const base = (ch) => `${parley[key].url}/api/v4/channels/${ch}/posts`;
      const proc = parley[key];
      targets.push(
        { key: `${key}-small-page0`, url: `${base(wk.small)}?page=0&per_page=60`, headers, proc },
        { key: `${key}-small-deep`, url: `${base(wk.small)}?before=${wk.smallAnchor}&per_page=60`, headers, proc },
        { key: `${key}-big-page0`, url: `${base(wk.big)}?page=0&per_page=60`, headers, proc },
        { key: `${key}-big-deep`, url: `${base(wk.big)}?before=${wk.bigAnchor}&per_page=60`, headers, proc },
      );
    }
    const hist = await rounds(targets, async (t, round) => {
      await load(t.url, { ...t, connections: HISTORY_CONNECTIONS, duration: round === 0 ? WARM : 1 });
      return measured(t, { connections: HISTORY_CONNECTIONS, duration: DURATION });
    });
    for (const [k, list] of hist) {
      if (k === 'bare-sqlite-read') {
        results.history.bareRead = summarise(list);
        continue;
      }
      const [db, size, where] = k.split('-');
      results.history[db][`${size}-${where}`] = summarise(list);
    }
    for (const key of Object.keys(dbs)) results.rss[key].afterHistoryMb = rssMb(parley[key].pid);
  }

  // ---- 5. cold start on the populated database --------------------------------------------------------------
  async function coldStartSection() {
    log('5. cold start to ready (spawn → first 200 from GetPing), populated database');
    for (const [key, db] of Object.entries(dbs)) {
      const times = [];
      const idle = [];
      for (let i = 0; i < 3; i++) {
        const p = await spawnParley(`cold-${key}`, db);
        times.push(p.readyMs);
        await sleep(500);
        idle.push(rssMb(p.pid));
        await p.stop();
      }
      results.coldStart[key].populatedMs = median(times);
      results.coldStart[key].runs = times.map((t) => Math.round(t));
      results.rss[key].idleAfterStartMb = median(idle);
    }
  }

  // ---- 6. file uploads: throughput and memory -----------------------------------------------------------------
  async function uploadSection() {
    log(`6. UploadFile: ${UPLOADS} concurrent ${UPLOAD_MB} MB uploads (multipart, streamed to the local directory), RSS sampled every 20 ms`);
    const targets = [];
    const bareDir = join(dir, 'bare-files');
    mkdirSync(bareDir, { recursive: true });
    const bareUpload = await start(() => spawnBare('bare-upload', 'upload', bareDir));
    targets.push({ key: 'bare-upload', url: `${bareUpload.url}/`, proc: bareUpload, dir: bareDir, token: '', channelId: 'x' });
    for (const [key, db] of Object.entries(dbs)) {
      const filesDir = join(dir, `files-${key}`);
      // A process of its own, storing in the bench's temporary directory, on the database the world is in.
      const proc = await start(() => spawnParley(`parley-${key}-upload`, { ...db, extraEnv: { MM_FILESETTINGS_DIRECTORY: filesDir } }));
      targets.push({ key: `parley-${key}`, url: `${proc.url}/api/v4/files`, proc, dir: filesDir, token: worlds[key].token, channelId: worlds[key].townId });
    }
    const out = await rounds(targets, async (t, round) => {
      if (round === 0) for (let i = 0; i < 3; i++) await streamUpload(t.url, { ...t, mb: 1, n: i });
      const baseline = rssMb(t.proc.pid);
      const sampler = sampleRss(t.proc.pid, 20);
      const cpu0 = cpuSeconds(t.proc.pid);
      const t0 = performance.now();
      const statuses = await Promise.all(Array.from({ length: UPLOADS }, (_, n) => streamUpload(t.url, { ...t, mb: UPLOAD_MB, n })));
      const seconds = (performance.now() - t0) / 1000;
      // Server CPU per MB stored: steadier than throughput on a machine shared with other work.
      const cpuMsPerMb = ((cpuSeconds(t.proc.pid) - cpu0) * 1000) / (UPLOADS * UPLOAD_MB);
      const { peak } = sampler.stop();
      // What was stored is dropped between runs: the disk holds one run at a time.
      rmSync(t.dir, { recursive: true, force: true });
      mkdirSync(t.dir, { recursive: true });
      const bad = statuses.filter((s) => s !== (t.key === 'bare-upload' ? 200 : 201)).length;
      return { rps: (UPLOADS * UPLOAD_MB) / seconds, seconds, cpuMsPerMb, baseline, peak, non2xx: bad, errors: 0, p50: NaN, p99: NaN };
    }, 'MB/s');
    for (const [k, list] of out) {
      results.upload[k] = {
        mbPerS: median(list.map((x) => x.rps)),
        seconds: median(list.map((x) => x.seconds)),
        cpuMsPerMb: median(list.map((x) => x.cpuMsPerMb)),
        baselineMb: median(list.map((x) => x.baseline)),
        peakMb: Math.max(...list.map((x) => x.peak)),
        growthMb: Math.max(...list.map((x) => x.peak - x.baseline)),
        failed: list.reduce((a, x) => a + x.non2xx, 0),
        runs: list.map((x) => Math.round(x.rps)),
      };
    }
  }

  // ---- 7. post search at 10k and 1M posts -------------------------------------------------------------------
  async function searchSection() {
    log('7. SearchPosts latency, one request at a time, at 10k and 1M posts (a database of its own per size run)');
    const { openDatabase } = await import('../../dist/src/store/db.js');
    const { createStores } = await import('../../dist/src/store/index.js');
    const { parseSearchTerms } = await import('../../dist/src/app/search-syntax.js');
    for (const key of Object.keys(dbs)) {
      const big = key === 'mysql' ? BIG_MYSQL : BIG;
      const db = key === 'sqlite' ? { driver: 'sqlite', dataSource: join(dir, 'search.db') } : { driver: 'mysql', ...(await createMysqlDatabase(MYSQL_SERVER, `parley_bench_search_${suffix}`)) };
      // --keep-search-db leaves the MariaDB search database in place (to try queries on it by hand); drop it after.
      if (db.drop && !flag('keep-search-db')) cleanups.push(db.drop);
      else if (db.drop) log(`  keeping the search database: ${db.dataSource}`);
      const proc = await start(() => spawnParley(`parley-search-${key}`, db));
      const w = await setupSearchWorld(proc.url);
      const corpus = { channels: w.channels.map((c) => c.id), hidden: w.hidden, users: w.users.map((u) => u.id) };
      results.search[key] = { sizes: {} };
      let seeded = 0;
      for (const size of [SMALL, big]) {
        // Posts [seeded, size) of a corpus of `big` posts: the small database holds the oldest part of the big one.
        const seed = await seedSearchPosts({ ...db, from: seeded, to: size, total: big, corpus, label: `${key} search ${size.toLocaleString('en-US')}` });
        seeded = size;
        const mid = new Date(searchPostTime(Math.floor(size / 2), big)).toISOString().slice(0, 10);
        const rare = SEARCH_VOCABULARY[7000];
        const queries = [
          ['a common word (5 % of posts)', { terms: 'deploy' }],
          ['two words', { terms: 'deploy staging' }],
          ['a rare word', { terms: rare }],
          ['a phrase', { terms: '"build failed on staging"' }],
          ['a prefix', { terms: 'deplo*' }],
          ['OR', { terms: 'rollback hotfix', is_or_search: true }],
          ['an exclusion', { terms: 'deploy -staging' }],
          ['from:', { terms: `from:${w.users[1].username} deploy` }],
          ['in:', { terms: `in:${w.channels[1].name} deploy` }],
          ['on: a day', { terms: `on:${mid} deploy` }],
          ['a hashtag', { terms: '#incident' }],
          ['filters only', { terms: `from:${w.users[2].username} in:${w.channels[2].name}` }],
          ['a short word ("we")', { terms: 'we deploy' }],
          ['only in channels the caller cannot read (worst case)', { terms: 'confidential' }],
        ];
        const rows = {};
        for (const [name, body] of queries) {
          if (!FILTER.test(`search-${name}`)) continue;
          const r = await sequentialLatency(`${proc.url}/api/v4/teams/${w.teamId}/posts/search`, { per_page: 60, ...body }, w.token);
          rows[name] = r;
          log(`  ${key} ${size.toLocaleString('en-US')} posts, ${name}: p50 ${fmt.ms(r.p50)} ms, p99 ${fmt.ms(r.p99)} ms, ${r.n} requests, ${pageSizes(r)} results on page 0`);
        }
        results.search[key].sizes[size] = { seedSeconds: seed.seconds, queries: rows };
      }
      // The plans of a typical search on the full database.
      const store = openDatabase({ driverName: db.driver, dataSource: db.dataSource });
      try {
        const parsed = parseSearchTerms('deploy staging');
        const q = { channelIds: corpus.channels, userIds: null, excludedUserIds: [], terms: parsed.terms, excludedTerms: [], orSearch: false, since: null, until: null, excludedRange: null, offset: 0, limit: 61 };
        results.search[key].plan = await createStores(store).search.explain(q);
        const filters = parseSearchTerms(`from:${w.users[2].username}`);
        results.search[key].filtersPlan = await createStores(store).search.explain({ ...q, terms: filters.terms, userIds: [w.users[2].id] });
      } finally {
        await store.close();
      }
      await proc.stop();
      processes.splice(processes.indexOf(proc), 1);
    }
  }

  if (runs('webhook')) await webhookSection();
  if (runs('validation')) await validationSection();
  if (runs('limiter')) await limiterSection();
  if (runs('history')) await historySection();
  if (runs('coldstart')) await coldStartSection();
  if (runs('upload')) await uploadSection();
  if (runs('search')) await searchSection();
  if (runs('realtime')) results.realtime = await realtimeSection({ dir, start, rounds, ROUNDS, DURATION, WARM, CONNECTIONS, PAYLOAD });
  results.meta.loadAfter = os.loadavg()[0];
  results.meta.totalSeconds = (Date.now() - started) / 1000;
}

function report() {
  const r = results;
  const m = r.meta;
  const wh = r.webhook;
  const out = [];
  const us = (v) => (Number.isFinite(v) ? v.toFixed(0) : '–');
  out.push(`Machine: ${m.cores} cores (${m.cpu}), ${m.memoryGb} GB, Linux ${m.kernel}; Node ${m.node}; SQLite ${m.sqlite}${m.mariadb ? `; MariaDB ${m.mariadb}` : ''}.`);
  out.push(
    `Run: ${m.date}, ${m.quick ? 'quick, ' : ''}${m.rounds} round(s), ${m.durationS} s per measured run after a warm-up, ${m.connections} connections, ` +
      `load generator on the same machine; medians; total ${Math.round(m.totalSeconds)} s; 1-min load average ${m.loadBefore.toFixed(2)} before, ${m.loadAfter?.toFixed(2)} after.`,
  );
  if (Object.keys(wh).length) {
    out.push('', '### Webhook POST, maximum rate (closed loop)', '');
    out.push(
      table(
        ['target', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'MariaDB CPU µs/req', 'non-2xx', 'runs (req/s)'],
        Object.entries(wh).map(([k, v]) => [k, fmt.int(v.rps), fmt.ms(v.p50), fmt.ms(v.p99), us(v.cpuUs), us(v.dbCpuUs), String(v.non2xx + v.errors), v.runs.join(', ')]),
      ),
    );
    const ratio = (a, b) => (wh[a] && wh[b] ? wh[a].rps / wh[b].rps : NaN);
    const verdict = (v, min) => (Number.isFinite(v) ? (v >= min ? 'met' : 'NOT met') : '–');
    const rows = [
      ['parley-sqlite / bare-sqlite-insert', ratio('parley-sqlite', 'bare-sqlite-insert'), '≥ 0.5×', verdict(ratio('parley-sqlite', 'bare-sqlite-insert'), 0.5)],
      ['parley-sqlite / bare-sqlite-normal-insert (WAL, synchronous=NORMAL)', ratio('parley-sqlite', 'bare-sqlite-normal-insert'), '≥ 0.7×', verdict(ratio('parley-sqlite', 'bare-sqlite-normal-insert'), 0.7)],
      // The same baseline with time-sortable ids, as Parley's posts have: what of the ratio the ids make.
      ['parley-sqlite / bare-sqlite-normal-insert-sortable-ids', ratio('parley-sqlite', 'bare-sqlite-normal-insert-sortable-ids'), '', ''],
      ['parley-sqlite / bare-http', ratio('parley-sqlite', 'bare-http'), '', ''],
    ];
    if (wh['parley-mysql']) {
      rows.push(
        ['parley-mysql / bare-mysql-naive', ratio('parley-mysql', 'bare-mysql-naive'), '≥ 5×', verdict(ratio('parley-mysql', 'bare-mysql-naive'), 5)],
        ['parley-mysql / bare-mysql-pool-insert', ratio('parley-mysql', 'bare-mysql-pool-insert'), '', ''],
        ['parley-mysql / bare-http', ratio('parley-mysql', 'bare-http'), '', ''],
        ['bare-http / bare-mysql-naive (ceiling of the MariaDB ratio)', ratio('bare-http', 'bare-mysql-naive'), '', ''],
      );
    }
    out.push('', table(['ratio', 'value', 'target', 'verdict'], rows.map(([a, b, c, d]) => [a, fmt.ratio(b), c, d])));
  }
  if (Object.keys(r.halfRate).length) {
    out.push('', '### Webhook POST at 50% of its maximum rate (fixed overall rate, autocannon in 10 staggered slots)', '');
    out.push(
      table(
        ['target', 'offered req/s', 'achieved req/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'non-2xx', 'p99 ≤ 25 ms'],
        Object.entries(r.halfRate).map(([k, v]) => [k, fmt.int(v.offered), fmt.int(v.rps), fmt.ms(v.p50), fmt.ms(v.p99), fmt.ms(v.p999), String(v.non2xx + v.errors), v.p99 <= 25 ? 'met' : 'NOT met']),
      ),
    );
  }
  const vrows = [];
  const pct = (x) => `${(x * 100).toFixed(2)} %`;
  for (const [what, v] of Object.entries(r.validation)) {
    vrows.push([what, fmt.int(v.rps), us(v.cpuUs), v.validationUs.toFixed(2), pct(v.cost), v.cost <= 0.1 ? 'met' : 'NOT met']);
  }
  if (vrows.length) {
    out.push('', '### Request validation: its CPU per request against the whole request (SQLite; the server\'s validators run in-process on the same request)', '');
    out.push(table(['path', 'req/s', 'server CPU µs/req', 'validation CPU µs/req', 'share', '≤ 10 %'], vrows));
    const create = r.validation.CreatePost?.rps;
    const hook = r.validation.webhook?.rps;
    if (create && hook) out.push('', table(['ratio', 'value', 'target', 'verdict'], [['CreatePost / webhook POST (SQLite)', fmt.ratio(create / hook), '≥ 0.5×', create / hook >= 0.5 ? 'met' : 'NOT met']]));
  }
  if (r.limiter.comparisons?.length) {
    const lim = r.limiter;
    out.push('', '### Rate limiters on vs off, webhook POST (SQLite; limits too high to refuse anything; set by PatchConfig, on and off back to back, median of the pairs)', '');
    out.push(Object.entries(lim.configs).map(([k, label]) => `- \`${k}\`: ${label}`).join('\n'));
    const lrows = lim.comparisons.map((c) => [
      `${c.on} vs ${c.off}`,
      fmt.int(c.onRuns.rps),
      fmt.int(c.offRuns.rps),
      c.costs.map(pct).join(', '),
      pct(c.cost),
      `${us(c.onRuns.cpuUs)} / ${us(c.offRuns.cpuUs)}`,
      pct(c.cpuCost),
      Number.isFinite(c.onRuns.dbCpuUs) || Number.isFinite(c.offRuns.dbCpuUs) ? `${us(c.onRuns.dbCpuUs)} / ${us(c.offRuns.dbCpuUs)}` : '–',
      String(c.onRuns.non2xx + c.onRuns.errors + c.offRuns.non2xx + c.offRuns.errors),
    ]);
    const aa = lim.comparisons.find((c) => c.on === c.off);
    if (aa) out.push('', `A/A (off vs off, the same pairs): ${aa.costs.map(pct).join(', ')}; the spread of a pair's cost when nothing differs.`);
    out.push('', table(['on vs off', 'on req/s', 'off req/s', 'cost per pair', 'throughput cost', 'server CPU µs/req on / off', 'CPU cost', 'Redis CPU µs/req on / off', 'non-2xx'], lrows));
    const verdicts = lim.comparisons.filter((c) => c.on !== c.off).map((c) => {
      const refused = c.onRuns.non2xx + c.onRuns.errors + c.offRuns.non2xx + c.offRuns.errors;
      return [`limiter cost ≤ 5 %: ${lim.configs[c.on]} vs ${lim.configs[c.off]}`, pct(c.cost), refused ? `NOT met (${refused} non-2xx)` : c.cost <= 0.05 ? 'met' : 'NOT met'];
    });
    out.push('', table(['target', 'throughput cost (median of pairs)', 'verdict'], verdicts));
    if (lim.checks) {
      const base = lim.comparisons.find((c) => c.off === 'off')?.offRuns.cpuUs;
      out.push(
        '',
        table(
          ['in-process check (in memory)', 'CPU µs per check', 'share of the server CPU per webhook post (limits off)'],
          Object.entries(lim.checks).map(([k, v]) => [k, v.toFixed(2), Number.isFinite(base) ? pct(v / base) : '–']),
        ),
      );
    }
  }
  const hrows = [];
  const hratios = [];
  for (const [db, h] of Object.entries(r.history)) {
    if (db === 'bareRead') continue;
    for (const k of ['small-page0', 'small-deep', 'big-page0', 'big-deep']) {
      if (!h[k]) continue;
      const size = k.startsWith('small') ? h.small : h.big;
      hrows.push([`${db}, ${size.toLocaleString('en-US')} posts, ${k.endsWith('deep') ? 'deep cursor' : 'page 0'}`, fmt.int(h[k].rps), fmt.ms(h[k].p50), fmt.ms(h[k].p99), us(h[k].cpuUs)]);
    }
    if (!['small-page0', 'small-deep', 'big-page0', 'big-deep'].every((k) => h[k])) continue;
    // Page 0 is answered from the kept copy of the channel's newest page (docs/api.md); a deep cursor builds its page
    // every time. So deep / page 0 compares a built page with a kept one: shown, without a verdict. That the cost
    // does not grow with the channel is the 1M / 10k pair.
    const pairs = [
      [`${db}: deep (built) / page 0 (kept answer), ${h.small.toLocaleString('en-US')} posts`, h['small-page0'].rps / h['small-deep'].rps, false],
      [`${db}: deep (built) / page 0 (kept answer), ${h.big.toLocaleString('en-US')} posts`, h['big-page0'].rps / h['big-deep'].rps, false],
      [`${db}: ${h.big.toLocaleString('en-US')} / ${h.small.toLocaleString('en-US')} posts, page 0`, h['small-page0'].rps / h['big-page0'].rps, true],
      [`${db}: ${h.big.toLocaleString('en-US')} / ${h.small.toLocaleString('en-US')} posts, deep cursor`, h['small-deep'].rps / h['big-deep'].rps, true],
    ];
    for (const [name, v, judged] of pairs) hratios.push([name, fmt.ratio(v), judged ? (v <= 1.2 ? 'met' : 'NOT met') : '']);
    hratios.push([`${db}: seeding ${h.big.toLocaleString('en-US')} posts`, `${h.seedSeconds.toFixed(1)} s (${fmt.int(h.seedRowsPerS)} rows/s)`, '']);
  }
  const bareRead = r.history.bareRead;
  if (bareRead) {
    hrows.push(['bare-sqlite-read (node:http + better-sqlite3), 10,000 posts, page 0', fmt.int(bareRead.rps), fmt.ms(bareRead.p50), fmt.ms(bareRead.p99), us(bareRead.cpuUs)]);
    const parleyRead = r.history.sqlite?.['small-page0'];
    if (parleyRead) {
      const v = parleyRead.rps / bareRead.rps;
      hratios.unshift(['GetPostsForChannel, SQLite, page 0: parley / bare-sqlite-read (throughput, ≥ 0.6×)', fmt.ratio(v), v >= 0.6 ? 'met' : 'NOT met']);
    }
    // A page Parley has to build (no kept answer: any cursor read, or page 0 right after a change) against the bare
    // read's page 0: the read path's own cost, without the kept copy.
    const built = r.history.sqlite?.['small-deep'];
    if (built) hratios.splice(1, 0, ['GetPostsForChannel, SQLite, a built page (deep cursor) / bare-sqlite-read page 0 (throughput)', fmt.ratio(built.rps / bareRead.rps), '']);
  }
  if (hrows.length) {
    out.push('', '### GetPostsForChannel (per_page=60), page 0 vs deep cursor (`before=` the 101st oldest post)', '');
    out.push(table(['case', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req'], hrows));
    if (hratios.length) out.push('', table(['ratio (time per request)', 'value', '≤ 1.2×'], hratios));
  }
  const srows = [];
  const splans = [];
  for (const [db, sr] of Object.entries(r.search)) {
    for (const [size, v] of Object.entries(sr.sizes)) {
      for (const [name, q] of Object.entries(v.queries)) srows.push([`${db}, ${Number(size).toLocaleString('en-US')} posts`, name, fmt.ms(q.p50), fmt.ms(q.p99), q.resultSizes ? pageSizes(q) : String(q.results), String(q.n)]);
      srows.push([`${db}, ${Number(size).toLocaleString('en-US')} posts`, '(seeding)', `${v.seedSeconds.toFixed(1)} s`, '', '', '']);
    }
    if (sr.plan) splans.push(`${db}, "deploy staging":`, ...sr.plan.map((l) => `  ${l}`), `${db}, filters only (from:):`, ...sr.filtersPlan.map((l) => `  ${l}`));
  }
  if (srows.length) {
    out.push('', '### SearchPosts (per_page=60), one request at a time', '');
    out.push(table(['database', 'search', 'p50 ms', 'p99 ms', 'results on page', 'requests'], srows));
    if (splans.length) out.push('', '```', ...splans, '```');
  }
  const crows = Object.entries(r.coldStart).map(([db, c]) => [
    db,
    fmt.int(c.firstStartMs),
    c.runs ? `${fmt.int(c.populatedMs)} (${c.runs.join(', ')})` : '–',
    fmt.mb(r.rss[db].idleAfterStartMb),
    fmt.mb(r.rss[db].webhookPeakMb),
    fmt.mb(r.rss[db].afterHistoryMb),
  ]);
  if (crows.length) {
    out.push('', '### Cold start and memory', '');
    out.push(table(['database', 'first start, empty DB (ms)', 'start, populated DB (ms, median (runs))', 'idle RSS MB', 'peak RSS, webhook load MB', 'RSS after history load MB'], crows));
  }
  const up = Object.entries(r.upload);
  if (up.length) {
    out.push('', `### UploadFile: ${UPLOADS} concurrent ${UPLOAD_MB} MB uploads (${UPLOADS * UPLOAD_MB} MB per run)`, '');
    out.push(
      table(
        ['target', 'MB/s', 's per run', 'server CPU ms/MB', 'RSS before MB', 'peak RSS MB', 'peak growth MB', 'failed', 'runs (MB/s)'],
        up.map(([k, v]) => [k, fmt.int(v.mbPerS), v.seconds.toFixed(2), v.cpuMsPerMb.toFixed(1), fmt.mb(v.baselineMb), fmt.mb(v.peakMb), fmt.mb(v.growthMb), String(v.failed), v.runs.join(', ')]),
      ),
    );
    const bareUp = r.upload['bare-upload'];
    const urows = up.filter(([k]) => k !== 'bare-upload' && bareUp).map(([k, v]) => [`${k} / bare-upload`, fmt.ratio(v.mbPerS / bareUp.mbPerS), fmt.ratio(v.cpuMsPerMb / bareUp.cpuMsPerMb)]);
    if (urows.length) out.push('', table(['ratio', 'throughput', 'server CPU per MB'], urows));
  }
  if (r.realtime) out.push('', realtimeReport(r.realtime));
  return out.join('\n');
}

if (!existsSync(join(ROOT, 'dist/src/main.js'))) {
  log('dist/src/main.js is missing: run `npm run build` first (`npm run bench` does).');
  process.exit(1);
}
main()
  .then(async () => {
    await cleanup();
    process.stdout.write(`\n${report()}\n`);
    const file = option('json', join(os.tmpdir(), `parley-bench-${Date.now()}.json`));
    writeFileSync(file, JSON.stringify(results, null, 2));
    log(`raw results: ${file}`);
  })
  .catch(async (err) => {
    log(`bench failed: ${err.stack ?? err}`);
    for (const p of processes) {
      if (p.ended?.()) log(`${p.name} ended: ${p.ended()}`);
      if (p.stderr()) log(`${p.name} stderr:\n${p.stderr()}`);
    }
    await cleanup();
    process.exit(1);
  });
