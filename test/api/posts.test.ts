import { expectAppError } from '../support/assertions';
import { createUser, startTestServer, type Actor, type TestServer, atTime as atServerTime, createTeam } from '../support/server';

let server: TestServer;
let sysadmin: Actor;
let owner: Actor; // team admin
let member: Actor; // plain team member
let outsider: Actor; // on the team, but not in the private channel
let teamId: string;
let seq = 0;

type Post = {
  id: string;
  create_at: number;
  update_at: number;
  edit_at: number;
  delete_at: number;
  user_id: string;
  channel_id: string;
  root_id: string;
  message: string;
  type: string;
  props: Record<string, unknown>;
  reply_count: number;
};

async function createChannel(as: Actor, type: 'O' | 'P', members: Actor[] = []): Promise<string> {
  const name = `posts-${++seq}`;
  const res = await as.api.post('/api/v4/channels', { team_id: teamId, name, display_name: name, type }).expect(201);
  if (members.length) await as.api.post(`/api/v4/channels/${res.body.id}/members`, { user_ids: members.map((m) => m.id) }).expect(201);
  return res.body.id;
}

async function createPost(as: Actor, channelId: string, message: string, extra: Record<string, unknown> = {}): Promise<Post> {
  const res = await as.api.post('/api/v4/posts', { channel_id: channelId, message, ...extra }).expect(201);
  return res.body;
}

const atTime = <T>(ms: number, fn: () => Promise<T>): Promise<T> => atServerTime(server, ms, fn);

/** Posts with strictly increasing create_at (the clock pinned per post), oldest first. */
async function postsAt(as: Actor, channelId: string, count: number, start = Date.now() - 100_000): Promise<Post[]> {
  const out: Post[] = [];
  for (let i = 0; i < count; i++) out.push(await atTime(start + i * 10, () => createPost(as, channelId, `message ${i}`)));
  return out;
}

const ids = (posts: Post[]) => posts.map((p) => p.id);

beforeAll(async () => {
  server = await startTestServer();
  sysadmin = await createUser(server);
  owner = await createUser(server, sysadmin);
  member = await createUser(server, sysadmin);
  outsider = await createUser(server, sysadmin);
  teamId = await createTeam(owner, 'thread-team', [member, outsider]);
});
afterAll(() => server.close());

