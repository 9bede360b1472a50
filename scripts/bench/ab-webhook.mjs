// The webhook path of this build against another build of Parley, in one run, and what SQLite's search index costs it.
//
//   node scripts/bench/ab-webhook.mjs --before=DIR [--pairs=6] [--duration=5] [--connections=50]
//
// DIR is a checkout of the code to compare with, built (for example `git worktree add /tmp/before <commit>`, then
// `npm ci && npm run build` in it). Three servers on SQLite, each with its own database, take the same closed-loop
// load in turn (the order rotates every pair): the before build, this build, and this build with the triggers that
// keep the search index (migration 008) dropped after start-up, so the last two differ only by the index. Each row is
// req/s and the server's CPU per request (from /proc, steadier than req/s on a shared machine); the medians and the
// per-pair ratios to the before build follow. Run it on a quiet machine: the three servers and autocannon share it.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { cpuSeconds, fmt, load, median, spawnParley } from './lib.mjs';

const option = (name, fallback) => {
  const a = process.argv.slice(2).find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : fallback;
};
const before = option('before');
if (!before || !existsSync(join(resolve(before), 'dist/src/main.js'))) {
  console.error('usage: node scripts/bench/ab-webhook.mjs --before=DIR (a checkout with dist/ built)');
  process.exit(2);
}
const PAIRS = Number(option('pairs', 6));
const DURATION = Number(option('duration', 5));
const CONNECTIONS = Number(option('connections', 50));
const PASSWORD = 'Passw0rd!bench';
const BODY = JSON.stringify({ text: 'Build 1234 of the service finished in 3 minutes 12 seconds: all tests passed.', username: 'ci-bot', icon_emoji: ':robot:' });
const SEARCH_TRIGGERS = ['post_search_insert', 'post_search_update', 'post_search_delete'];

const dir = mkdtempSync(join(os.tmpdir(), 'parley-ab-'));
const targets = [
  { name: 'before', root: resolve(before) },
  { name: 'this build', root: undefined },
  { name: 'this build, no search index', root: undefined, dropSearchIndex: true },
];

async function api(url, method, path, body, token) {
  const res = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body && JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return { body: await res.json(), token: res.headers.get('token') };
}

/** A user, a team and a hook into its town square: what the webhook load posts through. */
async function world(url) {
  await api(url, 'POST', '/api/v4/users', { username: 'bench', email: 'bench@example.com', password: PASSWORD });
  const { token } = await api(url, 'POST', '/api/v4/users/login', { login_id: 'bench', password: PASSWORD });
  const team = (await api(url, 'POST', '/api/v4/teams', { name: 'bench', display_name: 'Bench', type: 'O' }, token)).body;
  const town = (await api(url, 'GET', `/api/v4/teams/${team.id}/channels/name/town-square`, undefined, token)).body;
  const hook = (await api(url, 'POST', '/api/v4/hooks/incoming', { channel_id: town.id, display_name: 'bench' }, token)).body;
  return `${url}/hooks/${hook.id}`;
}

async function measure(t, duration) {
  const cpu0 = cpuSeconds(t.proc.pid);
  const r = await load(t.hookUrl, { method: 'POST', body: BODY, connections: CONNECTIONS, duration });
  const requests = r.rps * duration;
  return { ...r, cpuUs: ((cpuSeconds(t.proc.pid) - cpu0) * 1e6) / requests };
}

try {
  for (const [i, t] of targets.entries()) {
    const dataSource = join(dir, `ab-${i}.db`);
    t.proc = await spawnParley(`ab-${i}`, { driver: 'sqlite', dataSource, ...(t.root ? { root: t.root } : {}) });
    t.hookUrl = await world(t.proc.url);
    if (t.dropSearchIndex) {
      // A second connection on the WAL database while the server is idle: the server's next write sees no triggers.
      const db = new Database(dataSource);
      for (const name of SEARCH_TRIGGERS) db.exec(`DROP TRIGGER IF EXISTS ${name}`);
      db.close();
    }
    t.runs = [];
    await measure(t, 2);
  }
  for (let pair = 0; pair < PAIRS; pair++) {
    const order = [...targets.slice(pair % targets.length), ...targets.slice(0, pair % targets.length)];
    for (const t of order) {
      await measure(t, 1);
      const r = await measure(t, DURATION);
      t.runs.push(r);
      console.log(`pair ${pair + 1}, ${t.name}: ${fmt.int(r.rps)} req/s, ${fmt.int(r.cpuUs)} µs CPU/req, p99 ${r.p99} ms, non-2xx ${r.non2xx}`);
    }
  }
  console.log('');
  for (const t of targets) {
    const ratios = t.runs.map((r, i) => r.rps / targets[0].runs[i].rps);
    console.log(
      `${t.name}: median ${fmt.int(median(t.runs.map((r) => r.rps)))} req/s, ${fmt.int(median(t.runs.map((r) => r.cpuUs)))} µs CPU/req; ` +
        `/ before per pair ${ratios.map((x) => x.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)})`,
    );
  }
} finally {
  for (const t of targets) await t.proc?.stop();
  rmSync(dir, { recursive: true, force: true });
}
