// What calls out of the server cost the poster, in one run on SQLite:
//   outgoing — CreatePost throughput in a channel with an outgoing webhook (a real integration on 127.0.0.1 that
//              answers at once) against a channel without one, same process, alternating rounds; and the calls made
//              per post (exactly one is the goal).
//   email    — webhook and CreatePost throughput with email notifications on (a real SMTP server receiving) against
//              off, each post mentioning a user who is offline (so every post queues an email); the outbox is
//              drained before each next round, so no round pays for another's mail.
// Usage: npm run build && node scripts/bench/integrations.mjs [--only=outgoing,email] [--rounds=N] [--duration=S] [--json=FILE]
import { createServer } from 'node:http';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { cpuSeconds, fmt, load, log, median, sleep, spawnParley, table } from './lib.mjs';

const option = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const ROUNDS = Number(option('rounds', 3));
const DURATION = Number(option('duration', 5));
const ONLY = option('only', 'outgoing,email').split(',');
const CONNECTIONS = 50;
const PASSWORD = 'Passw0rd!bench';

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

/** Waits until `done()` holds, checking every 50 ms, at most `ms`. */
async function until(done, ms, what) {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function listen(server) {
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return server.address().port;
}

const results = { meta: { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS, at: new Date().toISOString() } };
const dir = mkdtempSync(join(tmpdir(), 'parley-bench-int-'));
const stops = [];

async function main() {
  // The integration: answers every call at once with an empty JSON object (nothing to post back).
  let calls = 0;
  const calledFor = new Map();
  const integration = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      calls++;
      try {
        const id = JSON.parse(body).post_id;
        calledFor.set(id, (calledFor.get(id) ?? 0) + 1);
      } catch {}
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  const integrationPort = await listen(integration);
  stops.push(() => new Promise((r) => { integration.closeAllConnections(); integration.close(r); }));

  // The SMTP server: accepts every message.
  let mails = 0;
  const smtp = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], logger: false, onData(stream, _s, cb) { stream.resume(); stream.on('end', () => { mails++; cb(); }); } });
  // A client that drops its kept connection (Parley's idle close) can reset it: not an error of the bench.
  smtp.on('error', () => {});
  const smtpPort = await new Promise((r) => smtp.listen(0, '127.0.0.1', () => r(smtp.server.address().port)));
  stops.push(() => new Promise((r) => smtp.close(r)));

  const proc = await spawnParley('parley-integrations', {
    driver: 'sqlite',
    dataSource: join(dir, 'parley.db'),
    extraEnv: {
      MM_SERVICESETTINGS_ALLOWEDUNTRUSTEDINTERNALCONNECTIONS: '127.0.0.1',
      MM_EMAILSETTINGS_SMTPSERVER: '127.0.0.1',
      MM_EMAILSETTINGS_SMTPPORT: String(smtpPort),
      MM_EMAILSETTINGS_FEEDBACKEMAIL: 'bench@example.com',
    },
    // For a look inside: e.g. PARLEY_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" (written when the server stops).
    nodeArgs: (process.env.PARLEY_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
  });
  stops.push(() => proc.stop());

  const admin = (await api(proc.url, 'POST', '/api/v4/users', { username: 'bench', email: 'bench@example.com', password: PASSWORD })).body;
  const token = (await api(proc.url, 'POST', '/api/v4/users/login', { login_id: 'bench', password: PASSWORD })).headers.get('token');
  const team = (await api(proc.url, 'POST', '/api/v4/teams', { name: 'bench', display_name: 'Bench', type: 'O' }, token)).body;
  const channel = async (name) => (await api(proc.url, 'POST', '/api/v4/channels', { team_id: team.id, name, display_name: name, type: 'O' }, token)).body.id;
  const auth = { authorization: `Bearer ${token}` };
  const createPost = (channelId, message) => ({ url: `${proc.url}/api/v4/posts`, method: 'POST', headers: auth, body: JSON.stringify({ channel_id: channelId, message }) });
  const config = (patch) => api(proc.url, 'PUT', '/api/v4/config/patch', patch, token);

  /** Alternating rounds of the targets (order rotated each round); `between` runs after every run. */
  async function rounds(targets, between = async () => {}) {
    const out = Object.fromEntries(targets.map((t) => [t.key, []]));
    for (const t of targets) await load(t.url, { ...t, connections: CONNECTIONS, duration: 1 }), await between(t);
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < targets.length; i++) {
        const t = targets[(i + r) % targets.length];
        if (t.before) await t.before();
        const cpu0 = cpuSeconds(proc.pid);
        const mails0 = mails;
        const res = await load(t.url, { ...t, connections: CONNECTIONS, duration: DURATION });
        // The server's CPU per answered request over the run (background work of the run included).
        res.cpuUs = ((cpuSeconds(proc.pid) - cpu0) * 1e6) / Math.max(1, res.rps * DURATION);
        res.mailsDuring = mails - mails0;
        if (process.env.BENCH_DEBUG) console.log(JSON.stringify(res));
        out[t.key].push(res);
        log(`  round ${r + 1}/${ROUNDS} ${t.key}: ${fmt.int(res.rps)} req/s, p99 ${fmt.ms(res.p99)} ms, server CPU ${fmt.int(res.cpuUs)} µs/req${t.mail ? `, ${res.mailsDuring} emails sent during it` : ''}${res.non2xx || res.errors ? `, NON-2XX ${res.non2xx}, ERRORS ${res.errors}` : ''}`);
        await between(t, res);
      }
    }
    return Object.fromEntries(Object.entries(out).map(([k, list]) => [k, { rps: median(list.map((x) => x.rps)), p99: median(list.map((x) => x.p99)), cpuUs: median(list.map((x) => x.cpuUs)), runs: list.map((x) => Math.round(x.rps)), posts: list.reduce((a, x) => a + Math.round(x.rps * DURATION), 0), non2xx: list.reduce((a, x) => a + x.non2xx + x.errors, 0) }]));
  }

  if (ONLY.includes('outgoing')) {
    log('outgoing webhooks: CreatePost with a hook that fires on every post vs without');
    const hooked = await channel('hooked');
    const plain = await channel('plain');
    const outHook = (await api(proc.url, 'POST', '/api/v4/hooks/outgoing', { team_id: team.id, channel_id: hooked, display_name: 'bench', trigger_words: [], callback_urls: [`http://127.0.0.1:${integrationPort}/hook`], content_type: 'application/json' }, token)).body;
    // Posts in the hooked channel, as the server counts them.
    const hookedPosts = async () => Number((await api(proc.url, 'GET', `/api/v4/teams/${team.id}/channels/name/hooked`, undefined, token)).body.total_msg_count);
    const r = await rounds(
      [
        { key: 'CreatePost, no outgoing webhook', ...createPost(plain, 'deploy finished, all green') },
        { key: 'CreatePost, outgoing webhook answering at once', ...createPost(hooked, 'deploy finished, all green'), hooked: true },
      ],
      // Every call of a run is made before the next run starts, so no run pays for another's calls.
      async (t) => {
        if (!t.hooked) return;
        const posts = await hookedPosts();
        await until(() => calls >= posts, 120_000, `the integration to get ${posts} calls (has ${calls})`);
      },
    );
    const posts = await hookedPosts();
    await until(() => calls >= posts, 120_000, `the integration to get ${posts} calls (has ${calls})`);
    // A second more: a call made twice would show up now.
    await sleep(1000);
    const deliveries = (await api(proc.url, 'GET', `/api/v4/hooks/outgoing/${outHook.id}/deliveries`, undefined, token)).body;
    const retried = deliveries.filter((d) => d.attempt > 1);
    if (retried.length) log(`  of the last ${deliveries.length} attempts, ${retried.length} were retries: ${[...new Set(deliveries.filter((d) => d.error).map((d) => d.error))].slice(0, 3).join('; ')}`);
    const twice = [...calledFor.values()].filter((n) => n > 1).length;
    if (twice) log(`  ${twice} posts were called more than once (${calledFor.size} distinct posts called)`);
    results.outgoing = { ...r, posts, calls, distinctPosts: calledFor.size, calledTwice: twice, callsPerPost: calls / posts, ratio: r['CreatePost, outgoing webhook answering at once'].rps / r['CreatePost, no outgoing webhook'].rps };
  }

  if (ONLY.includes('email')) {
    log('email notifications: posts mentioning an offline user, with email on vs off');
    const hookChannel = await channel('mail');
    const dana = (await api(proc.url, 'POST', '/api/v4/users', { username: 'dana', email: 'dana@example.com', password: PASSWORD }, token)).body;
    await api(proc.url, 'POST', `/api/v4/teams/${team.id}/members`, { team_id: team.id, user_id: dana.id }, token);
    await api(proc.url, 'POST', `/api/v4/channels/${hookChannel}/members`, { user_id: dana.id }, token);
    await api(proc.url, 'PUT', `/api/v4/users/${dana.id}/status`, { user_id: dana.id, status: 'offline' }, token).catch(() => undefined);
    const hook = (await api(proc.url, 'POST', '/api/v4/hooks/incoming', { channel_id: hookChannel, display_name: 'CI' }, token)).body;
    const text = 'Build 4711 passed on main, @dana please promote it to production';
    let expected = 0;
    const on = (key, target) => ({ key: `${key}, email on`, ...target, before: () => config({ EmailSettings: { SendEmailNotifications: true } }), mail: true });
    const off = (key, target) => ({ key: `${key}, email off`, ...target, before: () => config({ EmailSettings: { SendEmailNotifications: false } }) });
    const webhook = { url: `${proc.url}/hooks/${hook.id}`, method: 'POST', body: JSON.stringify({ text }) };
    const post = createPost(hookChannel, text);
    const r = await rounds([off('webhook', webhook), on('webhook', webhook), off('CreatePost', post), on('CreatePost', post)], async (t, res) => {
      if (!t.mail || !res) return;
      expected += Math.round(res.rps * DURATION);
      // The mail of this run is given up to 30 s to go out before the next run (the SMTP work is the worker's, after
      // the posts); what is still queued then is reported, not waited for.
      await until(() => mails >= expected * 0.99, 30_000, '').catch(() => log(`  ${mails} of ${expected} emails sent 30 s after the run`));
    });
    // Two readings of the same runs: the ratio of the medians, and the median of each round's own on/off ratio (the two
    // runs of a round are seconds apart, so the machine's drift over the whole run cancels out of it).
    const paired = (key) => median(r[`${key}, email on`].runs.map((on, i) => on / r[`${key}, email off`].runs[i]));
    results.email = {
      ...r,
      mails,
      webhookRatio: r['webhook, email on'].rps / r['webhook, email off'].rps,
      createPostRatio: r['CreatePost, email on'].rps / r['CreatePost, email off'].rps,
      webhookPaired: paired('webhook'),
      createPostPaired: paired('CreatePost'),
    };
  }

  report();
}

