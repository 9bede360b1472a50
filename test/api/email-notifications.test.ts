// Email notifications end to end: real servers, a real SMTP server (test/support/smtp-sink.ts), no mocked transport.
// Every wait polls an observable result (the sink's messages, the outbox table) against a deadline.
import { POST_LIMITS } from '../../src/model/limits';
import { createTestDatabase, testDialect, type TestDatabase } from '../support/database';
import { eventually } from '../support/eventually';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink';
import { type Actor, type TestServer, type World, createChannel, createPost, createUser, createWorld, startTestServer } from '../support/server';

const SITE_URL = 'http://chat.example.com';

/** The EmailSettings every server of this file starts from (through the API, so every process on the database sees them). */
function emailSettings(sink: SmtpSink, extra: Record<string, unknown> = {}) {
  return {
    ServiceSettings: { SiteURL: SITE_URL },
    EmailSettings: {
      SendEmailNotifications: true,
      SMTPServer: sink.host,
      SMTPPort: String(sink.port),
      ConnectionSecurity: '',
      SMTPUsername: '',
      FeedbackName: 'Parley Notices',
      FeedbackEmail: 'notices@example.com',
      EnableEmailBatching: false,
      EmailNotificationContentsType: 'full',
      ...extra,
    },
  };
}

async function patchConfig(admin: Actor, patch: unknown): Promise<void> {
  await admin.api.put('/api/v4/config/patch', patch).expect(200);
}

const dateOf = (ms: number) => new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }).format(ms);

async function outboxEmpty(server: TestServer, userIds: string[]): Promise<void> {
  await eventually(async () => {
    for (const id of userIds) {
      const rows = await server.parley.app.deps.stores.emailOutbox.forUser(id);
      if (rows.length) throw new Error(`${rows.length} outbox row(s) left for ${id}`);
    }
  }, 20_000, 50);
}

