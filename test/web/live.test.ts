// Live updates in the browser. Two halves:
// 1. The client's live behaviour against a scripted Mattermost-protocol WebSocket (Playwright's routeWebSocket
//    plays the server; REST stays real): new posts, edits, deletions, typing, unread and mention badges, malformed
//    frames, and the reconnect rules (resume with connection_id + sequence_number; a gap; a new connection id →
//    refetch, no duplicates, no gaps). Every frame the script sends must match the spec's event schemas, so the
//    script cannot drift from what the server sends (malformed frames are sent on purpose, through `raw`).
// 2. The journeys against the server's own `GET /api/v4/websocket`, with posts made by @slack/webhook and by other
//    users: live webhook posts, mention badges, edits, deletions and typing, and catching up after a lost
//    connection (resumed by the server's replay, or refetched after a new hello).
import { IncomingWebhook } from '@slack/webhook';
import type { Browser, Page, WebSocketRoute } from 'playwright-core';
import type { components } from '../../generated/api';
import { frameValidator } from '../../src/http/validation';
import type { Spec } from '../../src/http/spec-routes';
import { loadSpec } from '../../src/spec';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { spawnServer, type ServerProcess } from '../support/process';
import { describeBrowser, launchBrowser, openPage, screenshotPath, signIn, type WatchedPage } from '../support/browser';
import { PASSWORD, createWebWorld, type WebWorld } from '../support/web-world';
import { eventually } from '../support/eventually';
import { connect, postOf, type Socket } from '../support/ws';

type SpecEvent = components['schemas']['WebSocketEvent'];
type EventData<E extends SpecEvent['event']> = Extract<SpecEvent, { event: E }>['data'];
type Broadcast = components['schemas']['WebSocketBroadcast'];

const validateFrame = frameValidator(loadSpec() as unknown as Spec);

interface Post {
  id: string;
  channel_id: string;
  user_id: string;
  message: string;
  root_id: string;
}

let db: TestDatabase;
let server: ServerProcess;
let browser: Browser;
let world: WebWorld;

const pages: WatchedPage[] = [];
const observers: Socket[] = [];
async function newPage(): Promise<WatchedPage> {
  const w = await openPage(browser);
  pages.push(w);
  return w;
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10000): Promise<void> {
  await eventually(
    async () => {
      if (!(await check())) throw new Error(`timed out waiting for: ${what}`);
    },
    timeoutMs,
    50,
  );
}

const article = (page: Page, id: string) => page.locator(`.post-list article[data-post-id="${id}"]`);
const sidebarLink = (page: Page, name: string) => page.locator(`.sidebar a[data-channel="${name}"]`);

/** A scripted WebSocket server speaking Mattermost's protocol to one page. */
class ScriptedSocket {
  readonly connections: WebSocketRoute[] = [];
  readonly urls: string[] = [];
  readonly received: Array<{ seq: number; action: string; data?: Record<string, unknown> }> = [];
  private seq = 0;
  /** What to do when the client connects; default: a fresh hello with a new connection id. */
  onConnect: (ws: WebSocketRoute, url: URL) => void = (ws) => this.hello(ws, `conn${this.connections.length}`);

  static async attach(page: Page): Promise<ScriptedSocket> {
    const s = new ScriptedSocket();
    await page.routeWebSocket(/\/api\/v4\/websocket/, (ws) => {
      s.connections.push(ws);
      s.urls.push(ws.url());
      ws.onMessage((raw) => {
        const frame = JSON.parse(String(raw));
        s.received.push(frame);
        if (frame.action === 'ping') ws.send(JSON.stringify({ status: 'OK', seq_reply: frame.seq, data: { text: 'pong' } }));
      });
      s.onConnect(ws, new URL(ws.url()));
    });
    return s;
  }

  get current(): WebSocketRoute {
    return this.connections[this.connections.length - 1];
  }

  hello(ws: WebSocketRoute, connectionId: string): void {
    this.seq = 0;
    this.emitOn(ws, 'hello', { connection_id: connectionId, server_version: '10.11.0' }, {});
  }