describe('CreatePost', () => {
  test('creates a root post and a reply to it', async () => {
    const channelId = await createChannel(owner, 'O', [member]);
    const t0 = Date.now();
    const root = await createPost(member, channelId, 'hello');
    expect(root).toMatchObject({ user_id: member.id, channel_id: channelId, message: 'hello', root_id: '', type: '', edit_at: 0, delete_at: 0 });
    expect(root.id).toMatch(/^[a-z0-9]{26}$/);
    expect(root.create_at).toBeGreaterThanOrEqual(t0);
    expect(root.update_at).toBe(root.create_at);

    const reply = await createPost(owner, channelId, 'hi back', { root_id: root.id });
    expect(reply).toMatchObject({ root_id: root.id, channel_id: channelId, user_id: owner.id });
    const again = await member.api.get(`/api/v4/posts/${root.id}`).expect(200);
    expect(again.body.reply_count).toBe(1);
    const channel = await member.api.get(`/api/v4/channels/${channelId}`).expect(200);
    expect(channel.body.total_msg_count).toBe(2);
    expect(channel.body.last_post_at).toBe(reply.create_at);
  });

  test('a root post in another channel, an unknown root or a reply as root: 400 api.post.create_post.root_id.app_error', async () => {
    const a = await createChannel(owner, 'O', [member]);
    const b = await createChannel(owner, 'O', [member]);
    const rootInA = await createPost(member, a, 'root in a');
    expectAppError(await member.api.post('/api/v4/posts', { channel_id: b, message: 'x', root_id: rootInA.id }), 400, 'api.post.create_post.root_id.app_error');
    expectAppError(await member.api.post('/api/v4/posts', { channel_id: a, message: 'x', root_id: 'zzzzzzzzzzzzzzzzzzzzzzzzzz' }), 400, 'api.post.create_post.root_id.app_error');
    expectAppError(await member.api.post('/api/v4/posts', { channel_id: a, message: 'x', root_id: 'not-an-id' }), 400, 'api.post.create_post.root_id.app_error');
    const reply = await createPost(member, a, 'reply', { root_id: rootInA.id });
    expectAppError(await member.api.post('/api/v4/posts', { channel_id: a, message: 'x', root_id: reply.id }), 400, 'api.post.create_post.root_id.app_error');
    // Nothing was written by the failed attempts.
    expect((await member.api.get(`/api/v4/channels/${b}`).expect(200)).body.total_msg_count).toBe(0);
  });

  test('a message of 16383 code points is accepted, also astral ones; 16384 is 400', async () => {
    const channelId = await createChannel(owner, 'O', [member]);
    for (const unit of ['a', '😀', 'é']) {
      const message = unit.repeat(16383);
      const post = await createPost(member, channelId, message);
      const read = await member.api.get(`/api/v4/posts/${post.id}`).expect(200);
      expect(read.body.message).toBe(message);
      const tooLong = await member.api.post('/api/v4/posts', { channel_id: channelId, message: unit.repeat(16384) });
      expectAppError(tooLong, 400, 'model.post.is_valid.message_length.app_error');
    }
    // 16383 emoji are 32766 UTF-16 units: the limit counts code points, not units.
    const mixed = `${'😀'.repeat(8000)}${'b'.repeat(8383)}`;
    await createPost(member, channelId, mixed);
  });

  test('a non-member cannot post to a private channel (403); a non-member of the team cannot post at all', async () => {
    const priv = await createChannel(owner, 'P', [member]);
    expectAppError(await outsider.api.post('/api/v4/posts', { channel_id: priv, message: 'let me in' }), 403, 'api.context.permissions.app_error');
    const loner = await createUser(server, sysadmin);
    const town = await owner.api.get(`/api/v4/teams/${teamId}/channels/name/town-square`).expect(200);
    expectAppError(await loner.api.post('/api/v4/posts', { channel_id: town.body.id, message: 'x' }), 403, 'api.context.permissions.app_error');
    expect((await member.api.get(`/api/v4/channels/${priv}`).expect(200)).body.total_msg_count).toBe(0);
  });

  test('server-only props are stripped from ordinary posts; other props are kept', async () => {
    const channelId = await createChannel(owner, 'O', [member]);
    const post = await createPost(member, channelId, 'sneaky', {
      props: { from_webhook: 'true', override_username: 'ceo', override_icon_url: 'http://x/y.png', webhook_display_name: 'CI', card: 'kept', n: 1 },
    });
    expect(post.props).toEqual({ card: 'kept', n: 1 });
    const read = await member.api.get(`/api/v4/posts/${post.id}`).expect(200);
    expect(read.body.props).toEqual({ card: 'kept', n: 1 });
  });

  test('metadata.priority is kept with its known fields only; a reply cannot carry one (400)', async () => {
    const channelId = await createChannel(owner, 'O', [member]);
    const priority = { priority: 'urgent', requested_ack: true, persistent_notifications: false };
    const root = await createPost(member, channelId, 'urgent', { metadata: { priority: { ...priority, padding: 'x'.repeat(1000) } } });
    const stored = (await member.api.get(`/api/v4/posts/${root.id}`).expect(200)).body;
    expect(stored.metadata.priority).toEqual(priority);
    const partial = await createPost(member, channelId, 'important', { metadata: { priority: { priority: 'important' } } });
    expect((await member.api.get(`/api/v4/posts/${partial.id}`).expect(200)).body.metadata.priority).toEqual({ priority: 'important' });
    const reply = await member.api.post('/api/v4/posts', { channel_id: channelId, message: 'r', root_id: root.id, metadata: { priority } });
    expectAppError(reply, 400, 'api.post.create_post.post_priority.reply_not_allowed');
  });

  test('unknown channel: 404; missing message: 400; file ids: 400; no session: 401', async () => {
    const channelId = await createChannel(owner, 'O', [member]);
    expectAppError(await member.api.post('/api/v4/posts', { channel_id: 'zzzzzzzzzzzzzzzzzzzzzzzzzz', message: 'x' }), 404, 'app.channel.get.existing.app_error');
    const noMessage = await member.api.post('/api/v4/posts', { channel_id: channelId });
    expect(noMessage.status).toBe(400);
    expect(noMessage.body.status_code).toBe(400);
    expectAppError(await member.api.post('/api/v4/posts', { channel_id: channelId, message: 'x', file_ids: ['abc'] }), 400, 'model.post.is_valid.file_ids.app_error');
    expectAppError(await server.http().post('/api/v4/posts', { channel_id: channelId, message: 'x' }), 401, 'api.context.session_expired.app_error');
  });
});

describe('CreatePost retried with the same pending_post_id', () => {
  const pendingId = (as: Actor) => `${as.id}:${Date.now()}${++seq}`;
  const countIn = async (channelId: string) => (await member.api.get(`/api/v4/channels/${channelId}`).expect(200)).body.total_msg_count;

  test('a retry within 30 s gets the first post back (201), not a second copy', async () => {
    const channelId = await createChannel(owner, 'O', [member]);
    const pending = pendingId(member);
    const first = await createPost(member, channelId, 'sent once', { pending_post_id: pending });
    const retry = await createPost(member, channelId, 'sent once', { pending_post_id: pending });
    expect(retry).toMatchObject({ id: first.id, create_at: first.create_at, pending_post_id: pending });
    expect(await countIn(channelId)).toBe(1);
  });

  test('concurrent retries (the first still being written) all get the same single post', async () => {
    const channelId = await createChannel(owner, 'O', [member]);
    const pending = pendingId(member);
    const posts = await Promise.all(Array.from({ length: 5 }, () => createPost(member, channelId, 'racing', { pending_post_id: pending })));
    expect(new Set(posts.map((p) => p.id)).size).toBe(1);
    expect(await countIn(channelId)).toBe(1);
  });

  test('no pending id, another author, a deleted first post or a retry after 30 s: a new post each', async () => {
    const channelId = await createChannel(owner, 'O', [member]);
    await createPost(member, channelId, 'plain');
    await createPost(member, channelId, 'plain');
    const pending = pendingId(member);
    const mine = await createPost(member, channelId, 'shared id', { pending_post_id: pending });
    const theirs = await createPost(owner, channelId, 'shared id', { pending_post_id: pending });
    expect(theirs.id).not.toBe(mine.id);
    await member.api.delete(`/api/v4/posts/${mine.id}`).expect(200);
    const afterDelete = await createPost(member, channelId, 'shared id', { pending_post_id: pending });
    expect(afterDelete.id).not.toBe(mine.id);
    const later = await atTime(Date.now() + 30_001, () => createPost(member, channelId, 'shared id', { pending_post_id: pending }));
    expect(later.id).not.toBe(afterDelete.id);
    expect(await countIn(channelId)).toBe(6);
  });

  test('a retry is checked like any post: refused where the first would be refused now', async () => {
    const channelId = await createChannel(owner, 'P', [member]);
    const pending = pendingId(member);
    await createPost(member, channelId, 'before removal', { pending_post_id: pending });
    await owner.api.delete(`/api/v4/channels/${channelId}/members/${member.id}`).expect(200);
    expectAppError(await member.api.post('/api/v4/posts', { channel_id: channelId, message: 'before removal', pending_post_id: pending }), 403, 'api.context.permissions.app_error');
  });
});