describe('email notifications', () => {
  let sink: SmtpSink;
  let server: TestServer;
  let world: World;

  /** A team member in `status` (set through the API, as the user would). */
  async function person(status: 'online' | 'away' | 'offline' | 'dnd', fields: Record<string, unknown> = {}): Promise<Actor & { email: string }> {
    const u = await createUser(server, world.admin, fields);
    await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: u.id }).expect(201);
    await u.api.put(`/api/v4/users/${u.id}/status`, { user_id: u.id, status }).expect(200);
    return { ...u, email: `${u.username}@example.com` };
  }

  beforeAll(async () => {
    sink = await startSmtpSink();
    server = await startTestServer();
    world = await createWorld(server);
    await patchConfig(world.admin, emailSettings(sink));
  });

  afterAll(async () => {
    await server?.close();
    await sink?.close();
  });

  test('a mentioned user who is offline gets one email: From, To, subject, text and HTML parts with sender, channel, message and link', async () => {
    const bob = await person('offline');
    const channelId = await createChannel(world.admin, world.teamId, 'O', [world.member, bob], 'ops');
    const channelName = (await world.admin.api.get(`/api/v4/channels/${channelId}`).expect(200)).body.display_name as string;
    const post = await createPost(world.member, channelId, `@${bob.username} the deploy is done`);

    const [mail] = await sink.waitFor(bob.email);
    expect(mail.envelopeTo).toEqual([bob.email]);
    expect(mail.envelopeFrom).toBe('notices@example.com');
    expect(mail.headers.from).toMatch(/^"?Parley Notices"? <notices@example.com>$/);
    expect(mail.headers.to).toBe(bob.email);
    expect(mail.subject).toBe(`[Parley] New Mention in ${channelName} on ${dateOf(post.create_at)}`);
    expect(mail.headers['content-type']).toMatch(/^multipart\/alternative/);
    const link = `/pl/${post.id}`;
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain(`@${world.member.username}`);
      expect(part).toContain(channelName);
      expect(part).toContain(`@${bob.username} the deploy is done`);
      expect(part).toContain(link);
    }
    const teamName = (await world.admin.api.get(`/api/v4/teams/${world.teamId}`).expect(200)).body.name as string;
    expect(mail.text).toContain(`View Message: ${SITE_URL}/${teamName}/pl/${post.id}`);
    expect(mail.html).toContain(`href="${SITE_URL}/${teamName}/pl/${post.id}"`);
    expect(mail.text).toContain(`${world.member.username} mentioned you in a message`);
    await outboxEmpty(server, [bob.id]);
    expect(sink.to(bob.email)).toHaveLength(1);
  });

  test('online and dnd users get none, an away one does; the poster never; a user with email off none', async () => {
    const active = await person('online');
    const busy = await person('dnd');
    const away = await person('away');
    const quiet = await person('offline');
    await world.admin.api.put(`/api/v4/users/${quiet.id}/patch`, { notify_props: { email: 'false' } }).expect(200);
    const channelId = await createChannel(world.admin, world.teamId, 'O', [world.member, active, busy, away, quiet]);
    await createPost(world.member, channelId, `@${active.username} @${busy.username} @${away.username} @${quiet.username} @${world.member.username} look`);
    // Rows are written with the post: none but the away user's exist once the post is answered.
    const outbox = server.parley.app.deps.stores.emailOutbox;
    for (const u of [active, busy, quiet, world.member]) expect(await outbox.forUser(u.id)).toEqual([]);
    await sink.waitFor(away.email);
    await outboxEmpty(server, [away.id]);
    for (const u of [active, busy, quiet]) expect(sink.to(u.email)).toEqual([]);
    expect(sink.to(`${world.member.username}@example.com`)).toEqual([]);
  });

  test('a direct message to an offline user sends one email, subject "New Direct Message from @sender"', async () => {
    const carol = await person('offline');
    const dm = (await world.member.api.post('/api/v4/channels/direct', [world.member.id, carol.id]).expect(201)).body;
    const post = await createPost(world.member, dm.id, 'are you around?');
    const [mail] = await sink.waitFor(carol.email);
    expect(mail.subject).toBe(`[Parley] New Direct Message from @${world.member.username} on ${dateOf(post.create_at)}`);
    expect(mail.text).toContain('are you around?');
    expect(mail.text).toContain(`${world.member.username} sent you a new message`);
    await outboxEmpty(server, [carol.id]);
    expect(sink.to(carol.email)).toHaveLength(1);
  });

  test('everything user-supplied is escaped in the HTML part; the text part carries it as written', async () => {
    const dave = await person('offline');
    const channelId = (await world.admin.api.post('/api/v4/channels', { team_id: world.teamId, name: `x${Date.now()}`, display_name: '<i>Ops</i> & "co"', type: 'O' }).expect(201)).body.id as string;
    await world.admin.api.post(`/api/v4/channels/${channelId}/members`, { user_ids: [world.member.id, dave.id] }).expect(201);
    await createPost(world.member, channelId, `@${dave.username} <script>alert("x")</script> & <img src=x onerror=alert(1)>`);
    const [mail] = await sink.waitFor(dave.email);
    expect(mail.html).not.toMatch(/<script|<img|<i>/i);
    expect(mail.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;');
    expect(mail.html).toContain('&lt;i&gt;Ops&lt;/i&gt; &amp; &quot;co&quot;');
    expect(mail.text).toContain('<script>alert("x")</script> & <img src=x onerror=alert(1)>');
    expect(mail.subject).toContain('<i>Ops</i> & "co"');
  });

  test('generic contents: who wrote where, not the message', async () => {
    await patchConfig(world.admin, { EmailSettings: { EmailNotificationContentsType: 'generic' } });
    try {
      const erin = await person('offline');
      const channelId = await createChannel(world.admin, world.teamId, 'O', [world.member, erin]);
      await createPost(world.member, channelId, `@${erin.username} the secret is 42`);
      const [mail] = await sink.waitFor(erin.email);
      expect(mail.text).toContain(`@${world.member.username}`);
      expect(mail.text).not.toContain('the secret is 42');
      expect(mail.html).not.toContain('the secret is 42');
      expect(mail.text).toContain('/pl/');
    } finally {
      await patchConfig(world.admin, { EmailSettings: { EmailNotificationContentsType: 'full' } });
    }
  });

  test('a webhook post mentioning an offline user notifies them too', async () => {
    const frank = await person('offline');
    const channelId = await createChannel(world.admin, world.teamId, 'O', [frank]);
    const hook = (await world.admin.api.post('/api/v4/hooks/incoming', { channel_id: channelId, display_name: 'ci' }).expect(201)).body;
    await server.http().post(`/hooks/${hook.id}`, { text: `@${frank.username} build 1234 failed` }).expect(200);
    const [mail] = await sink.waitFor(frank.email);
    expect(mail.text).toContain('build 1234 failed');
    expect(mail.text).toContain(`@${world.admin.username}`);
  });

  test('a burst of emails shares one SMTP connection, closed once no email has gone for a moment', async () => {
    const people = await Promise.all([person('offline'), person('offline'), person('offline')]);
    for (const p of people) {
      const dm = (await world.member.api.post('/api/v4/channels/direct', [world.member.id, p.id]).expect(201)).body;
      await createPost(world.member, dm.id, `burst for ${p.username}`);
    }
    const mails = (await Promise.all(people.map((p) => sink.waitFor(p.email)))).flat();
    expect(new Set(mails.map((m) => m.sessionId)).size).toBe(1);
    // Idle for two seconds: the connection goes.
    await eventually(() => expect(sink.openConnections()).toBe(0), 10_000, 100);
  });

  test('while requests are being served, emails give way: one per 50 ms at most, and all of them go', async () => {
    const people = await Promise.all([1, 2, 3, 4, 5].map(() => person('offline')));
    // Someone keeps the server busy (a request every 10 ms) while the posts' emails go out.
    let busy = true;
    const traffic = (async () => {
      while (busy) {
        await world.member.api.get('/api/v4/users/me').expect(200);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    try {
      const dms = await Promise.all(people.map(async (p) => (await world.member.api.post('/api/v4/channels/direct', [world.member.id, p.id]).expect(201)).body));
      // All five at once: their emails are queued together and could go out back to back.
      await Promise.all(people.map((p, i) => createPost(world.member, dms[i].id, `paced for ${p.username}`)));
      const mails = (await Promise.all(people.map((p) => sink.waitFor(p.email)))).flat().sort((a, b) => a.receivedAt - b.receivedAt);
      expect(mails).toHaveLength(5);
      for (let i = 1; i < mails.length; i++) expect(mails[i].receivedAt - mails[i - 1].receivedAt).toBeGreaterThanOrEqual(45);
    } finally {
      busy = false;
      await traffic;
    }
  });

  test('SMTP authentication when SMTPUsername is set', async () => {
    const authSink = await startSmtpSink({ auth: { user: 'mailer', pass: 's3cret' } });
    await patchConfig(world.admin, { EmailSettings: { SMTPPort: String(authSink.port), SMTPUsername: 'mailer', SMTPPassword: 's3cret' } });
    try {
      const gina = await person('offline');
      const dm = (await world.member.api.post('/api/v4/channels/direct', [world.member.id, gina.id]).expect(201)).body;
      await createPost(world.member, dm.id, 'authenticated hello');
      const [mail] = await authSink.waitFor(gina.email);
      expect(mail.authUser).toBe('mailer');
    } finally {
      await patchConfig(world.admin, { EmailSettings: { SMTPPort: String(sink.port), SMTPUsername: '', SMTPPassword: '' } });
      await authSink.close();
    }
  });

  test('SMTP down, then up: the email arrives after, once', async () => {
    await sink.stop();
    let hank: Actor & { email: string };
    try {
      hank = await person('offline');
      const dm = (await world.member.api.post('/api/v4/channels/direct', [world.member.id, hank.id]).expect(201)).body;
      await createPost(world.member, dm.id, 'while the mail server was down');
      // The first attempt failed and the row waits for its retry.
      await eventually(async () => {
        const rows = await server.parley.app.deps.stores.emailOutbox.forUser(hank.id);
        expect(rows).toHaveLength(1);
        expect(rows[0].attempts).toBeGreaterThanOrEqual(1);
      }, 20_000, 50);
    } finally {
      await sink.start();
    }
    const [mail] = await sink.waitFor(hank.email, 1, 30_000);
    expect(mail.text).toContain('while the mail server was down');
    await outboxEmpty(server, [hank.id]);
    expect(sink.to(hank.email)).toHaveLength(1);
  });

  test('posts of one transaction share a row for their recipient: an email each; one refused waits with those after it, the ones before are not sent again', async () => {
    const ivy = await person('offline');
    const channelId = await createChannel(world.admin, world.teamId, 'O', [ivy]);
    const hook = (await world.admin.api.post('/api/v4/hooks/incoming', { channel_id: channelId, display_name: 'ci' }).expect(201)).body;
    // A webhook message three posts long is split into three posts written in one transaction, each mentioning ivy.
    const part = (marker: string) => `@${ivy.username} ${marker} `.padEnd(POST_LIMITS.messageRunes, '.');
    const marker = (m: { text: string }) => /part-[abc]/.exec(m.text)?.[0];
    sink.refuse = (mail) => marker(mail) === 'part-b';
    try {
      await server.http().post(`/hooks/${hook.id}`, { text: ['part-a', 'part-b', 'part-c'].map(part).join('') }).expect(200);
      // part-a went; part-b was refused, so the row keeps part-b and part-c for its retry.
      const [first] = await sink.waitFor(ivy.email);
      expect(marker(first)).toBe('part-a');
      const posts = (await world.admin.api.get(`/api/v4/channels/${channelId}/posts`).expect(200)).body;
      const ids = (posts.order as string[]).slice().reverse();
      expect(ids).toHaveLength(3);
      await eventually(async () => {
        const rows = await server.parley.app.deps.stores.emailOutbox.forUser(ivy.id);
        expect(rows.map((r) => [r.post_ids, r.attempts >= 1])).toEqual([[ids.slice(1), true]]);
      }, 20_000, 50);
    } finally {
      sink.refuse = undefined;
    }
    await sink.waitFor(ivy.email, 3, 30_000);
    await outboxEmpty(server, [ivy.id]);
    expect(sink.to(ivy.email).map(marker)).toEqual(['part-a', 'part-b', 'part-c']);
  });

  describe('batching', () => {
    beforeAll(() => patchConfig(world.admin, { EmailSettings: { EnableEmailBatching: true, EmailBatchingInterval: 1 } }));
    afterAll(() => patchConfig(world.admin, { EmailSettings: { EnableEmailBatching: false, EmailBatchingInterval: 30 } }));

    /** The user's email_interval preference, in seconds (short ones keep the test quick). */
    const setInterval = (u: Actor, value: string) =>
      u.api.put(`/api/v4/users/${u.id}/preferences`, [{ user_id: u.id, category: 'notifications', name: 'email_interval', value }]).expect(200);

    test('two mentions within the interval: one email listing both', async () => {
      const ivan = await person('offline');
      await setInterval(ivan, '2');
      const channelId = await createChannel(world.admin, world.teamId, 'O', [world.member, ivan]);
      const first = await createPost(world.member, channelId, `@${ivan.username} first thing`);
      await createPost(world.member, channelId, `@${ivan.username} second thing`);
      const [mail] = await sink.waitFor(ivan.email);
      expect(mail.subject).toBe(`[Parley] New Notifications for ${dateOf(first.create_at)}`);
      expect(mail.text).toContain('You have 2 new notifications');
      for (const part of [mail.text, mail.html]) {
        expect(part).toContain('first thing');
        expect(part).toContain('second thing');
      }
      await outboxEmpty(server, [ivan.id]);
      expect(sink.to(ivan.email)).toHaveLength(1);
    });

    test('"30" (at once) sends each at once, without batching', async () => {
      const judy = await person('offline');
      await setInterval(judy, '30');
      const channelId = await createChannel(world.admin, world.teamId, 'O', [world.member, judy]);
      await createPost(world.member, channelId, `@${judy.username} one`);
      await createPost(world.member, channelId, `@${judy.username} two`);
      const mails = await sink.waitFor(judy.email, 2);
      expect(mails.map((m) => m.subject.startsWith('[Parley] New Mention in'))).toEqual([true, true]);
    });

    test('a batch is dropped when its user viewed a channel of the team after the first queued post', async () => {
      const kim = await person('away');
      await setInterval(kim, '2');
      const channelId = await createChannel(world.admin, world.teamId, 'O', [world.member, kim]);
      await createPost(world.member, channelId, `@${kim.username} will be seen`);
      expect(await server.parley.app.deps.stores.emailOutbox.forUser(kim.id)).toHaveLength(1);
      await kim.api.post('/api/v4/channels/members/me/view', { channel_id: channelId }).expect(200);
      await outboxEmpty(server, [kim.id]);
      expect(sink.to(kim.email)).toEqual([]);
    });
  });
});

describe('email notifications across server restarts and processes', () => {
  let sink: SmtpSink;
  let db: TestDatabase;
  let world: World;
  const servers: TestServer[] = [];
  /** The actor's requests through server `s` (sessions live in the database: any server takes them). */
  const via = <A extends Actor>(s: TestServer, actor: A): A => ({ ...actor, api: s.http(actor.token) });

  beforeAll(async () => {
    sink = await startSmtpSink();
    db = await createTestDatabase();
    world = await createWorld(await boot());
    await patchConfig(world.admin, emailSettings(sink));
  });

  afterAll(async () => {
    for (const s of servers) await s.close();
    await sink?.close();
    await db?.drop();
  });

  async function boot(): Promise<TestServer> {
    const s = await startTestServer({}, db);
    servers.push(s);
    return s;
  }

  test('rows left undelivered by a server that stopped are sent by the next one on the database, once', async () => {
    const first = servers[0];
    await sink.stop();
    const lena = await createUser(first, world.admin);
    const lenaEmail = `${lena.username}@example.com`;
    await lena.api.put(`/api/v4/users/${lena.id}/status`, { user_id: lena.id, status: 'offline' }).expect(200);
    const dm = (await world.member.api.post('/api/v4/channels/direct', [world.member.id, lena.id]).expect(201)).body;
    await createPost(world.member, dm.id, 'sent by the next server');
    await eventually(async () => {
      const rows = await first.parley.app.deps.stores.emailOutbox.forUser(lena.id);
      expect(rows.length === 1 && rows[0].attempts >= 1).toBe(true);
    }, 20_000, 50);
    await first.close();
    servers.splice(servers.indexOf(first), 1);

    await sink.start();
    const second = await boot();
    const [mail] = await sink.waitFor(lenaEmail, 1, 30_000);
    expect(mail.text).toContain('sent by the next server');
    await outboxEmpty(second, [lena.id]);
    expect(sink.to(lenaEmail)).toHaveLength(1);
  });

  // Two processes on one SQLite file would each hold their own write lock: several processes are a MySQL/MariaDB setup.
  (testDialect() === 'mysql' ? test : test.skip)('two servers on one database: each email is sent once', async () => {
    const a = servers[0];
    const b = await boot();
    const admin = via(a, world.admin);
    const people: Array<Actor & { email: string }> = [];
    for (let i = 0; i < 6; i++) {
      const u = await createUser(a, admin);
      await admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: u.id }).expect(201);
      await u.api.put(`/api/v4/users/${u.id}/status`, { user_id: u.id, status: 'offline' }).expect(200);
      people.push({ ...u, email: `${u.username}@example.com` });
    }
    const channelId = await createChannel(admin, world.teamId, 'O', [world.member, ...people]);
    const onA = via(a, world.member);
    const onB = via(b, world.member);
    const mentions = people.map((p) => `@${p.username}`).join(' ');
    const ROUNDS = 8;
    // Both servers write posts at once, so both workers are woken and race for the same users' rows.
    await Promise.all(Array.from({ length: ROUNDS }, (_, i) => createPost(i % 2 ? onB : onA, channelId, `${mentions} round ${i}`)));
    for (const p of people) await sink.waitFor(p.email, ROUNDS, 30_000);
    await outboxEmpty(a, people.map((p) => p.id));
    for (const p of people) {
      const rounds = sink.to(p.email).map((m) => /round (\d+)/.exec(m.text)?.[1]);
      expect(rounds.sort()).toEqual(Array.from({ length: ROUNDS }, (_, i) => String(i)).sort());
    }
  });
});
