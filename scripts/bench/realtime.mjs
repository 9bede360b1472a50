// The real-time section of `npm run bench` (`--only=realtime`): WebSocket delivery of webhook posts on SQLite.
//
//   - RSS per idle socket: a fresh Parley process, its RSS with no socket, then with 1,000 and 5,000 idle
//     authenticated sockets (one per user); and, after a full collection (through the process's inspector), with none
//     and with 5,000: what the sockets hold, without the garbage their handshakes left.
//   - Webhook throughput with 1,000 sockets connected (200 of them members of the hook's channel) vs without any: two
//     processes on the same database, one holding the sockets, measured in alternating rounds (closed loop, 50
//     connections, as the webhook section); and to a channel none of the socket holders is in (what holding them
//     costs a post, without delivery).
//   - Delivery latency at 50 % of the maximum rate measured with the sockets: from the webhook's `ok` (its response
//     fully read) to the `posted` event arriving at member sockets (observers), at a fixed rate spread evenly.
//   - Fan-out: a channel with 1,000 members, each with a socket; posts in a closed loop of a few connections; events
//     delivered per second across the 1,000 sockets and server CPU per delivered event.
//
// Users, sessions and memberships are seeded straight into the database with the project's own store layer (dist/)
// — through the API each account would cost an argon2 hash — before the measured processes start, so their caches are
// clean. The WebSocket clients are `ws` sockets in the bench process, authenticated with the Authorization header on
// the upgrade; they share the machine's cores with the servers and with autocannon.
import http from 'node:http';
import { join } from 'node:path';
import WebSocket from 'ws';
import { collectGarbage, cpuSeconds, fmt, load, log, median, newId, rssMb, sleep, spawnParley, table } from './lib.mjs';

const SOCKETS = 1000;
const TARGET_MEMBERS = 200;
const IDLE_SOCKETS = 5000;
/** Member sockets whose arrival times are recorded per post (the others only count what they receive). */
const OBSERVERS = 8;
const FANOUT_CONNECTIONS = 4;
const PASSWORD = 'Passw0rd!bench';
/** Per-hook and API rate limits off: the bench measures the server, not its limiter. */
export const ENV = { MM_RATELIMITSETTINGS_ENABLE: 'false', MM_RATELIMITSETTINGS_WEBHOOKPERSEC: '0' };
const POSTED = Buffer.from('{"event":"posted"');