function report() {
  const rows = [];
  for (const section of ['outgoing', 'email']) {
    const s = results[section];
    if (!s) continue;
    for (const [key, v] of Object.entries(s)) if (v && typeof v === 'object' && 'rps' in v) rows.push([key, fmt.int(v.rps), fmt.ms(v.p99), v.runs.join(' / '), String(v.non2xx)]);
  }
  log('\n' + table(['target', 'req/s (median)', 'p99 ms', 'runs', 'non-2xx'], rows));
  if (results.outgoing) log(`outgoing: ratio ${results.outgoing.ratio.toFixed(2)}x (goal >= 0.8x); ${results.outgoing.calls} calls for ${results.outgoing.posts} posts = ${results.outgoing.callsPerPost.toFixed(3)} per post (goal exactly 1)`);
  if (results.email) {
    const e = results.email;
    log(`email: webhook ${e.webhookRatio.toFixed(3)}x, CreatePost ${e.createPostRatio.toFixed(3)}x with email on (goal within 5 %: >= 0.95x); ${e.mails} emails received`);
    log(`email, median of each round's on/off: webhook ${e.webhookPaired.toFixed(3)}x, CreatePost ${e.createPostPaired.toFixed(3)}x`);
  }
  const json = option('json', '');
  if (json) writeFileSync(json, JSON.stringify(results, null, 2));
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });
