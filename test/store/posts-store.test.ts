import type { Channel, Post } from '../../src/model';
import { errorBody } from '../../src/http/writer';
import { DatabaseError } from '../../src/model';
import { channelWithMembers, makeChannel, makePost, makeTeam, makeUser, writePosts, forEachDatabase } from './fixtures';

forEachDatabase((h) => {
  let teamId: string;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    const team = makeTeam();
    await h.stores.teams.insert(team);
    teamId = team.id;
    const a = makeUser();
    const b = makeUser();
    await h.stores.users.insert(a);
    await h.stores.users.insert(b);
    alice = a.id;
    bob = b.id;
  });

  async function newChannel(): Promise<Channel> {
    return channelWithMembers(h.stores, makeChannel({ team_id: teamId }), [alice, bob]);
  }

  const ids = (posts: Post[]) => posts.map((p) => p.id);
  const cursor = (channelId: string, perPage = 60, page = 0, includeDeleted = false) => ({ channelId, perPage, page, includeDeleted });
  /** The app's order: newest first, ties by id descending. */
  const newestFirst = (posts: Post[]) => [...posts].sort((a, b) => b.create_at - a.create_at || (a.id < b.id ? 1 : -1));

  describe('write', () => {
    test('stores the posts and moves the channel counters, mentions and the poster read state together', async () => {
      const ch = await newChannel();
      const root = makePost({ channel_id: ch.id, user_id: alice, create_at: 1000, message: 'root' });
      const reply = makePost({ channel_id: ch.id, user_id: alice, create_at: 1001, root_id: root.id });
      await writePosts(h.stores, ch.id, [root, reply], new Map([[bob, { all: 2, root: 1 }]]), alice);

      expect(await h.stores.posts.get(root.id)).toEqual(root);
      expect(await h.stores.posts.get(reply.id)).toEqual(reply);
      const channel = await h.stores.channels.get(ch.id);
      expect(channel).toMatchObject({ total_msg_count: 2, total_msg_count_root: 1, last_post_at: 1001, last_root_post_at: 1000 });
      expect(await h.stores.channels.getMember(ch.id, bob)).toMatchObject({ mention_count: 2, mention_count_root: 1, msg_count: 0, msg_count_root: 0 });
      expect(await h.stores.channels.getMember(ch.id, alice)).toMatchObject({
        mention_count: 0,
        msg_count: 2,
        msg_count_root: 1,
        last_viewed_at: 1001,
      });

      // A later write adds to the counters; an older post never moves last_post_at back.
      const late = makePost({ channel_id: ch.id, user_id: bob, create_at: 900 });
      await writePosts(h.stores, ch.id, [late], new Map([[alice, { all: 1, root: 1 }], [bob, { all: 1, root: 1 }]]));
      expect(await h.stores.channels.get(ch.id)).toMatchObject({ total_msg_count: 3, total_msg_count_root: 2, last_post_at: 1001, last_root_post_at: 1000 });
      expect(await h.stores.channels.getMember(ch.id, alice)).toMatchObject({ mention_count: 1, msg_count: 2 });
      expect(await h.stores.channels.getMember(ch.id, bob)).toMatchObject({ mention_count: 3, mention_count_root: 2 });

      // Posting marks the channel read for the poster: their own mentions are cleared too.
      await writePosts(h.stores, ch.id, [makePost({ channel_id: ch.id, user_id: alice, create_at: 1100 })], new Map(), alice);
      expect(await h.stores.channels.getMember(ch.id, alice)).toMatchObject({ mention_count: 0, mention_count_root: 0, msg_count: 4, last_viewed_at: 1100 });
    });

    test('many posts in one write (more than one insert chunk) all land, in one transaction', async () => {
      const ch = await newChannel();
      const posts = Array.from({ length: 123 }, (_, i) => makePost({ channel_id: ch.id, user_id: alice, create_at: 5000 + i }));
      await writePosts(h.stores, ch.id, posts);
      expect((await h.stores.channels.get(ch.id))?.total_msg_count).toBe(123);
      expect(await h.stores.posts.page(cursor(ch.id, 200))).toHaveLength(123);
    });

    test('a failure later in the transaction leaves neither posts nor counters behind', async () => {
      const ch = await newChannel();
      const post = makePost({ channel_id: ch.id, user_id: alice, create_at: 7000 });
      await expect(
        h.stores.transaction(async (tx) => {
          await tx.posts.write({ channelId: ch.id, posts: [post], mentions: new Map([[bob, { all: 1, root: 1 }]]) });
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await h.stores.posts.get(post.id)).toBeUndefined();
      expect((await h.stores.channels.get(ch.id))?.total_msg_count).toBe(0);
      expect((await h.stores.channels.getMember(ch.id, bob))?.mention_count).toBe(0);
    });

    test('round-trips a 16383-code-point astral message, large props and metadata', async () => {
      const ch = await newChannel();
      const message = '😀'.repeat(16383);
      const props = { card: 'x'.repeat(700_000), attachments: [{ text: 'é' }], from_webhook: 'true' };
      const post = makePost({ channel_id: ch.id, user_id: alice, create_at: 8000, message, props, metadata: { priority: { priority: 'urgent', requested_ack: true } } });
      await writePosts(h.stores, ch.id, [post]);
      const read = await h.stores.posts.get(post.id);
      expect(read?.message).toBe(message);
      expect(read?.props).toEqual(props);
      expect(read?.metadata).toEqual({ priority: { priority: 'urgent', requested_ack: true } });
    });
  });

  test('a value too long for its column: MySQL refuses it as a 400 naming the column, and nothing is written', async () => {
    // The API checks every length before it writes; this is the backstop for one it might miss.
    const ch = await newChannel();
    const post = makePost({ channel_id: ch.id, user_id: alice, create_at: 5000, type: `custom_${'x'.repeat(100)}` });
    const err = await writePosts(h.stores, ch.id, [post]).then(() => undefined, (e: unknown) => e);
    if (h.testDb.driver === 'sqlite') {
      // SQLite stores any length, which is why the API's own checks, not the column, set the limits.
      expect(err).toBeUndefined();
      return;
    }
    expect(err).toBeInstanceOf(DatabaseError);
    expect([(err as DatabaseError).kind, (err as DatabaseError).column]).toEqual(['too_long', 'type']);
    expect(errorBody(err, 'rid', false)).toMatchObject({ status_code: 400, id: 'api.context.invalid_body_param.app_error', detailed_error: '' });
    expect(await h.stores.posts.get(post.id)).toBeUndefined();
  });

  describe('paging with posts sharing one millisecond', () => {
    let ch: Channel;
    let posts: Post[]; // app order: newest first

    beforeAll(async () => {
      ch = await newChannel();
      const created: Post[] = [];
      // Three at 100, four at 200, two at 300: ties are broken by id.
      for (const [t, count] of [[100, 3], [200, 4], [300, 2]] as const) {
        for (let i = 0; i < count; i++) created.push(makePost({ channel_id: ch.id, user_id: alice, create_at: t }));
      }
      // Written in a shuffled order, as concurrent writers would.
      await writePosts(h.stores, ch.id, [...created].reverse());
      posts = newestFirst(created);
    });

    test('page is newest first by (create_at, id) and pages never overlap', async () => {
      expect(ids(await h.stores.posts.page(cursor(ch.id)))).toEqual(ids(posts));
      const pages: string[] = [];
      for (let page = 0; page < 4; page++) pages.push(...ids(await h.stores.posts.page(cursor(ch.id, 3, page))));
      expect(pages).toEqual(ids(posts));
    });

    test('before/after an anchor inside a tie split the tie by id', async () => {
      for (let i = 0; i < posts.length; i++) {
        const anchor = posts[i];
        const before = await h.stores.posts.around(cursor(ch.id), anchor, 'before');
        const after = await h.stores.posts.around(cursor(ch.id), anchor, 'after');
        expect(ids(before)).toEqual(ids(posts.slice(i + 1)));
        // after is oldest first.
        expect(ids(after)).toEqual(ids(posts.slice(0, i)).reverse());
      }
    });

    test('before/after honour page and per_page', async () => {
      const anchor = posts[1];
      expect(ids(await h.stores.posts.around(cursor(ch.id, 2, 0), anchor, 'before'))).toEqual(ids(posts.slice(2, 4)));
      expect(ids(await h.stores.posts.around(cursor(ch.id, 2, 1), anchor, 'before'))).toEqual(ids(posts.slice(4, 6)));
      const oldest = posts[posts.length - 1];
      expect(ids(await h.stores.posts.around(cursor(ch.id, 2, 1), oldest, 'after'))).toEqual(ids(posts.slice(-5, -3)).reverse());
    });

    test('neighbourId is the adjacent post in (create_at, id) order, or "" at the ends', async () => {
      for (let i = 0; i < posts.length; i++) {
        expect(await h.stores.posts.neighbourId(ch.id, posts[i], 'before')).toBe(posts[i + 1]?.id ?? '');
        expect(await h.stores.posts.neighbourId(ch.id, posts[i], 'after')).toBe(posts[i - 1]?.id ?? '');
      }
    });

    test('since compares update_at strictly and answers oldest first, capped', async () => {
      expect(ids(await h.stores.posts.since(ch.id, 99, 1000))).toEqual(ids(posts).reverse());
      expect(ids(await h.stores.posts.since(ch.id, 100, 1000))).toEqual(ids(posts.slice(0, 6)).reverse());
      expect(ids(await h.stores.posts.since(ch.id, 200, 1000))).toEqual(ids(posts.slice(0, 2)).reverse());
      expect(await h.stores.posts.since(ch.id, 300, 1000)).toEqual([]);
      expect(ids(await h.stores.posts.since(ch.id, 0, 4))).toEqual(ids(posts).reverse().slice(0, 4));
    });

    test('lastUpdateAt is the newest update time of the channel', async () => {
      expect(await h.stores.posts.lastUpdateAt(ch.id)).toBe(300);
      expect(await h.stores.posts.lastUpdateAt('nosuchchannelxxxxxxxxxxxxx')).toBe(0);
    });
  });

  describe('root posts only (collapsed reply threads)', () => {
    let ch: Channel;
    let roots: Post[]; // newest first
    let replies: Post[];

    beforeAll(async () => {
      ch = await newChannel();
      // Roots at 100, 200, 200, 300, 400, each followed by replies to the one before it; a deleted root at 250.
      const created: Post[] = [];
      for (const t of [100, 200, 200, 300, 400]) created.push(makePost({ channel_id: ch.id, user_id: alice, create_at: t }));
      const deleted = makePost({ channel_id: ch.id, user_id: alice, create_at: 250, delete_at: 260, update_at: 260 });
      replies = created.map((root, i) => makePost({ channel_id: ch.id, user_id: bob, create_at: root.create_at + 10 + i, root_id: root.id }));
      await writePosts(h.stores, ch.id, [...created, deleted, ...replies]);
      roots = newestFirst(created);
    });

    const rootCursor = (perPage = 60, page = 0, includeDeleted = false) => ({ ...cursor(ch.id, perPage, page, includeDeleted), rootsOnly: true });

    test('pages hold roots only, newest first, the row past the page the next root', async () => {
      const all = await h.stores.posts.pageWithin(rootCursor(), 1 << 21);
      expect(ids(all.posts)).toEqual(ids(roots));
      expect(all.beyond).toBeUndefined();
      const second = await h.stores.posts.pageWithin(rootCursor(2, 1), 1 << 21);
      expect(ids(second.posts)).toEqual(ids(roots.slice(2, 4)));
      expect(second.beyond?.id).toBe(roots[4].id);
      // A system admin's include_deleted: the deleted root too, never a reply.
      const withDeleted = await h.stores.posts.pageWithin(rootCursor(60, 0, true), 1 << 21);
      expect(withDeleted.posts).toHaveLength(6);
      expect(withDeleted.posts.every((p) => p.root_id === '')).toBe(true);
    });

    test('before/after an anchor (a root or a reply) count roots only; neighbours are roots', async () => {
      const before = await h.stores.posts.aroundWithin(rootCursor(2), roots[1], 'before', 1 << 21);
      expect(ids(before.posts)).toEqual(ids(roots.slice(2, 4)));
      expect(before.beyond?.id).toBe(roots[4].id);
      // After the reply to the oldest root (at 110): the roots from 200 on, oldest first.
      const after = await h.stores.posts.aroundWithin(rootCursor(60), replies[0], 'after', 1 << 21);
      expect(ids(after.posts)).toEqual(ids(roots.slice(0, 4)).reverse());
      expect(await h.stores.posts.neighbourId(ch.id, roots[0], 'before', true)).toBe(roots[1].id);
      expect(await h.stores.posts.neighbourId(ch.id, roots[0], 'after', true)).toBe('');
      expect(await h.stores.posts.neighbourId(ch.id, roots[4], 'after', true)).toBe(roots[3].id);
      // Without rootsOnly the neighbour is the reply in between.
      expect(await h.stores.posts.neighbourId(ch.id, roots[4], 'after')).toBe(replies[0].id);
    });

    test('firstAfter skips replies', async () => {
      expect((await h.stores.posts.firstAfter(ch.id, 400, true))?.id).toBeUndefined();
      expect((await h.stores.posts.firstAfter(ch.id, 300, true))?.id).toBe(roots[0].id);
      expect((await h.stores.posts.firstAfter(ch.id, 300))?.id).toBe(replies[3].id);
    });

    test('rootsSince: roots changed since, and roots whose threads had a reply since, newest first, capped', async () => {
      const [newest, , , , oldest] = roots;
      expect(ids(await h.stores.posts.rootsSince(ch.id, 300, 1000))).toEqual([newest.id]);
      // The oldest root's thread had a reply at 500: it comes back with the roots changed since 450 (none).
      await h.stores.transaction(async (tx) => {
        await tx.threads.ensure([{ post_id: oldest.id, channel_id: ch.id, team_id: teamId, is_urgent: false }]);
        await tx.threads.addReplies(oldest.id, [{ userId: bob, createAt: 500 }]);
      });
      expect(ids(await h.stores.posts.rootsSince(ch.id, 450, 1000))).toEqual([oldest.id]);
      // Changed and replied to: once. The deleted root (updated at 260) comes too.
      const since = await h.stores.posts.rootsSince(ch.id, 255, 1000);
      expect(since.map((p) => p.create_at)).toEqual([400, 300, 250, 100]);
      expect(since.find((p) => p.create_at === 250)?.delete_at).toBe(260);
      expect(ids(await h.stores.posts.rootsSince(ch.id, 0, 2))).toEqual(ids(roots.slice(0, 2)));
      expect(await h.stores.posts.rootsSince(ch.id, 500, 1000)).toEqual([]);
    });
  });

  describe('deletion, threads and reply stats', () => {
    test('soft-deleting a root deletes its replies; deleted posts leave pages and cursors but not since', async () => {
      const ch = await newChannel();
      const root = makePost({ channel_id: ch.id, user_id: alice, create_at: 10 });
      const r1 = makePost({ channel_id: ch.id, user_id: bob, create_at: 11, root_id: root.id });
      const other = makePost({ channel_id: ch.id, user_id: bob, create_at: 12 });
      const r2 = makePost({ channel_id: ch.id, user_id: alice, create_at: 13, root_id: root.id });
      await writePosts(h.stores, ch.id, [root, r1, other, r2]);

      expect(await h.stores.posts.replyStats([root.id, other.id])).toEqual(new Map([[root.id, { count: 2, last: 13 }]]));
      expect(ids(await h.stores.posts.thread(root.id, false))).toEqual([root.id, r1.id, r2.id]);

      await h.stores.posts.softDelete(r1, 20);
      expect((await h.stores.posts.get(r1.id))?.delete_at).toBe(20);
      expect((await h.stores.posts.get(root.id))?.delete_at).toBe(0);
      expect(await h.stores.posts.replyStats([root.id])).toEqual(new Map([[root.id, { count: 1, last: 13 }]]));

      await h.stores.posts.softDelete(root, 30);
      for (const p of [root, r2]) expect(await h.stores.posts.get(p.id)).toMatchObject({ delete_at: 30, update_at: 30 });
      // An already deleted reply keeps its own deletion time.
      expect((await h.stores.posts.get(r1.id))?.delete_at).toBe(20);
      expect((await h.stores.posts.get(other.id))?.delete_at).toBe(0);

      expect(ids(await h.stores.posts.page(cursor(ch.id)))).toEqual([other.id]);
      expect(ids(await h.stores.posts.page(cursor(ch.id, 60, 0, true)))).toEqual([r2.id, other.id, r1.id, root.id]);
      expect(await h.stores.posts.neighbourId(ch.id, other, 'before')).toBe('');
      expect(await h.stores.posts.neighbourId(ch.id, other, 'after')).toBe('');
      expect(await h.stores.posts.thread(root.id, false)).toEqual([]);
      expect(ids(await h.stores.posts.thread(root.id, true))).toEqual([root.id, r1.id, r2.id]);
      expect(ids(await h.stores.posts.since(ch.id, 13, 1000))).toEqual([root.id, r1.id, r2.id]);
      expect(await h.stores.posts.lastUpdateAt(ch.id)).toBe(30);
    });

    test('update changes only the given fields and serialises props', async () => {
      const ch = await newChannel();
      const post = makePost({ channel_id: ch.id, user_id: alice, create_at: 40, props: { a: 1 } });
      await writePosts(h.stores, ch.id, [post]);
      await h.stores.posts.update(post.id, { message: 'edited', edit_at: 41, update_at: 41, props: { b: [1, 2] }, is_pinned: true });
      expect(await h.stores.posts.get(post.id)).toEqual({ ...post, message: 'edited', edit_at: 41, update_at: 41, props: { b: [1, 2] }, is_pinned: true });
    });

    test('getMany returns the existing posts among the ids', async () => {
      const ch = await newChannel();
      const a = makePost({ channel_id: ch.id, user_id: alice, create_at: 50 });
      const b = makePost({ channel_id: ch.id, user_id: alice, create_at: 51 });
      await writePosts(h.stores, ch.id, [a, b]);
      expect(ids(await h.stores.posts.getMany([b.id, 'missingxxxxxxxxxxxxxxxxxxx', a.id])).sort()).toEqual([a.id, b.id].sort());
      expect(await h.stores.posts.getMany([])).toEqual([]);
    });
  });
});