describe('GetPost', () => {
  test('members read posts; non-members of a private channel get 403; unknown is 404', async () => {
    const priv = await createChannel(owner, 'P', [member]);
    const post = await createPost(owner, priv, 'secret');
    const res = await member.api.get(`/api/v4/posts/${post.id}`).expect(200);
    expect(res.body).toMatchObject({ id: post.id, message: 'secret', reply_count: 0 });
    expectAppError(await outsider.api.get(`/api/v4/posts/${post.id}`), 403, 'api.context.permissions.app_error');
    expectAppError(await member.api.get('/api/v4/posts/zzzzzzzzzzzzzzzzzzzzzzzzzz'), 404, 'app.post.get.app_error');
  });

  test('a public post is readable by a team member who is not in the channel', async () => {
    const open = await createChannel(owner, 'O');
    const post = await createPost(owner, open, 'public');
    await outsider.api.get(`/api/v4/posts/${post.id}`).expect(200);
  });
});

describe('GetPostsForChannel', () => {
  let channelId: string;
  let posts: Post[]; // oldest first

  beforeAll(async () => {
    channelId = await createChannel(owner, 'O', [member]);
    posts = await postsAt(member, channelId, 7);
  });

  const get = (query: string) => member.api.get(`/api/v4/channels/${channelId}/posts?${query}`).expect(200);

  test('pages newest first', async () => {
    const newestFirst = ids([...posts].reverse());
    const all = await get('page=0&per_page=60');
    expect(all.body.order).toEqual(newestFirst);
    expect(Object.keys(all.body.posts).sort()).toEqual([...newestFirst].sort());
    expect(all.body).toMatchObject({ next_post_id: '', prev_post_id: '' });

    const p0 = await get('page=0&per_page=3');
    const p1 = await get('page=1&per_page=3');
    const p2 = await get('page=2&per_page=3');
    const p3 = await get('page=3&per_page=3');
    expect(p0.body.order).toEqual(newestFirst.slice(0, 3));
    expect(p1.body.order).toEqual(newestFirst.slice(3, 6));
    expect(p2.body.order).toEqual(newestFirst.slice(6));
    expect(p3.body.order).toEqual([]);
    expect(p0.body).toMatchObject({ next_post_id: '', prev_post_id: newestFirst[3] });
    expect(p1.body).toMatchObject({ next_post_id: newestFirst[2], prev_post_id: newestFirst[6] });
    expect(p2.body).toMatchObject({ next_post_id: newestFirst[5], prev_post_id: '' });
  });

  test('a deleted anchor: the neighbours are the live posts beyond it', async () => {
    const channel = await createChannel(owner, 'O', [member]);
    const p = await postsAt(member, channel, 6); // oldest first
    await member.api.delete(`/api/v4/posts/${p[4].id}`).expect(200);
    await member.api.delete(`/api/v4/posts/${p[1].id}`).expect(200);
    const at = (query: string) => member.api.get(`/api/v4/channels/${channel}/posts?${query}`).expect(200);

    const before = await at(`before=${p[4].id}&per_page=2`);
    expect(before.body.order).toEqual([p[3].id, p[2].id]);
    expect(before.body).toMatchObject({ next_post_id: p[5].id, prev_post_id: p[0].id });

    const after = await at(`after=${p[1].id}&per_page=2`);
    expect(after.body.order).toEqual([p[3].id, p[2].id]);
    expect(after.body).toMatchObject({ next_post_id: p[5].id, prev_post_id: p[0].id });

    // A live anchor with a page past the first: the anchor is not that page's neighbour.
    const second = await at(`before=${p[5].id}&page=1&per_page=2`);
    expect(second.body.order).toEqual([p[0].id]);
    expect(second.body).toMatchObject({ next_post_id: p[2].id, prev_post_id: '' });
  });

  test('before and after cursors walk the history with next_post_id / prev_post_id', async () => {
    // posts[0] is the oldest.
    const before = await get(`before=${posts[4].id}&per_page=2`);
    expect(before.body.order).toEqual([posts[3].id, posts[2].id]);
    expect(before.body).toMatchObject({ next_post_id: posts[4].id, prev_post_id: posts[1].id });

    // Clients continue from the oldest post they hold; prev_post_id names the first post they will get.
    const older = await get(`before=${before.body.order[1]}&per_page=2`);
    expect(older.body.order).toEqual([before.body.prev_post_id, posts[0].id]);
    expect(older.body).toMatchObject({ next_post_id: posts[2].id, prev_post_id: '' });

    const after = await get(`after=${posts[2].id}&per_page=2`);
    expect(after.body.order).toEqual([posts[4].id, posts[3].id]);
    expect(after.body).toMatchObject({ next_post_id: posts[5].id, prev_post_id: posts[2].id });

    const newer = await get(`after=${after.body.order[0]}&per_page=10`);
    expect(newer.body.order).toEqual([posts[6].id, after.body.next_post_id]);
    expect(newer.body).toMatchObject({ next_post_id: '', prev_post_id: posts[4].id });

    const secondPage = await get(`before=${posts[6].id}&page=1&per_page=2`);
    expect(secondPage.body.order).toEqual([posts[3].id, posts[2].id]);
  });

  test('a cursor post from another channel or an unknown id: 400', async () => {
    const elsewhere = await createChannel(owner, 'O', [member]);
    const foreign = await createPost(member, elsewhere, 'elsewhere');
    const res = await member.api.get(`/api/v4/channels/${channelId}/posts?before=${foreign.id}`);
    expectAppError(res, 400, 'api.context.invalid_param.app_error');
    expectAppError(await member.api.get(`/api/v4/channels/${channelId}/posts?after=zzzzzzzzzzzzzzzzzzzzzzzzzz`), 400, 'api.context.invalid_param.app_error');
  });

  test('since returns the posts changed after a time, edits and deletions included', async () => {
    const ch = await createChannel(owner, 'O', [member]);
    const base = Date.now() - 50_000;
    const [p0, p1, p2] = await postsAt(member, ch, 3, base);
    const sinceAll = await member.api.get(`/api/v4/channels/${ch}/posts?since=${base - 1}`).expect(200);
    expect(sinceAll.body.order).toEqual([p2.id, p1.id, p0.id]);
    expect(sinceAll.body).toMatchObject({ next_post_id: '', prev_post_id: '' });
    const sinceP1 = await member.api.get(`/api/v4/channels/${ch}/posts?since=${p1.create_at}`).expect(200);
    expect(sinceP1.body.order).toEqual([p2.id]);

    await atTime(base + 1000, () => member.api.put(`/api/v4/posts/${p0.id}/patch`, { message: 'edited' }).expect(200));
    await atTime(base + 2000, () => member.api.delete(`/api/v4/posts/${p1.id}`).expect(200));
    const changed = await member.api.get(`/api/v4/channels/${ch}/posts?since=${p2.create_at}`).expect(200);
    expect([...changed.body.order].sort()).toEqual([p0.id, p1.id].sort());
    expect(changed.body.posts[p0.id].message).toBe('edited');
    expect(changed.body.posts[p1.id].delete_at).toBe(base + 2000);
  });

  test('ETag: If-None-Match answers 304; a new, edited or deleted post changes the ETag', async () => {
    const ch = await createChannel(owner, 'O', [member]);
    await createPost(member, ch, 'first');
    const url = `/api/v4/channels/${ch}/posts?page=0&per_page=60`;
    const first = await member.api.get(url).expect(200);
    const etag = first.headers.etag;
    expect(etag).toBeTruthy();
    const cached = await member.api.get(url).set('If-None-Match', etag);
    expect(cached.status).toBe(304);
    expect(cached.text).toBe('');
    expect(cached.headers.etag).toBe(etag);

    const second = await createPost(member, ch, 'second');
    const fresh = await member.api.get(url).set('If-None-Match', etag).expect(200);
    expect(fresh.body.order[0]).toBe(second.id);
    expect(fresh.headers.etag).not.toBe(etag);

    await member.api.put(`/api/v4/posts/${second.id}/patch`, { message: 'second, edited' }).expect(200);
    const edited = await member.api.get(url).set('If-None-Match', fresh.headers.etag).expect(200);
    expect(edited.body.posts[second.id].message).toBe('second, edited');

    await member.api.delete(`/api/v4/posts/${second.id}`).expect(200);
    const deleted = await member.api.get(url).set('If-None-Match', edited.headers.etag).expect(200);
    expect(deleted.body.order).not.toContain(second.id);
  });

  test('the newest page is one answer kept for every member: each change to what it shows is served at once, and deleted posts only to the system admin who asks', async () => {
    const ch = await createChannel(owner, 'O', [member]);
    const first = await createPost(member, ch, 'first');
    const url = `/api/v4/channels/${ch}/posts?page=0&per_page=60`;
    // Two members asking the same version get the same bytes (the second from the kept copy).
    const a = await member.api.get(url).expect(200);
    const b = await owner.api.get(url).expect(200);
    expect(b.headers.etag).toBe(a.headers.etag);
    expect(b.text).toBe(a.text);
    expect(b.headers['content-type']).toBe('application/json');

    // Each change is seen by the next read, whoever warmed the copy before it.
    const steps: Array<[string, () => Promise<unknown>, (body: { order: string[]; posts: Record<string, Post & { has_reactions?: boolean }> }) => void]> = [
      ['a new post', () => createPost(owner, ch, 'second'), (body) => expect(body.posts[body.order[0]].message).toBe('second')],
      ['an edit', () => member.api.put(`/api/v4/posts/${first.id}/patch`, { message: 'first, edited' }).expect(200), (body) => expect(body.posts[first.id].message).toBe('first, edited')],
      ['a reaction', () => owner.api.post('/api/v4/reactions', { user_id: owner.id, post_id: first.id, emoji_name: 'eyes' }).expect(200), (body) => expect(body.posts[first.id].has_reactions).toBe(true)],
      ['a reply (the root\'s count)', () => createPost(owner, ch, 'a reply', { root_id: first.id }), (body) => expect(body.posts[first.id].reply_count).toBe(1)],
      ['a deletion', () => member.api.delete(`/api/v4/posts/${first.id}`).expect(200), (body) => expect(body.order).not.toContain(first.id)],
    ];
    for (const [what, change, check] of steps) {
      await owner.api.get(url).expect(200);
      await change();
      const after = await member.api.get(url).expect(200);
      try {
        check(after.body);
      } catch (err) {
        throw new Error(`after ${what}: ${(err as Error).message}`);
      }
    }

    // include_deleted is the system admin's alone: a member asking for it gets the member's answer, never the
    // admin's kept copy, and the two never share an ETag.
    const withDeleted = `${url}&include_deleted=true`;
    const admin = await sysadmin.api.get(withDeleted).expect(200);
    expect(admin.body.order).toContain(first.id);
    const asMember = await member.api.get(withDeleted).expect(200);
    expect(asMember.body.order).not.toContain(first.id);
    expect(asMember.headers.etag).not.toBe(admin.headers.etag);
    await member.api.get(withDeleted).set('If-None-Match', admin.headers.etag).expect(200);
  });

  test('ETag: posts and edits in the same millisecond as the cached answer still change it', async () => {
    const ch = await createChannel(owner, 'O', [member]);
    const url = `/api/v4/channels/${ch}/posts?page=0&per_page=60`;
    const t = Date.now() - 20_000;
    const early = await atTime(t - 5, () => createPost(member, ch, 'early'));
    await atTime(t, async () => {
      await createPost(member, ch, 'one');
      const cached = await member.api.get(url).expect(200);
      const two = await createPost(member, ch, 'two');
      const afterPost = await member.api.get(url).set('If-None-Match', cached.headers.etag);
      expect(afterPost.status).toBe(200);
      expect(afterPost.body.order).toContain(two.id);

      await member.api.put(`/api/v4/posts/${early.id}/patch`, { message: 'early, edited' }).expect(200);
      const afterEdit = await member.api.get(url).set('If-None-Match', afterPost.headers.etag);
      expect(afterEdit.status).toBe(200);
      expect(afterEdit.body.posts[early.id].message).toBe('early, edited');
    });
  });

  test('posts sharing one millisecond are paged in one stable order, each exactly once', async () => {
    const ch = await createChannel(owner, 'O', [member]);
    const t = Date.now() - 30_000;
    const same = await atTime(t, async () => {
      const out: Post[] = [];
      for (let i = 0; i < 7; i++) out.push(await createPost(member, ch, `tie ${i}`));
      return out;
    });
    expect(new Set(same.map((p) => p.create_at))).toEqual(new Set([t]));
    const all = await member.api.get(`/api/v4/channels/${ch}/posts?per_page=60`).expect(200);
    expect([...all.body.order].sort()).toEqual(ids(same).sort());

    const walkedBack: string[] = [];
    let list = await member.api.get(`/api/v4/channels/${ch}/posts?page=0&per_page=2`).expect(200);
    walkedBack.push(...list.body.order);
    while (list.body.prev_post_id) {
      const expectedNext = list.body.prev_post_id;
      list = await member.api.get(`/api/v4/channels/${ch}/posts?before=${walkedBack[walkedBack.length - 1]}&per_page=2`).expect(200);
      expect(list.body.order[0]).toBe(expectedNext);
      walkedBack.push(...list.body.order);
    }
    expect(walkedBack).toEqual(all.body.order);

    const oldest = all.body.order[all.body.order.length - 1];
    const walkedForward: string[] = [];
    list = await member.api.get(`/api/v4/channels/${ch}/posts?after=${oldest}&per_page=2`).expect(200);
    walkedForward.unshift(...list.body.order);
    while (list.body.next_post_id) {
      const expectedNext = list.body.next_post_id;
      list = await member.api.get(`/api/v4/channels/${ch}/posts?after=${walkedForward[0]}&per_page=2`).expect(200);
      expect(list.body.order[list.body.order.length - 1]).toBe(expectedNext);
      walkedForward.unshift(...list.body.order);
    }
    expect([...walkedForward, oldest]).toEqual(all.body.order);
  });

  test('replies come with their root post outside the order; deleted posts are left out', async () => {
    const ch = await createChannel(owner, 'O', [member]);
    const t = Date.now() - 40_000;
    const root = await atTime(t, () => createPost(member, ch, 'root'));
    const gone = await atTime(t + 1, () => createPost(member, ch, 'gone'));
    const reply = await atTime(t + 2, () => createPost(owner, ch, 'reply', { root_id: root.id }));
    await member.api.delete(`/api/v4/posts/${gone.id}`).expect(200);
    const list = await member.api.get(`/api/v4/channels/${ch}/posts?page=0&per_page=1`).expect(200);
    expect(list.body.order).toEqual([reply.id]);
    expect(Object.keys(list.body.posts).sort()).toEqual([reply.id, root.id].sort());
    expect(list.body.posts[root.id].reply_count).toBe(1);
    expect(list.body.prev_post_id).toBe(root.id);
    const skip = await member.api.get(`/api/v4/channels/${ch}/posts?page=0&per_page=1&skipFetchThreads=true`).expect(200);
    expect(Object.keys(skip.body.posts)).toEqual([reply.id]);
  });

  test('non-members of a private channel: 403', async () => {
    const priv = await createChannel(owner, 'P');
    expectAppError(await member.api.get(`/api/v4/channels/${priv}/posts`), 403, 'api.context.permissions.app_error');
  });

  test('since: a deleted post and the replies deleted with it come emptied, also to someone who joined afterwards (M1)', async () => {
    const ch = await createChannel(owner, 'O', [member]);
    const t = Date.now() - 30_000;
    const root = await atTime(t, () => createPost(member, ch, 'AWS_SECRET=AKIAROOT', { props: { card: 'secret card' } }));
    const reply = await atTime(t + 1, () => createPost(owner, ch, 'AKIAREPLY too', { root_id: root.id }));
    const kept = await atTime(t + 2, () => createPost(owner, ch, 'still here'));
    await owner.api.post('/api/v4/reactions', { user_id: owner.id, post_id: root.id, emoji_name: 'eyes' }).expect(200);
    await member.api.delete(`/api/v4/posts/${root.id}`).expect(200);
    // A team member who joins the public channel after the deletion.
    await outsider.api.post(`/api/v4/channels/${ch}/members`, { user_id: outsider.id }).expect(201);
    const since = await outsider.api.get(`/api/v4/channels/${ch}/posts?since=1`).expect(200);
    expect([...since.body.order].sort()).toEqual([root.id, reply.id, kept.id].sort());
    for (const id of [root.id, reply.id]) {
      const p = since.body.posts[id];
      expect(p).toMatchObject({ id, message: '', props: {}, file_ids: [], metadata: {}, hashtags: '' });
      expect(p.delete_at).toBeGreaterThan(0);
      expect(p.has_reactions).toBeUndefined();
    }
    expect(since.body.posts[kept.id].message).toBe('still here');
    // Nowhere else either: pages and cursors, the thread of a live reply's channel, search, GetPostsByIds.
    const answers = [
      await outsider.api.get(`/api/v4/channels/${ch}/posts?since=${t + 500}`).expect(200),
      await outsider.api.get(`/api/v4/channels/${ch}/posts?page=0&per_page=60`).expect(200),
      await outsider.api.get(`/api/v4/channels/${ch}/posts?after=${kept.id}`).expect(200),
      await outsider.api.get(`/api/v4/channels/${ch}/posts?before=${kept.id}`).expect(200),
      await outsider.api.post(`/api/v4/teams/${teamId}/posts/search`, { terms: 'AKIAROOT' }).expect(200),
      await outsider.api.post('/api/v4/posts/ids', [root.id, reply.id]).expect(200),
    ];
    for (const a of answers) expect(a.text).not.toMatch(/AKIA|secret card/);
    expectAppError(await outsider.api.get(`/api/v4/posts/${reply.id}/thread`), 404, 'app.post.get.app_error');
  });
});