  /** Sends an event as the server would; a frame that does not match the spec's schema for it fails the test. */
  emitOn<E extends SpecEvent['event']>(ws: WebSocketRoute, event: E, data: EventData<E>, broadcast: Partial<Broadcast>, seq = this.seq): void {
    const frame = JSON.stringify({ event, data, broadcast: { omit_users: null, user_id: '', channel_id: '', team_id: '', connection_id: '', omit_connection_id: '', ...broadcast }, seq });
    const problem = validateFrame(frame);
    if (problem) throw new Error(`the scripted server sent what the spec does not allow: ${problem}`);
    ws.send(frame);
    this.seq = seq + 1;
  }

  emit<E extends SpecEvent['event']>(event: E, data: EventData<E>, broadcast: Partial<Broadcast> = {}): void {
    this.emitOn(this.current, event, data, broadcast);
  }

  /** Sends any text, numbered or not: for frames the spec does not allow. */
  raw(frame: unknown): void {
    this.current.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** The next number, for a raw frame that is to count in the numbering. */
  takeSeq(): number {
    return this.seq++;
  }

  posted(post: Post, mentions: string[] = []): void {
    const channel = Object.values(world.channels).find((c) => c.id === post.channel_id);
    if (!channel) throw new Error(`no channel ${post.channel_id} in the test world`);
    const sender = [world.alice, world.bob, world.admin].find((u) => u.id === post.user_id);
    this.emit(
      'posted',
      {
        post: JSON.stringify(post),
        channel_type: channel === world.channels.secret ? 'P' : 'O',
        channel_name: channel.name,
        channel_display_name: channel.display_name,
        sender_name: `@${sender?.username ?? 'someone'}`,
        set_online: true,
        team_id: world.team.id,
        // As Mattermost sends it: only when the recipient is mentioned.
        ...(mentions.length ? { mentions: JSON.stringify(mentions) } : {}),
      },
      { channel_id: post.channel_id },
    );
  }

  set nextSeq(n: number) {
    this.seq = n;
  }
}

interface Frame {
  event?: string;
  seq?: number;
  data?: Record<string, unknown>;
}

/**
 * The page's WebSocket passed through to the real server, with Playwright in between (the page still opens the
 * real socket itself: its cookie, its Origin): a test can drop the connection, hold the page's reconnect until it
 * lets it through, and read what the server sent on each connection.
 */
class ProxiedSocket {
  /** The URL of every connection the page opened (with its connection_id and sequence_number). */
  readonly urls: string[] = [];
  /** What the server sent, per connection. */
  readonly frames: Frame[][] = [];
  private readonly servers: WebSocketRoute[] = [];
  private gate: Promise<void> = Promise.resolve();
  private open: () => void = () => undefined;

  static async attach(page: Page): Promise<ProxiedSocket> {
    const p = new ProxiedSocket();
    await page.routeWebSocket(/\/api\/v4\/websocket/, async (ws) => {
      p.urls.push(ws.url());
      const frames: Frame[] = [];
      p.frames.push(frames);
      // Until connectToServer the page's socket stays CONNECTING.
      await p.gate;
      const server = ws.connectToServer();
      server.onMessage((message) => {
        frames.push(JSON.parse(String(message)) as Frame);
        ws.send(message);
      });
      p.servers.push(server);
    });
    return p;
  }

  /** The seq of the last event the server sent on connection `i`. */
  lastSeq(i: number): number {
    const seqs = this.frames[i].map((f) => f.seq).filter((n): n is number => typeof n === 'number');
    return Math.max(...seqs);
  }

  /** Reconnects wait until release(). */
  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open();
  }

  /** Closes the current connection from the server's side (the page sees it closed, and the server too). */
  drop(): void {
    void this.servers[this.servers.length - 1].close();
  }
}

/** The ids of the posts in the posted events among `frames`, in order. */
function postedIds(frames: Frame[]): string[] {
  return frames.filter((f) => f.event === 'posted').map((f) => (JSON.parse(String(f.data?.post)) as { id: string }).id);
}