async function api(url, method, path, body, token) {
  const res = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30000),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return { body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/**
 * Through the API: the admin, a team, the hook's channel, the fan-out channel and a quiet channel (no member has a
 * socket: what connected sockets cost a post that reaches none of them), a hook on each.
 */
export async function setupWorld(url) {
  await api(url, 'POST', '/api/v4/users', { username: 'rtadmin', email: 'rtadmin@example.com', password: PASSWORD });
  const token = (await api(url, 'POST', '/api/v4/users/login', { login_id: 'rtadmin', password: PASSWORD })).headers.get('token');
  const team = (await api(url, 'POST', '/api/v4/teams', { name: 'realtime', display_name: 'Realtime', type: 'O' }, token)).body;
  const channel = async (name) => (await api(url, 'POST', '/api/v4/channels', { team_id: team.id, name, display_name: name, type: 'O' }, token)).body.id;
  const target = await channel('rt-target');
  const fanout = await channel('rt-fanout');
  const quiet = await channel('rt-quiet');
  const hook = async (channelId) => (await api(url, 'POST', '/api/v4/hooks/incoming', { channel_id: channelId, display_name: 'CI' }, token)).body.id;
  return { teamId: team.id, target, fanout, targetHook: await hook(target), fanoutHook: await hook(fanout), quietHook: await hook(quiet) };
}

/**
 * `count` users straight into the database (one shared argon2 hash), each with a session, all on the team, the first
 * `targetMembers` in the target channel and the first `fanoutMembers` in the fan-out channel. Returns their tokens.
 */
export async function seedUsers({ driver, dataSource, world, count, targetMembers, fanoutMembers }) {
  const t0 = performance.now();
  const { openDatabase } = await import('../../dist/src/store/db.js');
  const { createStores } = await import('../../dist/src/store/index.js');
  const { hashPassword, hashToken } = await import('../../dist/src/lib/secrets.js');
  const { DEFAULT_NOTIFY_PROPS } = await import('../../dist/src/app/users.js');
  const db = openDatabase({ driverName: driver, dataSource });
  const stores = createStores(db);
  const password = await hashPassword(PASSWORD);
  const now = Date.now();
  const tokens = [];
  try {
    const PER_TRANSACTION = 1000;
    for (let from = 0; from < count; from += PER_TRANSACTION) {
      await stores.transaction(async (tx) => {
        for (let i = from; i < Math.min(count, from + PER_TRANSACTION); i++) {
          const id = newId();
          const username = `rt-user-${i}`;
          await tx.users.insert({
            id,
            create_at: now,
            update_at: now,
            delete_at: 0,
            username,
            auth_data: '',
            auth_service: '',
            email: `${username}@example.com`,
            email_verified: false,
            nickname: '',
            first_name: '',
            last_name: '',
            position: '',
            roles: 'system_user',
            allow_marketing: false,
            props: {},
            notify_props: { ...DEFAULT_NOTIFY_PROPS },
            last_password_update: now,
            last_picture_update: 0,
            failed_attempts: 0,
            locale: 'en',
            timezone: { useAutomaticTimezone: 'true', automaticTimezone: '', manualTimezone: '' },
            mfa_active: false,
            last_activity_at: 0,
            is_bot: false,
            bot_description: '',
            disable_welcome_email: false,
            password,
          });
          const token = newId();
          await tx.sessions.createSession({ id: newId(), tokenHash: hashToken(token), userId: id, createAt: now, expiresAt: now + 24 * 3600 * 1000, csrfToken: newId() });
          await tx.teams.insertMember({ team_id: world.teamId, user_id: id, scheme_admin: false, create_at: now });
          const member = { user_id: id, scheme_admin: false, now, msg_count: 0, msg_count_root: 0 };
          if (i < targetMembers) await tx.channels.insertMember({ ...member, channel_id: world.target });
          if (i < fanoutMembers) await tx.channels.insertMember({ ...member, channel_id: world.fanout });
          tokens.push(token);
        }
      });
    }
  } finally {
    await db.close();
  }
  log(`  seeded ${count.toLocaleString('en-US')} users with sessions (${targetMembers} in the hook's channel, ${fanoutMembers} in the fan-out channel) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return tokens;
}

/**
 * A client socket: resolves once `hello` arrived. Counts `posted` frames; an observer also records when each post
 * arrived (by post id). `onClose` is told about sockets that close while the bench still wants them.
 */
function openSocket(baseUrl, token, { observer = false, stats }) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/api/v4/websocket`, { headers: { authorization: `Bearer ${token}` }, perMessageDeflate: false, handshakeTimeout: 20000 });
    const sock = { ws, posted: 0, arrivals: observer ? new Map() : undefined, wanted: true };
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error('no hello within 30 s'));
    }, 30000);
    let greeted = false;
    ws.on('message', (data) => {
      if (!greeted) {
        greeted = true;
        clearTimeout(timer);
        resolve(sock);
        return;
      }
      stats.frames++;
      if (data.length > POSTED.length && data.compare(POSTED, 0, POSTED.length, 0, POSTED.length) === 0) {
        sock.posted++;
        stats.posted++;
        if (sock.arrivals) {
          const t = performance.now();
          sock.arrivals.set(JSON.parse(JSON.parse(data.toString()).data.post).id, t);
        }
      }
    });
    ws.on('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      reject(new Error(`websocket upgrade answered ${res.statusCode}`));
    });
    ws.on('error', (err) => {
      clearTimeout(timer);
      if (!greeted) reject(err);
    });
    ws.on('close', () => {
      if (greeted && sock.wanted) stats.dropped++;
    });
  });
}