/** A post's props as JSON of exactly `bytes` UTF-8 bytes: `{"blob":"…"}` filled with `unit` (1 to 3 bytes). */
function propsOfBytes(bytes: number, unit = 'x'): Record<string, string> {
  const room = bytes - '{"blob":""}'.length;
  const size = Buffer.byteLength(unit);
  const blob = unit.repeat(Math.floor(room / size)) + 'x'.repeat(room % size);
  const props = { blob };
  expect(Buffer.byteLength(JSON.stringify(props))).toBe(bytes);
  return props;
}

describe('props size: 65536 bytes as JSON (H3)', () => {
  test('CreatePost: 65536 bytes are accepted, 65537 are 400 model.post.is_valid.props.app_error; bytes, not characters', async () => {
    const ch = await createChannel(owner, 'O', [member]);
    const ok = await createPost(member, ch, 'at the limit', { props: propsOfBytes(65536) });
    expect(Buffer.byteLength(JSON.stringify(ok.props))).toBe(65536);
    expect((await member.api.get(`/api/v4/posts/${ok.id}`).expect(200)).body.props).toEqual(ok.props);
    for (const props of [propsOfBytes(65537), propsOfBytes(65537, 'é'), propsOfBytes(65537, '😀')]) {
      expectAppError(await member.api.post('/api/v4/posts', { channel_id: ch, message: 'too big', props }), 400, 'model.post.is_valid.props.app_error');
    }
    // The old bound: 760000 characters.
    expectAppError(await member.api.post('/api/v4/posts', { channel_id: ch, message: 'too big', props: { blob: 'z'.repeat(200_000) } }), 400, 'model.post.is_valid.props.app_error');
    const list = await member.api.get(`/api/v4/channels/${ch}/posts`).expect(200);
    expect(list.body.order).toEqual([ok.id]);
  });

  test('PatchPost and UpdatePost: the same bound, and the post stays as it was', async () => {
    const ch = await createChannel(owner, 'O', [member]);
    const post = await createPost(member, ch, 'small', { props: { a: 1 } });
    expectAppError(await member.api.put(`/api/v4/posts/${post.id}/patch`, { props: propsOfBytes(65537) }), 400, 'model.post.is_valid.props.app_error');
    expectAppError(await member.api.put(`/api/v4/posts/${post.id}`, { id: post.id, message: 'small', props: propsOfBytes(65537, 'é') }), 400, 'model.post.is_valid.props.app_error');
    expect((await member.api.get(`/api/v4/posts/${post.id}`).expect(200)).body.props).toEqual({ a: 1 });
    await member.api.put(`/api/v4/posts/${post.id}/patch`, { props: propsOfBytes(65536) }).expect(200);
    await member.api.put(`/api/v4/posts/${post.id}`, { id: post.id, message: 'small', props: propsOfBytes(65536, 'é') }).expect(200);
  });
});