async function getPost(id: string): Promise<Post> {
  return world.admin.get<Post>(`/api/v4/posts/${id}`);
}

describeBrowser('web client: live updates', () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    server = await spawnServer({ MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource });
    world = await createWebWorld(server.url);
    browser = await launchBrowser();
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await server?.kill();
    await db?.drop();
  });

  afterEach(async () => {
    for (const o of observers.splice(0)) {
      expect(o.problems).toEqual([]);
      await o.close();
    }
    for (const w of pages.splice(0)) {
      expect(w.errors).toEqual([]);
      await w.context.close();
    }
  });

  describe('against a scripted WebSocket server', () => {
    test('new posts, edits, deletions and typing arrive without a reload; the client sends its own typing', async () => {
      const { page } = await newPage();
      const ws = await ScriptedSocket.attach(page);
      await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/deploys');
      await until('the socket is connected', () => ws.connections.length === 1);
      expect(ws.urls[0]).toMatch(/\/api\/v4\/websocket\?connection_id=&sequence_number=0$/);

      const created = await world.post(world.bob, world.channels.deploys.id, 'Deploy starting in 5 minutes');
      ws.posted(await getPost(created.id));
      await article(page, created.id).waitFor();

      await world.bob.put(`/api/v4/posts/${created.id}/patch`, { message: 'Deploy starting in 10 minutes' });
      ws.emit('post_edited', { post: JSON.stringify(await getPost(created.id)) }, { channel_id: world.channels.deploys.id });
      await until('the edit shows', async () => (await article(page, created.id).textContent())?.includes('10 minutes') ?? false);
      await article(page, created.id).locator('.post__edited').waitFor();

      ws.emit('typing', { user_id: world.bob.id, parent_id: '' }, { channel_id: world.channels.deploys.id, omit_users: { [world.bob.id]: true } });
      await page.getByText('bob is typing…').waitFor();
      // A post by the typist ends the indicator.
      const second = await world.post(world.bob, world.channels.deploys.id, 'Go!');
      ws.posted(await getPost(second.id));
      await page.getByText('bob is typing…').waitFor({ state: 'detached' });

      const before = await getPost(created.id);
      await fetch(`${server.url}/api/v4/posts/${created.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${world.bob.token}` } });
      ws.emit('post_deleted', { post: JSON.stringify({ ...before, delete_at: Date.now() }) }, { channel_id: world.channels.deploys.id });
      await article(page, created.id).waitFor({ state: 'detached' });
      await article(page, second.id).waitFor();

      await page.getByRole('textbox', { name: 'Write to #Deploys' }).type('typing…');
      await until('user_typing was sent', () => ws.received.some((f) => f.action === 'user_typing' && f.data?.channel_id === world.channels.deploys.id));
      expect(ws.received.filter((f) => f.action === 'user_typing').length).toBe(1); // throttled
    });

    test('malformed, unknown and incomplete frames change nothing and throw nothing; the events after them still apply', async () => {
      const { page } = await newPage();
      const ws = await ScriptedSocket.attach(page);
      await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/deploys');
      await page.locator('.shell[data-live="open"]').waitFor();
      await page.locator('.post-list[aria-busy="false"]').waitFor();
      const articles = page.locator('.post-list article.post');
      const shownBefore = await articles.count();
      const deploys = { channel_id: world.channels.deploys.id };
      const numbered = (event: string, data: unknown, broadcast: unknown = deploys) => ws.raw({ event, data, broadcast, seq: ws.takeSeq() });
      numbered('posted', null);
      numbered('posted', undefined); // no data at all
      numbered('posted', 'not an object');
      numbered('posted', [JSON.stringify({ id: 'x' })]);
      numbered('posted', { post: 'not json', mentions: 'not json' });
      numbered('posted', { post: JSON.stringify({ message: 'a post without an id' }) });
      numbered('posted', { post: 42 });
      numbered('post_edited', { post: null });
      numbered('post_deleted', {});
      numbered('typing', { user_id: 42, parent_id: {} });
      numbered('typing', { user_id: world.bob.id, parent_id: '' }, 'not an object');
      numbered('typing', { user_id: world.bob.id, parent_id: '' }, null);
      numbered('channel_viewed', { channel_id: ['x'] });
      numbered('multiple_channels_viewed', { channel_times: null });
      numbered('user_added', { user_id: world.alice.id }, null);
      numbered('user_removed', { channel_id: 7, user_id: null });
      numbered('user_updated', { user: 'bob' });
      numbered('user_updated', { user: { id: 5 } });
      numbered('something_new', { anything: true });
      numbered('constructor', {});
      numbered('reaction_added', { reaction: '{' });
      ws.raw('not json at all');
      ws.raw({ event: 'posted', data: { post: JSON.stringify({ id: 'unnumbered' }) } }); // no seq: not an event
      ws.raw({ status: 'OK', seq_reply: 'x' });

      // Still connected, still in step (no reconnect for a gap), and a well-formed event applies.
      const after = await world.post(world.bob, world.channels.deploys.id, 'after the junk');
      ws.posted(await getPost(after.id));
      await article(page, after.id).waitFor();
      expect(ws.connections).toHaveLength(1);
      await expect(articles.count()).resolves.toBe(shownBefore + 1);
      await expect(page.getByText('is typing').count()).resolves.toBe(0);
      await expect(page.locator('.shell').getAttribute('data-live')).resolves.toBe('open');
    });

    test('journey 4 (scripted): a mention in another channel makes it bold with a badge; opening it clears both', async () => {
      const { page } = await newPage();
      const ws = await ScriptedSocket.attach(page);
      await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/town-square');
      await until('the socket is connected', () => ws.connections.length === 1);
      await sidebarLink(page, 'off-topic').waitFor();
      // Let the sidebar's read state arrive.
      await page.waitForTimeout(300);

      const mention = await world.post(world.bob, world.channels.deploys.id, '@alice can you check the deploy?');
      ws.posted(await getPost(mention.id), [world.alice.id]);
      const plain = await world.post(world.bob, world.channels.offTopic.id, 'anyone for coffee?');
      ws.posted(await getPost(plain.id));

      const deploys = sidebarLink(page, 'deploys');
      await deploys.locator('.badge').waitFor();
      await expect(deploys.locator('.badge').textContent()).resolves.toBe('1');
      await expect(deploys.getAttribute('class')).resolves.toContain('is-unread');
      await expect(deploys.textContent()).resolves.toContain('unread, 1 mention');
      const offTopic = sidebarLink(page, 'off-topic');
      await until('off-topic is bold', async () => (await offTopic.getAttribute('class'))?.includes('is-unread') ?? false);
      await expect(offTopic.locator('.badge').count()).resolves.toBe(0);
      await expect(page.title()).resolves.toMatch(/^\(1\) /);
      await page.screenshot({ path: screenshotPath('unread-mention') });

      await deploys.click();
      await article(page, mention.id).waitFor();
      await deploys.locator('.badge').waitFor({ state: 'detached' });
      await expect(deploys.getAttribute('class')).resolves.not.toContain('is-unread');
      // The server was told: the mention count is cleared there too.
      await until('the server cleared the mention', async () => {
        const member = await world.alice.get<{ mention_count: number }>(`/api/v4/channels/${world.channels.deploys.id}/members/${world.alice.id}`);
        return member.mention_count === 0;
      });
      // Viewed in another tab: the server's channel_viewed clears it here as well.
      const again = await world.post(world.bob, world.channels.offTopic.id, 'still there?');
      ws.posted(await getPost(again.id));
      await until('off-topic still unread', async () => (await offTopic.getAttribute('class'))?.includes('is-unread') ?? false);
      ws.emit('multiple_channels_viewed', { channel_times: { [world.channels.offTopic.id]: Date.now() } }, { user_id: world.alice.id });
      await until('off-topic read', async () => !((await offTopic.getAttribute('class')) ?? '').includes('is-unread'));
    });

    test('without a connected WebSocket the open channel is polled, so it never silently goes stale', async () => {
      const { page } = await newPage();
      const ws = await ScriptedSocket.attach(page);
      ws.onConnect = (conn) => conn.close({ code: 1011 }); // a socket that never gets going
      await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/town-square');
      await page.locator('.post-list[aria-busy="false"]').waitFor();
      expect(await page.locator('.shell').getAttribute('data-live')).not.toBe('open');
      const p = await world.post(world.bob, world.channels.townSquare.id, 'seen by polling');
      await article(page, p.id).waitFor({ timeout: 15000 });
    });

    test('reconnect: resumes with connection_id + sequence_number; a gap reconnects; a new connection id refetches without duplicates or gaps', async () => {
      const { page } = await newPage();
      const ws = await ScriptedSocket.attach(page);
      await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/off-topic');
      await until('connected', () => ws.connections.length === 1);
      await page.locator('.post-list[aria-busy="false"]').waitFor();
      const made: string[] = [];
      const make = async (text: string) => {
        const p = await world.post(world.bob, world.channels.offTopic.id, text);
        made.push(p.id);
        return getPost(p.id);
      };
      ws.posted(await make('r1')); // seq 1
      await article(page, made[0]).waitFor();

      // 1. The connection drops; the client comes back asking to resume after seq 1; the server replays seq 2.
      ws.onConnect = () => undefined;
      ws.current.close({ code: 1006 });
      await until('reconnected', () => ws.connections.length === 2, 15000);
      expect(new URL(ws.urls[1]).searchParams.get('connection_id')).toBe('conn1');
      expect(new URL(ws.urls[1]).searchParams.get('sequence_number')).toBe('2');
      ws.nextSeq = 2;
      ws.posted(await make('r2'));
      await article(page, made[1]).waitFor();

      // 2. A gap (seq 4 while 3 is expected): the client reconnects asking for 3.
      const lost = await make('r3');
      const after = await make('r4');
      ws.nextSeq = 4;
      ws.posted(after);
      await until('reconnected after the gap', () => ws.connections.length === 3, 15000);
      expect(new URL(ws.urls[2]).searchParams.get('sequence_number')).toBe('3');
      ws.nextSeq = 3;
      ws.posted(lost);
      ws.posted(after);
      await article(page, made[2]).waitFor();
      await article(page, made[3]).waitFor();

      // 3. Posts made while no events can arrive, then a connection the server cannot resume: a new hello with a new
      //    id. The client refetches what changed (REST `since`), and a late duplicate event changes nothing.
      ws.onConnect = (conn) => ws.hello(conn, 'conn-new');
      ws.current.close({ code: 1006 });
      await make('r5');
      await make('r6');
      await until('reconnected with a new id', () => ws.connections.length === 4, 15000);
      ws.posted(await getPost(made[5]));
      await article(page, made[4]).waitFor();
      await article(page, made[5]).waitFor();
      const shown = await page.locator('.post-list article.post').evaluateAll((els) => els.map((el) => el.getAttribute('data-post-id')));
      // Every post once, in order, the ones made before this test first.
      expect(new Set(shown).size).toBe(shown.length);
      expect(shown.slice(-made.length)).toEqual(made);

      // 4. While disconnected the page says so, and says when it is back.
      ws.onConnect = () => undefined;
      ws.current.close({ code: 1006 });
      await page.getByText('Connection lost. Reconnecting…').waitFor();
      await until('retrying', () => ws.connections.length === 5, 15000);
      await page.getByText('Connection lost. Reconnecting…').waitFor({ state: 'detached' });
    });
  });

  describe("against the server's WebSocket", () => {
    test('journey 2: a webhook post sent while the page is open appears without a reload (BOT, override name and icon, attachment)', async () => {
      await world.admin.put('/api/v4/config/patch', { ServiceSettings: { EnablePostUsernameOverride: true, EnablePostIconOverride: true } });
      const created = await world.admin.post<{ id: string }>('/api/v4/hooks/incoming', { channel_id: world.channels.deploys.id, display_name: 'CI live' });
      const { page } = await newPage();
      await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/deploys');
      await page.locator('.post-list[aria-busy="false"]').waitFor();
      // Connected: what follows arrives by the WebSocket, not by the fallback polling of an unconnected page.
      await page.locator('.shell[data-live="open"]').waitFor();
      const iconUrl = `${server.url}/favicon.svg`;
      await new IncomingWebhook(`${server.url}/hooks/${created.id}`).send({
        text: 'Live deploy finished',
        username: 'live-bot',
        icon_url: iconUrl,
        attachments: [{ fallback: 'f', color: '#36a64f', title: 'Build 99', fields: [{ title: 'Status', value: 'passed', short: true }] }],
      });
      const live = page.locator('.post-list article.post', { hasText: 'Live deploy finished' });
      await live.waitFor({ timeout: 10000 });
      await expect(live.locator('.post__author').textContent()).resolves.toBe('live-bot');
      await expect(live.locator('.bot-tag').textContent()).resolves.toBe('BOT');
      await expect(live.locator('img.avatar').getAttribute('src')).resolves.toBe(iconUrl);
      await expect(live.locator('.attachment__title').textContent()).resolves.toBe('Build 99');
      await expect(live.locator('.attachment__fields td').innerText()).resolves.toBe('passed');
      await expect(page.locator('.post-list article.post', { hasText: 'Live deploy finished' }).count()).resolves.toBe(1);
    });

    test("journey 4: a second user's mention in another channel makes it bold with a badge; opening it clears both", async () => {
      // Off-topic unread and Secret Plans read on the server before the page opens: the page showing off-topic bold
      // says its read state has arrived, so what changes after that came by the WebSocket.
      await world.post(world.bob, world.channels.offTopic.id, 'posted before the page opened');
      await world.alice.post(`/api/v4/channels/members/${world.alice.id}/view`, { channel_id: world.channels.secret.id });
      const { page } = await newPage();
      await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/town-square');
      await page.locator('.shell[data-live="open"]').waitFor();
      const offTopic = sidebarLink(page, 'off-topic');
      const link = sidebarLink(page, 'secret');
      await until('off-topic is bold (the read state is in)', async () => (await offTopic.getAttribute('class'))?.includes('is-unread') ?? false);
      const weight = () => link.evaluate((el) => el.ownerDocument.defaultView?.getComputedStyle(el).fontWeight);
      await expect(link.getAttribute('class')).resolves.not.toContain('is-unread');
      await expect(link.locator('.badge').count()).resolves.toBe(0);
      const normalWeight = await weight();

      await world.post(world.bob, world.channels.secret.id, '@alice please look at the plan');
      await link.locator('.badge').waitFor({ timeout: 10000 });
      await expect(link.locator('.badge').textContent()).resolves.toBe('1');
      await expect(link.getAttribute('class')).resolves.toContain('is-unread');
      await expect(weight()).resolves.toBe('700');
      expect(normalWeight).not.toBe('700');
      await expect(page.title()).resolves.toMatch(/^\(1\) /);

      await link.click();
      await page.locator('.post-list article.post', { hasText: '@alice please look at the plan' }).waitFor();
      await link.locator('.badge').waitFor({ state: 'detached' });
      await expect(link.getAttribute('class')).resolves.not.toContain('is-unread');
      await expect(weight()).resolves.toBe(normalWeight);
      await until('the server cleared the mention', async () => {
        const member = await world.alice.get<{ mention_count: number }>(`/api/v4/channels/${world.channels.secret.id}/members/${world.alice.id}`);
        return member.mention_count === 0;
      });
    });

    test('edits, deletions and typing of another user arrive live', async () => {
      const a = await newPage();
      const b = await newPage();
      await signIn(a.page, server.url, 'alice', PASSWORD, '/team-a/channels/off-topic');
      await signIn(b.page, server.url, 'bob', PASSWORD, '/team-a/channels/off-topic');
      await a.page.locator('.shell[data-live="open"]').waitFor();
      await b.page.locator('.shell[data-live="open"]').waitFor();
      await b.page.getByRole('textbox', { name: 'Write to #Off-Topic' }).type('typing something');
      await a.page.getByText('bob is typing…').waitFor({ timeout: 10000 });
      const p = await world.post(world.bob, world.channels.offTopic.id, 'first version');
      await article(a.page, p.id).waitFor({ timeout: 10000 });
      await world.bob.put(`/api/v4/posts/${p.id}/patch`, { message: 'second version' });
      await until('edited live', async () => (await article(a.page, p.id).textContent())?.includes('second version') ?? false);
      await fetch(`${server.url}/api/v4/posts/${p.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${world.bob.token}` } });
      await article(a.page, p.id).waitFor({ state: 'detached', timeout: 10000 });
    });

    test('journey 5, live: script payloads that arrive by the WebSocket (a post, a webhook post with an override name and an attachment) render as inert text', async () => {
      await world.admin.put('/api/v4/config/patch', { ServiceSettings: { EnablePostUsernameOverride: true, EnablePostIconOverride: true } });
      const created = await world.admin.post<{ id: string }>('/api/v4/hooks/incoming', { channel_id: world.channels.deploys.id, display_name: 'CI hostile' });
      const { page, dialogs } = await newPage();
      await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/deploys');
      await page.locator('.post-list[aria-busy="false"]').waitFor();
      await page.locator('.shell[data-live="open"]').waitFor();
      const payloads = ['<script>window.__xss = 1; alert("script")</script>', '<img src=x onerror="window.__xss = 2; alert(\'img\')">', '[click me](javascript:window.__xss=3;alert(3))', '<svg onload="alert(4)"></svg>'];
      const human = await world.post(world.bob, world.channels.deploys.id, `Live payloads:\n\n${payloads.join('\n\n')}`);
      await new IncomingWebhook(`${server.url}/hooks/${created.id}`).send({
        text: `Live hook ${payloads[1]}`,
        username: '<img src=x onerror=alert("name")>',
        icon_url: 'javascript:alert("icon")',
        attachments: [{ fallback: 'x', title: payloads[0], title_link: 'javascript:alert(5)', text: payloads.join('\n\n'), fields: [{ title: payloads[1], value: payloads[2], short: true }] }],
      });
      await article(page, human.id).waitFor({ timeout: 10000 });
      const bot = page.locator('.post-list article.post', { hasText: 'Live hook' });
      await bot.waitFor({ timeout: 10000 });
      await expect(article(page, human.id).textContent()).resolves.toContain(payloads[0]);
      await expect(bot.locator('.post__author').textContent()).resolves.toBe('<img src=x onerror=alert("name")>');
      await expect(bot.locator('.attachment__title').textContent()).resolves.toBe(payloads[0]);
      await article(page, human.id).getByText('click me').click();
      await bot.hover();

      expect(dialogs).toEqual([]);
      await expect(page.evaluate('window.__xss')).resolves.toBeUndefined();
      const injected = await page.evaluate(`(() => {
        const all = [...document.querySelectorAll('*')];
        return {
          scripts: document.querySelectorAll('script').length,
          handlers: all.filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
          jsUrls: all.filter((el) => [...el.attributes].some((a) => /^\\s*(javascript|data|vbscript):/i.test(a.value) && a.name !== 'aria-label')).length,
          svgs: [...document.querySelectorAll('svg')].filter((s) => !s.classList.contains('icon') && !s.classList.contains('logo')).length,
          imgX: document.querySelectorAll('img[src="x"]').length,
        };
      })()`);
      expect(injected).toEqual({ scripts: 1, handlers: 0, jsUrls: 0, svgs: 0, imgX: 0 });
    });

    test('reconnect against the server: a lost connection resumes (the server replays what was missed); one it cannot resume gets a new hello and the page refetches', async () => {
      const { page } = await newPage();
      const proxy = await ProxiedSocket.attach(page);
      const sinceFetches: string[] = [];
      page.on('request', (r) => {
        if (/\/api\/v4\/channels\/[a-z0-9]+\/posts\?.*since=/.test(r.url())) sinceFetches.push(r.url());
      });
      await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/off-topic');
      await page.locator('.post-list[aria-busy="false"]').waitFor();
      await page.locator('.shell[data-live="open"]').waitFor();
      // A second socket of alice's, outside the page: when it has an event, so has the page's connection (sent, or
      // kept for its replay).
      const observer = await connect(server.url, { token: world.alice.token });
      observers.push(observer);
      const made: string[] = [];
      const postWhileAway = async (text: string, channelId = world.channels.offTopic.id) => {
        const from = observer.events.length;
        const p = await world.post(world.bob, channelId, text);
        await observer.next((f) => f.event === 'posted' && postOf(f).id === p.id, { from });
        if (channelId === world.channels.offTopic.id) made.push(p.id);
        return p;
      };
      const shown = () => page.locator('.post-list article.post').evaluateAll((els) => els.map((el) => el.getAttribute('data-post-id')));

      // 1. Resumed: the connection drops, posts are made while the page cannot reconnect, then it may.
      const hello = proxy.frames[0][0];
      expect(hello).toMatchObject({ event: 'hello', seq: 0 });
      proxy.hold();
      proxy.drop();
      await page.locator('.shell[data-live="reconnecting"]').waitFor();
      // Everything the page got on the first connection has been recorded by now (the close came after it).
      const nextSeq = proxy.lastSeq(0) + 1;
      await until('the page tries to reconnect', () => proxy.urls.length === 2, 15000);
      await postWhileAway('missed 1');
      await postWhileAway('missed 2');
      await postWhileAway('@alice missed while away', world.channels.deploys.id);
      proxy.release();
      await page.locator('.shell[data-live="open"]').waitFor();
      const resumeUrl = new URL(proxy.urls[1]);
      expect(resumeUrl.searchParams.get('connection_id')).toBe(hello.data?.connection_id);
      expect(resumeUrl.searchParams.get('sequence_number')).toBe(String(nextSeq));
      for (const id of made) await article(page, id).waitFor();
      // The server replayed them with their original numbers, and sent no new hello.
      await until('the replay arrived', () => postedIds(proxy.frames[1]).length === 3);
      expect(proxy.frames[1][0].seq).toBe(nextSeq);
      expect(proxy.frames[1].some((f) => f.event === 'hello')).toBe(false);
      expect(postedIds(proxy.frames[1]).slice(0, 2)).toEqual(made);
      const deploys = sidebarLink(page, 'deploys');
      await deploys.locator('.badge').waitFor();
      await expect(deploys.locator('.badge').textContent()).resolves.toBe('1');

      // 2. Not resumable: the server keeps no events for a replay, so missing any means a new hello; the page
      //    refetches what changed (REST `since`) and shows every post once, in order.
      await world.admin.put('/api/v4/config/patch', { WebSocketSettings: { ReplayBufferSize: 0 } });
      try {
        proxy.hold();
        proxy.drop();
        await page.locator('.shell[data-live="reconnecting"]').waitFor();
        await until('the page tries to reconnect again', () => proxy.urls.length === 3, 15000);
        await postWhileAway('missed 3');
        await postWhileAway('missed 4');
        const fetchesBefore = sinceFetches.length;
        proxy.release();
        await page.locator('.shell[data-live="open"]').waitFor();
        await until('a new hello', () => proxy.frames[2].length >= 1);
        expect(proxy.frames[2][0]).toMatchObject({ event: 'hello', seq: 0 });
        expect(proxy.frames[2][0].data?.connection_id).not.toBe(hello.data?.connection_id);
        for (const id of made) await article(page, id).waitFor();
        await until('the page refetched', () => sinceFetches.length > fetchesBefore);
      } finally {
        await world.admin.put('/api/v4/config/patch', { WebSocketSettings: { ReplayBufferSize: 128 } });
      }
      const ids = await shown();
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.slice(-made.length)).toEqual(made);

      // 3. And live again on the new connection.
      const live = await world.post(world.bob, world.channels.offTopic.id, 'live after the refetch');
      await article(page, live.id).waitFor({ timeout: 10000 });
    });
  });
});