/** Opens one socket per token, `parallel` handshakes at a time; observers are the first `observers` tokens. */
export async function openSockets(baseUrl, tokens, { observers = 0, parallel = 100, stats }) {
  const out = new Array(tokens.length);
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < tokens.length) {
      const i = next++;
      out[i] = await openSocket(baseUrl, tokens[i], { observer: i < observers, stats });
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  log(`  ${tokens.length.toLocaleString('en-US')} sockets open in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return out;
}

export async function closeSockets(sockets) {
  await Promise.all(
    sockets.filter(Boolean).map(
      (s) =>
        new Promise((resolve) => {
          s.wanted = false;
          if (s.ws.readyState === WebSocket.CLOSED) return resolve();
          const timer = setTimeout(() => {
            s.ws.terminate();
            resolve();
          }, 5000);
          s.ws.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          s.ws.close();
        }),
    ),
  );
}

/** The median of a few RSS samples, 200 ms apart. */
async function steadyRss(pid) {
  const v = [];
  for (let i = 0; i < 5; i++) {
    v.push(rssMb(pid));
    await sleep(200);
  }
  return median(v);
}

/** One webhook POST on a keep-alive agent; resolves with send time, `ok` time, status and the post ids. */
function postHook(url, body, agent) {
  return new Promise((resolve) => {
    const rec = { sent: performance.now(), ok: NaN, status: 0, ids: [] };
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => {
        rec.ok = performance.now();
        rec.status = res.statusCode;
        rec.ids = String(res.headers['x-post-ids'] ?? '').split(',').filter(Boolean);
        resolve(rec);
      });
    });
    req.setTimeout(30000, () => req.destroy(new Error('timeout')));
    req.on('error', (err) => {
      rec.error = err.message;
      resolve(rec);
    });
    req.end(body);
  });
}

/** Webhook posts at a fixed rate, spread evenly (dispatched every millisecond as they fall due). */
export async function postAtRate(url, body, { rate, duration, connections }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const total = Math.max(1, Math.round(rate * duration));
  const pending = [];
  const t0 = performance.now();
  await new Promise((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate) + 1);
      while (pending.length < due) pending.push(postHook(url, body, agent));
      if (pending.length < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  const records = await Promise.all(pending);
  agent.destroy();
  return records;
}

/** Webhook posts in a closed loop of `connections` for `duration` seconds. */
export async function postClosedLoop(url, body, { connections, duration }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const until = performance.now() + duration * 1000;
  const records = [];
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) records.push(await postHook(url, body, agent));
    }),
  );
  agent.destroy();
  return records;
}

/** Waits until `done()` or until nothing new arrived for `quietMs`; returns when the last progress was seen. */
export async function drain(done, progress, quietMs = 3000) {
  let last = progress();
  let lastAt = performance.now();
  while (!done()) {
    await sleep(20);
    const p = progress();
    if (p !== last) {
      last = p;
      lastAt = performance.now();
    } else if (performance.now() - lastAt > quietMs) break;
  }
  return lastAt;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

const bad = (records) => records.filter((r) => r.status !== 200).length;

/**
 * The section. `ctx` comes from run.mjs: dir (a temporary directory), start (spawns and registers a process for the
 * final cleanup), rounds (alternating rounds), ROUNDS, DURATION, WARM, CONNECTIONS, PAYLOAD.
 */
export async function realtimeSection(ctx) {
  const { dir, start, rounds, ROUNDS, DURATION, WARM, CONNECTIONS, PAYLOAD } = ctx;
  const out = { sockets: SOCKETS, targetMembers: TARGET_MEMBERS, idleSockets: IDLE_SOCKETS, observers: OBSERVERS, fanoutConnections: FANOUT_CONNECTIONS };
  log(`8. real-time events (SQLite): RSS per idle socket, webhook throughput with ${SOCKETS} sockets, delivery latency, fan-out`);
  const db = { driver: 'sqlite', dataSource: join(dir, 'realtime.db'), extraEnv: ENV };
  const stats = { frames: 0, posted: 0, dropped: 0 };
  const all = [];
  const stopped = [];
  const stop = async (p) => {
    await p.stop();
    stopped.push(p);
  };
  try {
    // ---- the world, then the users straight into the database, then fresh processes -------------------------
    const setup = await start(() => spawnParley('parley-rt-setup', db));
    const world = await setupWorld(setup.url);
    await stop(setup);
    const tokens = await seedUsers({ ...db, world, count: IDLE_SOCKETS, targetMembers: TARGET_MEMBERS, fanoutMembers: SOCKETS });

    // ---- RSS per idle socket -------------------------------------------------------------------------------
    // With an inspector, for the full collections below (nothing else uses it).
    const fresh = await start(() => spawnParley('parley-rt-idle', { ...db, nodeArgs: ['--inspect=127.0.0.1:0'] }));
    await sleep(2000);
    const rss0 = await steadyRss(fresh.pid);
    await collectGarbage(fresh);
    const held0 = await steadyRss(fresh.pid);
    let t = performance.now();
    const idle = await openSockets(fresh.url, tokens.slice(0, SOCKETS), { stats });
    out.opens = { first: SOCKETS, firstS: (performance.now() - t) / 1000 };
    all.push(...idle);
    await sleep(3000);
    const rss1k = await steadyRss(fresh.pid);
    t = performance.now();
    idle.push(...(await openSockets(fresh.url, tokens.slice(SOCKETS), { stats })));
    Object.assign(out.opens, { more: IDLE_SOCKETS - SOCKETS, moreS: (performance.now() - t) / 1000 });
    all.splice(0, all.length, ...idle);
    await sleep(3000);
    const rss5k = await steadyRss(fresh.pid);
    await collectGarbage(fresh);
    const held5k = await steadyRss(fresh.pid);
    out.rss = {
      zeroMb: rss0,
      oneKMb: rss1k,
      fiveKMb: rss5k,
      perSocketKb: ((rss5k - rss0) * 1024) / IDLE_SOCKETS,
      marginalKb: ((rss5k - rss1k) * 1024) / (IDLE_SOCKETS - SOCKETS),
      heldZeroMb: held0,
      heldFiveKMb: held5k,
      heldPerSocketKb: ((held5k - held0) * 1024) / IDLE_SOCKETS,
    };
    log(
      `  RSS: ${fmt.mb(rss0)} MB with no socket, ${fmt.mb(rss1k)} MB with ${SOCKETS}, ${fmt.mb(rss5k)} MB with ${IDLE_SOCKETS}: ${out.rss.perSocketKb.toFixed(1)} KB per socket (${out.rss.marginalKb.toFixed(1)} KB from ${SOCKETS} to ${IDLE_SOCKETS}); ` +
        `after a full collection ${fmt.mb(held0)} → ${fmt.mb(held5k)} MB: ${out.rss.heldPerSocketKb.toFixed(1)} KB per socket held`,
    );
    await closeSockets(idle);
    all.length = 0;
    await stop(fresh);

    // ---- two processes on the database: one holds 1,000 sockets, the other none -----------------------------
    const withSockets = await start(() => spawnParley('parley-rt-sockets', db));
    const noSockets = await start(() => spawnParley('parley-rt-nosockets', db));
    // Observers are members of both channels (the first users); the first 200 are the hook channel's members.
    const sockets = await openSockets(withSockets.url, tokens.slice(0, SOCKETS), { observers: OBSERVERS, stats });
    all.push(...sockets);
    const observers = sockets.slice(0, OBSERVERS);
    const members = sockets.slice(0, TARGET_MEMBERS);
    const hookUrl = (p, hook) => `${p.url}/hooks/${hook}`;

    // ---- webhook throughput with and without sockets, alternating rounds --------------------------------------
    const targets = [
      { key: 'rt-no-sockets', url: hookUrl(noSockets, world.targetHook), method: 'POST', body: PAYLOAD, proc: noSockets },
      { key: `rt-${SOCKETS}-sockets`, url: hookUrl(withSockets, world.targetHook), method: 'POST', body: PAYLOAD, proc: withSockets },
      // The same sockets, posting to a channel none of their users is in: what holding them costs, without delivery.
      { key: `rt-${SOCKETS}-sockets-none-members`, url: hookUrl(withSockets, world.quietHook), method: 'POST', body: PAYLOAD, proc: withSockets },
    ];
    for (const t of targets) await load(t.url, { ...t, connections: CONNECTIONS, duration: WARM + 1 });
    const through = await rounds(targets, async (t) => {
      await load(t.url, { ...t, connections: CONNECTIONS, duration: WARM });
      const cpu0 = cpuSeconds(t.proc.pid);
      const bench0 = process.cpuUsage();
      const posted0 = stats.posted;
      const dropped0 = stats.dropped;
      const r = await load(t.url, { ...t, connections: CONNECTIONS, duration: DURATION });
      const answered = r.rps * DURATION;
      const cpuUs = ((cpuSeconds(t.proc.pid) - cpu0) / answered) * 1e6;
      const b = process.cpuUsage(bench0);
      // Let what is still in flight arrive before the next run (and count it for this one).
      if (t.proc === withSockets) await drain(() => false, () => stats.posted, 1000);
      return { ...r, cpuUs, benchCpuUs: ((b.user + b.system) / answered), delivered: stats.posted - posted0, dropped: stats.dropped - dropped0 };
    });
    out.throughput = {};
    for (const [k, list] of through) {
      out.throughput[k] = {
        rps: median(list.map((x) => x.rps)),
        p50: median(list.map((x) => x.p50)),
        p99: median(list.map((x) => x.p99)),
        cpuUs: median(list.map((x) => x.cpuUs)),
        benchCpuUs: median(list.map((x) => x.benchCpuUs)),
        delivered: list.reduce((a, x) => a + x.delivered, 0),
        dropped: list.reduce((a, x) => a + x.dropped, 0),
        non2xx: list.reduce((a, x) => a + x.non2xx + x.errors, 0),
        runs: list.map((x) => Math.round(x.rps)),
      };
    }
    const withKey = `rt-${SOCKETS}-sockets`;
    out.throughput.ratio = out.throughput[withKey].rps / out.throughput['rt-no-sockets'].rps;
    out.throughput.ratioNoMembers = out.throughput[`${withKey}-none-members`].rps / out.throughput['rt-no-sockets'].rps;
    log(`  throughput with ${SOCKETS} sockets / without: ${fmt.ratio(out.throughput.ratio)} (${TARGET_MEMBERS} members); ${fmt.ratio(out.throughput.ratioNoMembers)} (none of them in the channel)`);

    // ---- delivery latency at 50 % of the maximum rate with the sockets -----------------------------------------
    const rate = out.throughput[withKey].rps / 2;
    out.latency = { rate, runs: [] };
    for (let r = 0; r < ROUNDS; r++) {
      await drain(() => false, () => stats.posted, 500);
      for (const o of observers) o.arrivals.clear();
      const before = members.reduce((a, s) => a + s.posted, 0);
      const outsiders0 = sockets.slice(TARGET_MEMBERS).reduce((a, s) => a + s.posted, 0);
      const dropped0 = stats.dropped;
      const cpu0 = cpuSeconds(withSockets.pid);
      const records = await postAtRate(hookUrl(withSockets, world.targetHook), PAYLOAD, { rate, duration: DURATION, connections: CONNECTIONS });
      const okRecords = records.filter((x) => x.status === 200);
      const ids = okRecords.flatMap((x) => x.ids);
      await drain(
        () => observers.every((o) => ids.every((id) => o.arrivals.has(id))),
        () => observers.reduce((a, o) => a + o.arrivals.size, 0),
      );
      await drain(() => members.reduce((a, s) => a + s.posted, 0) - before >= ids.length * TARGET_MEMBERS, () => stats.posted, 1000);
      const serverCpuS = cpuSeconds(withSockets.pid) - cpu0;
      const delivery = [];
      const whole = [];
      const request = [];
      let missing = 0;
      for (const rec of okRecords) {
        request.push(rec.ok - rec.sent);
        for (const o of observers) {
          for (const id of rec.ids) {
            const at = o.arrivals.get(id);
            if (at === undefined) {
              missing++;
              continue;
            }
            delivery.push(at - rec.ok);
            whole.push(at - rec.sent);
          }
        }
      }
      const sort = (a) => Float64Array.from(a).sort();
      const [d, w, q] = [sort(delivery), sort(whole), sort(request)];
      const run = {
        offered: rate,
        achieved: okRecords.length / DURATION,
        failed: bad(records),
        p50: percentile(d, 0.5),
        p99: percentile(d, 0.99),
        max: d[d.length - 1],
        before: d.length ? d.filter((x) => x < 0).length / d.length : NaN,
        wholeP50: percentile(w, 0.5),
        wholeP99: percentile(w, 0.99),
        requestP50: percentile(q, 0.5),
        requestP99: percentile(q, 0.99),
        samples: d.length,
        missing,
        memberEvents: members.reduce((a, s) => a + s.posted, 0) - before,
        expectedMemberEvents: ids.length * TARGET_MEMBERS,
        outsiderEvents: sockets.slice(TARGET_MEMBERS).reduce((a, s) => a + s.posted, 0) - outsiders0,
        dropped: stats.dropped - dropped0,
        serverCpuS,
      };
      out.latency.runs.push(run);
      log(
        `  round ${r + 1}/${ROUNDS} latency at ${fmt.int(rate)} posts/s (achieved ${fmt.int(run.achieved)}): ok → posted p50 ${fmt.ms(run.p50)} ms, p99 ${fmt.ms(run.p99)} ms` +
          ` (request → posted p99 ${fmt.ms(run.wholeP99)} ms; webhook request p99 ${fmt.ms(run.requestP99)} ms); ${run.memberEvents}/${run.expectedMemberEvents} member events, ${run.outsiderEvents} to non-members, ${run.missing} missing at observers, ${run.dropped} sockets dropped, ${run.failed} failed posts`,
      );
    }
    const lr = out.latency.runs;
    for (const k of ['achieved', 'p50', 'p99', 'max', 'before', 'wholeP50', 'wholeP99', 'requestP50', 'requestP99']) out.latency[k] = median(lr.map((x) => x[k]));
    for (const k of ['missing', 'dropped', 'failed', 'memberEvents', 'expectedMemberEvents', 'outsiderEvents']) out.latency[k] = lr.reduce((a, x) => a + x[k], 0);

    // ---- fan-out to 1,000 member sockets -------------------------------------------------------------------------
    out.fanout = { runs: [] };
    const fanUrl = hookUrl(withSockets, world.fanoutHook);
    await postClosedLoop(fanUrl, PAYLOAD, { connections: FANOUT_CONNECTIONS, duration: WARM });
    for (let r = 0; r < ROUNDS; r++) {
      await drain(() => false, () => stats.posted, 1000);
      const posted0 = stats.posted;
      const dropped0 = stats.dropped;
      for (const o of observers) o.arrivals.clear();
      const cpu0 = cpuSeconds(withSockets.pid);
      const bench0 = process.cpuUsage();
      const t0 = performance.now();
      const records = await postClosedLoop(fanUrl, PAYLOAD, { connections: FANOUT_CONNECTIONS, duration: DURATION });
      const okRecords = records.filter((x) => x.status === 200);
      const expected = okRecords.reduce((a, x) => a + x.ids.length, 0) * SOCKETS;
      const lastAt = await drain(() => stats.posted - posted0 >= expected, () => stats.posted);
      const seconds = (lastAt - t0) / 1000;
      const events = stats.posted - posted0;
      const serverCpuS = cpuSeconds(withSockets.pid) - cpu0;
      const b = process.cpuUsage(bench0);
      const lag = [];
      for (const rec of okRecords) for (const o of observers) for (const id of rec.ids) if (o.arrivals.has(id)) lag.push(o.arrivals.get(id) - rec.ok);
      const l = Float64Array.from(lag).sort();
      const run = {
        posts: okRecords.length,
        postsPerS: okRecords.length / DURATION,
        events,
        expected,
        seconds,
        eventsPerS: events / seconds,
        cpuUsPerEvent: (serverCpuS / events) * 1e6,
        serverCores: serverCpuS / seconds,
        benchCpuUsPerEvent: ((b.user + b.system) / events),
        lagP50: percentile(l, 0.5),
        lagP99: percentile(l, 0.99),
        failed: bad(records),
        dropped: stats.dropped - dropped0,
      };
      out.fanout.runs.push(run);
      log(
        `  round ${r + 1}/${ROUNDS} fan-out: ${fmt.int(run.postsPerS)} posts/s × ${SOCKETS} members → ${fmt.int(run.eventsPerS)} events/s delivered (${run.events}/${run.expected} in ${seconds.toFixed(2)} s), ` +
          `server ${run.cpuUsPerEvent.toFixed(2)} µs CPU per event (${run.serverCores.toFixed(2)} cores), bench client ${run.benchCpuUsPerEvent.toFixed(2)} µs per event; ok → posted p50 ${fmt.ms(run.lagP50)} ms, p99 ${fmt.ms(run.lagP99)} ms; ${run.dropped} sockets dropped, ${run.failed} failed posts`,
      );
    }
    for (const k of ['postsPerS', 'eventsPerS', 'cpuUsPerEvent', 'serverCores', 'benchCpuUsPerEvent', 'lagP50', 'lagP99', 'seconds']) out.fanout[k] = median(out.fanout.runs.map((x) => x[k]));
    for (const k of ['events', 'expected', 'failed', 'dropped']) out.fanout[k] = out.fanout.runs.reduce((a, x) => a + x[k], 0);
    out.fanout.runsEventsPerS = out.fanout.runs.map((x) => Math.round(x.eventsPerS));

    await closeSockets(sockets);
    all.length = 0;
    await stop(withSockets);
    await stop(noSockets);
    return out;
  } finally {
    await closeSockets(all);
  }
}

/** The section's tables, for the report. */
export function realtimeReport(rt) {
  const out = [];
  const verdict = (ok) => (ok ? 'met' : 'NOT met');
  const us = (v, d = 0) => (Number.isFinite(v) ? v.toFixed(d) : '–');
  out.push(`### Real-time events (SQLite; WebSocket clients in the bench process, on the same 2 cores)`, '');
  if (rt.throughput) {
    const rows = Object.entries(rt.throughput)
      .filter(([k]) => !k.startsWith('ratio'))
      .map(([k, v]) => [k, fmt.int(v.rps), fmt.ms(v.p50), fmt.ms(v.p99), us(v.cpuUs), us(v.benchCpuUs), fmt.int(v.delivered), String(v.dropped), String(v.non2xx), v.runs.join(', ')]);
    out.push(table(['webhook POST, closed loop', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'bench process CPU µs/req', 'posted events received', 'sockets dropped', 'non-2xx', 'runs (req/s)'], rows), '');
  }
  const goals = [];
  if (rt.latency) {
    const l = rt.latency;
    out.push(
      table(
        ['delivery at 50 % of the max rate with sockets', 'offered posts/s', 'achieved', 'ok → posted p50 ms', 'p99 ms', 'max ms', 'request → posted p50 / p99 ms', 'webhook request p50 / p99 ms', 'member events (expected)', 'to non-members', 'dropped'],
        [[`${rt.targetMembers} member sockets of ${rt.sockets}, ${rt.observers} observers`, fmt.int(l.rate), fmt.int(l.achieved), fmt.ms(l.p50), fmt.ms(l.p99), fmt.ms(l.max), `${fmt.ms(l.wholeP50)} / ${fmt.ms(l.wholeP99)}`, `${fmt.ms(l.requestP50)} / ${fmt.ms(l.requestP99)}`, `${l.memberEvents} (${l.expectedMemberEvents})`, String(l.outsiderEvents), String(l.dropped)]],
      ),
      '',
    );
    goals.push([`Delivery p99 (webhook ok → posted), ${rt.sockets} sockets, 50 % of max rate`, `${fmt.ms(l.p99)} ms (p50 ${fmt.ms(l.p50)} ms)`, '≤ 50 ms', verdict(l.p99 <= 50)]);
  }
  if (rt.fanout) {
    const f = rt.fanout;
    out.push(
      table(
        [`fan-out to ${rt.sockets} member sockets`, 'posts/s', 'events/s delivered', 'server CPU µs/event', 'server cores busy', 'bench client CPU µs/event', 'ok → posted p50 / p99 ms', 'events (expected)', 'dropped', 'runs (events/s)'],
        [[`closed loop, ${rt.fanoutConnections} connections`, fmt.int(f.postsPerS), fmt.int(f.eventsPerS), us(f.cpuUsPerEvent, 2), us(f.serverCores, 2), us(f.benchCpuUsPerEvent, 2), `${fmt.ms(f.lagP50)} / ${fmt.ms(f.lagP99)}`, `${f.events} (${f.expected})`, String(f.dropped), f.runsEventsPerS.join(', ')]],
      ),
      '',
    );
  }
  if (rt.rss) {
    const r = rt.rss;
    out.push(
      table(
        ['idle sockets', 'RSS 0 MB', `RSS ${rt.sockets} MB`, `RSS ${rt.idleSockets} MB`, 'KB per socket (0 → 5,000)', `KB per socket (${rt.sockets} → ${rt.idleSockets})`, 'after a full collection: RSS 0 → 5,000 MB', 'KB per socket held'],
        [['authenticated, one per user', fmt.mb(r.zeroMb), fmt.mb(r.oneKMb), fmt.mb(r.fiveKMb), us(r.perSocketKb, 1), us(r.marginalKb, 1), `${fmt.mb(r.heldZeroMb)} → ${fmt.mb(r.heldFiveKMb)}`, us(r.heldPerSocketKb, 1)]],
      ),
      '',
    );
    goals.push([`RSS per idle socket, ${rt.idleSockets} open`, `${us(r.perSocketKb, 1)} KB`, '≤ 30 KB', verdict(r.perSocketKb <= 30)]);
  }
  if (rt.opens) {
    const o = rt.opens;
    out.push(table(['sockets opened (100 handshakes at a time)', 'seconds', 'per second'], [[`first ${fmt.int(o.first)}`, o.firstS.toFixed(1), fmt.int(o.first / o.firstS)], [`next ${fmt.int(o.more)}`, o.moreS.toFixed(1), fmt.int(o.more / o.moreS)]]), '');
  }
  if (rt.throughput) {
    goals.push([`Webhook throughput with ${rt.sockets} sockets (${rt.targetMembers} members) / without`, fmt.ratio(rt.throughput.ratio), '≥ 0.8×', verdict(rt.throughput.ratio >= 0.8)]);
    goals.push([`Webhook throughput with ${rt.sockets} sockets (none in the channel) / without`, fmt.ratio(rt.throughput.ratioNoMembers), '≥ 0.8×', verdict(rt.throughput.ratioNoMembers >= 0.8)]);
  }
  if (goals.length) out.push(table(['goal', 'value', 'target', 'verdict'], goals));
  return out.join('\n');
}