describe('posts with large props written before the bound (H3)', () => {
  /** Posts written straight to the database (as older versions allowed), oldest first, with `propsText` stored as is. */
  async function storedPosts(channelId: string, count: number, propsText: (i: number) => string): Promise<string[]> {
    const knex = server.parley.db.knex;
    const t = Date.now() - 20_000;
    const seed = await atTime(t, () => createPost(member, channelId, 'seed'));
    const [row] = await knex('posts').where({ id: seed.id });
    await knex('posts').where({ id: seed.id }).del();
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = `${seed.id.slice(0, 20)}${String(100000 + i)}`;
      await knex('posts').insert({ ...row, id, create_at: t + i, update_at: t + i, message: `old ${i}`, props: propsText(i), pending_post_id: '' });
      ids.push(id);
    }
    return ids;
  }

  const fat = (i: number) => JSON.stringify({ n: i, blob: 'b'.repeat(240_000) });

  test('a page stops at about 2 MiB; prev_post_id names the first post left out, and the before cursor walks every post once', async () => {
    const ch = await createChannel(owner, 'O', [member]);
    const ids = await storedPosts(ch, 12, fat);
    const newestFirst = [...ids].reverse();
    const first = await member.api.get(`/api/v4/channels/${ch}/posts?per_page=60`).expect(200);
    // 8 posts of 240 KB fit in 2 MiB, a ninth would not.
    expect(first.body.order).toEqual(newestFirst.slice(0, 8));
    expect(first.body.prev_post_id).toBe(newestFirst[8]);
    expect(first.text.length).toBeLessThan(2 * 1024 * 1024 + 100_000);
    expect(first.body.posts[newestFirst[0]].props).toEqual({ n: 11, blob: 'b'.repeat(240_000) });
    const seen = [...first.body.order];
    let list = first.body;
    while (list.prev_post_id) {
      list = (await member.api.get(`/api/v4/channels/${ch}/posts?before=${seen[seen.length - 1]}&per_page=60`).expect(200)).body;
      seen.push(...list.order);
    }
    expect(seen).toEqual(newestFirst);
    // Forward from the oldest: next_post_id names the first post left out.
    const after = await member.api.get(`/api/v4/channels/${ch}/posts?after=${ids[0]}&per_page=60`).expect(200);
    expect(after.body.order).toEqual(ids.slice(1, 9).reverse());
    expect(after.body.next_post_id).toBe(ids[9]);
    // A page of small posts is not shortened.
    expect((await member.api.get(`/api/v4/channels/${ch}/posts?per_page=3`).expect(200)).body.order).toHaveLength(3);
    // Collapsed threads (these are all roots): the same budget, the same cursor.
    const collapsed = await member.api.get(`/api/v4/channels/${ch}/posts?per_page=60&collapsedThreads=true&collapsedThreadsExtended=true`).expect(200);
    expect(collapsed.body.order).toEqual(newestFirst.slice(0, 8));
    expect(collapsed.body.prev_post_id).toBe(newestFirst[8]);
    const rest = await member.api.get(`/api/v4/channels/${ch}/posts?before=${newestFirst[7]}&per_page=60&collapsedThreads=true`).expect(200);
    expect(rest.body.order).toEqual(newestFirst.slice(8));
  });

  // Props over 1 KiB (small ones are parsed when read: cheaper than a lazy object, and the same JSON to a client).
  test('stored props are served as stored (not parsed and serialised again) by every read', async () => {
    const ch = await createChannel(owner, 'O', [member]);
    const text = `{"a" : [1, 2],  "__proto__" : {"x": 1}, "toJSON" : "t", "é" : "\\u0000", "pad" : "${'p'.repeat(1100)}"}`;
    const [id] = await storedPosts(ch, 1, () => text);
    const reads = [
      await member.api.get(`/api/v4/channels/${ch}/posts`).expect(200),
      await member.api.get(`/api/v4/channels/${ch}/posts?since=1`).expect(200),
      await member.api.get(`/api/v4/posts/${id}/thread`).expect(200),
      await member.api.post('/api/v4/posts/ids', [id]).expect(200),
      await member.api.get(`/api/v4/posts/${id}`).expect(200),
      await member.api.get(`/api/v4/channels/${ch}/posts?collapsedThreads=true`).expect(200),
      await member.api.get(`/api/v4/channels/${ch}/posts?since=1&collapsedThreads=true`).expect(200),
      await member.api.get(`/api/v4/posts/${id}/thread?collapsedThreads=true`).expect(200),
    ];
    for (const r of reads) expect(r.text).toContain(`"props":${text}`);
    expect(reads[4].body.props).toEqual(JSON.parse(text));
  });
});

describe('PatchPost', () => {
  test('the author edits the message: edit_at and update_at move, the rest stays', async () => {
    const ch = await createChannel(owner, 'O', [member]);
    const post = await createPost(member, ch, 'typo');
    const res = await member.api.put(`/api/v4/posts/${post.id}/patch`, { id: post.id, message: 'fixed', is_pinned: true }).expect(200);
    expect(res.body).toMatchObject({ id: post.id, message: 'fixed', is_pinned: true, create_at: post.create_at, user_id: member.id });
    expect(res.body.edit_at).toBeGreaterThan(0);
    expect(res.body.update_at).toBeGreaterThan(post.update_at);
    expect(res.body.edit_at).toBe(res.body.update_at);
    const read = await owner.api.get(`/api/v4/posts/${post.id}`).expect(200);
    expect(read.body).toMatchObject({ message: 'fixed', edit_at: res.body.edit_at, is_pinned: true });

    const pinOnly = await member.api.put(`/api/v4/posts/${post.id}/patch`, { is_pinned: false }).expect(200);
    expect(pinOnly.body).toMatchObject({ message: 'fixed', is_pinned: false, edit_at: res.body.edit_at });
  });

  test("a plain member cannot edit another user's post (403); a team admin can", async () => {
    const ch = await createChannel(owner, 'O', [member, outsider]);
    const post = await createPost(outsider, ch, 'mine');
    expectAppError(await member.api.put(`/api/v4/posts/${post.id}/patch`, { message: 'hijacked' }), 403, 'api.context.permissions.app_error');
    expect((await member.api.get(`/api/v4/posts/${post.id}`).expect(200)).body.message).toBe('mine');
    const res = await owner.api.put(`/api/v4/posts/${post.id}/patch`, { message: 'moderated' }).expect(200);
    expect(res.body.message).toBe('moderated');
  });

  test('patching props cannot make a post look like a webhook post; limits apply; unknown post 404', async () => {
    const ch = await createChannel(owner, 'O', [member]);
    const post = await createPost(member, ch, 'plain');
    const res = await member.api.put(`/api/v4/posts/${post.id}/patch`, { props: { from_webhook: 'true', card: 'c' } }).expect(200);
    expect(res.body.props).toEqual({ card: 'c' });
    expectAppError(await member.api.put(`/api/v4/posts/${post.id}/patch`, { message: 'x'.repeat(16384) }), 400, 'model.post.is_valid.message_length.app_error');
    expectAppError(await member.api.put('/api/v4/posts/zzzzzzzzzzzzzzzzzzzzzzzzzz/patch', { message: 'x' }), 404, 'app.post.get.app_error');
  });
});

describe('DeletePost and GetPostThread', () => {
  test('the thread is the root and its replies, newest first, from the root or any reply', async () => {
    const ch = await createChannel(owner, 'O', [member]);
    const t = Date.now() - 60_000;
    const root = await atTime(t, () => createPost(member, ch, 'root'));
    const r1 = await atTime(t + 1, () => createPost(owner, ch, 'r1', { root_id: root.id }));
    await atTime(t + 2, () => createPost(member, ch, 'unrelated'));
    const r2 = await atTime(t + 3, () => createPost(member, ch, 'r2', { root_id: root.id }));
    for (const from of [root.id, r1.id]) {
      const thread = await member.api.get(`/api/v4/posts/${from}/thread`).expect(200);
      expect(thread.body.order).toEqual([r2.id, r1.id, root.id]);
      expect(Object.keys(thread.body.posts).sort()).toEqual([root.id, r1.id, r2.id].sort());
      expect(thread.body.posts[root.id].reply_count).toBe(2);
    }
    const paged = await member.api.get(`/api/v4/posts/${root.id}/thread?perPage=1&direction=down`).expect(200);
    expect(paged.body.order).toEqual([r1.id, root.id]);
    expect(paged.body.has_next).toBe(true);
    const priv = await createChannel(owner, 'P');
    const secret = await createPost(owner, priv, 'secret');
    expectAppError(await member.api.get(`/api/v4/posts/${secret.id}/thread`), 403, 'api.context.permissions.app_error');
  });

  test('deleting a root deletes its replies; the post is then 404 everywhere', async () => {
    const ch = await createChannel(owner, 'O', [member]);
    const root = await createPost(member, ch, 'root');
    const reply = await createPost(owner, ch, 'reply', { root_id: root.id });
    const keep = await createPost(owner, ch, 'keep');
    const res = await member.api.delete(`/api/v4/posts/${root.id}`).expect(200);
    expect(res.body).toEqual({ status: 'OK' });
    expectAppError(await member.api.get(`/api/v4/posts/${root.id}`), 404, 'app.post.get.app_error');
    expectAppError(await member.api.get(`/api/v4/posts/${reply.id}`), 404, 'app.post.get.app_error');
    expectAppError(await member.api.get(`/api/v4/posts/${root.id}/thread`), 404, 'app.post.get.app_error');
    expectAppError(await member.api.delete(`/api/v4/posts/${root.id}`), 404, 'app.post.get.app_error');
    expectAppError(await member.api.post('/api/v4/posts', { channel_id: ch, message: 'late reply', root_id: root.id }), 400, 'api.post.create_post.root_id.app_error');
    const list = await member.api.get(`/api/v4/channels/${ch}/posts`).expect(200);
    expect(list.body.order).toEqual([keep.id]);
    // A system admin may still read deleted posts when asking for them.
    const asAdmin = await sysadmin.api.get(`/api/v4/posts/${root.id}?include_deleted=true`).expect(200);
    expect(asAdmin.body.delete_at).toBeGreaterThan(0);
    expectAppError(await member.api.get(`/api/v4/posts/${root.id}?include_deleted=true`), 404, 'app.post.get.app_error');
  });

  test('deleting a reply leaves the root; a plain member cannot delete others\' posts (403); a team admin can', async () => {
    const ch = await createChannel(owner, 'O', [member, outsider]);
    const root = await createPost(member, ch, 'root');
    const reply = await createPost(outsider, ch, 'reply', { root_id: root.id });
    expectAppError(await member.api.delete(`/api/v4/posts/${reply.id}`), 403, 'api.context.permissions.app_error');
    await outsider.api.delete(`/api/v4/posts/${reply.id}`).expect(200);
    const read = await member.api.get(`/api/v4/posts/${root.id}`).expect(200);
    expect(read.body.reply_count).toBe(0);
    await owner.api.delete(`/api/v4/posts/${root.id}`).expect(200);
    expectAppError(await member.api.get(`/api/v4/posts/${root.id}`), 404, 'app.post.get.app_error');
  });
});
