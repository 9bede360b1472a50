import { newId } from '../../src/lib/ids';
import { channelWithMembers, forEachDatabase, makeChannel, makePost, makeTeam, makeUser, writePosts } from './fixtures';

forEachDatabase((h) => {
  let alice: string;
  let bob: string;
  let channelId: string;

  beforeAll(async () => {
    const team = makeTeam();
    await h.stores.teams.insert(team);
    const a = makeUser();
    const b = makeUser();
    await h.stores.users.insert(a);
    await h.stores.users.insert(b);
    alice = a.id;
    bob = b.id;
    channelId = (await channelWithMembers(h.stores, makeChannel({ team_id: team.id }), [alice, bob])).id;
  });

  async function newPostId(): Promise<string> {
    const post = makePost({ channel_id: channelId, user_id: alice, create_at: 100 });
    await writePosts(h.stores, channelId, [post], new Map());
    return post.id;
  }

  const key = (post_id: string, user_id: string, emoji_name: string) => ({ post_id, user_id, emoji_name });
  const save = (post_id: string, user_id: string, emoji_name: string, now: number) => h.stores.reactions.save({ ...key(post_id, user_id, emoji_name), channel_id: channelId }, now);

  test('save stores a reaction once; saving it again keeps one row and only moves update_at', async () => {
    const postId = await newPostId();
    const first = await save(postId, alice, '+1', 1000);
    expect(first).toEqual({ user_id: alice, post_id: postId, emoji_name: '+1', create_at: 1000, update_at: 1000, delete_at: 0, remote_id: '', channel_id: channelId });
    const again = await save(postId, alice, '+1', 2000);
    expect(again).toEqual({ ...first, update_at: 2000 });
    expect(await h.stores.reactions.forPosts([postId])).toEqual([again]);
  });

  test('remove soft-deletes; removing again finds nothing; saving again revives the row as a new reaction', async () => {
    const postId = await newPostId();
    await save(postId, alice, 'smile', 1000);
    const removed = await h.stores.reactions.remove(key(postId, alice, 'smile'), 1500);
    expect(removed).toMatchObject({ emoji_name: 'smile', create_at: 1000, update_at: 1500, delete_at: 1500 });
    expect(await h.stores.reactions.remove(key(postId, alice, 'smile'), 1600)).toBeUndefined();
    expect(await h.stores.reactions.remove(key(postId, bob, 'never'), 1600)).toBeUndefined();
    expect(await h.stores.reactions.forPosts([postId])).toEqual([]);
    const revived = await save(postId, alice, 'smile', 2000);
    expect(revived).toMatchObject({ create_at: 2000, update_at: 2000, delete_at: 0 });
    const [{ n }] = await h.db.knex('reactions').where({ post_id: postId }).count({ n: '*' });
    expect(Number(n)).toBe(1);
  });

  test('forPosts: the live reactions of every given post, oldest first; emojiOnPost counts distinct live emoji', async () => {
    const p1 = await newPostId();
    const p2 = await newPostId();
    await save(p1, bob, 'tada', 3000);
    await save(p1, alice, 'tada', 1000);
    await save(p2, alice, 'heart', 2000);
    await save(p1, alice, 'eyes', 4000);
    await h.stores.reactions.remove(key(p1, alice, 'eyes'), 5000);
    const got = await h.stores.reactions.forPosts([p1, p2, p1, newId()]);
    expect(got.map((r) => [r.post_id, r.user_id, r.emoji_name])).toEqual([
      [p1, alice, 'tada'],
      [p2, alice, 'heart'],
      [p1, bob, 'tada'],
    ]);
    expect(await h.stores.reactions.forPosts([])).toEqual([]);
    expect([...(await h.stores.reactions.emojiOnPost(p1))]).toEqual(['tada']);
    expect((await h.stores.reactions.emojiOnPost(newId())).size).toBe(0);
  });

  test('emoji names are compared exactly (case and all), on MySQL as on SQLite', async () => {
    const postId = await newPostId();
    await save(postId, alice, 'Smile', 1000);
    await save(postId, alice, 'smile', 1001);
    expect((await h.stores.reactions.forPosts([postId])).map((r) => r.emoji_name)).toEqual(['Smile', 'smile']);
    expect(await h.stores.reactions.emojiOnPost(postId)).toEqual(new Set(['Smile', 'smile']));
  });

  test('a 64-character name fits the column', async () => {
    const postId = await newPostId();
    const name = `${'a'.repeat(32)}+${'-'.repeat(15)}_${'Z'.repeat(15)}`;
    expect(name).toHaveLength(64);
    expect((await save(postId, bob, name, 1000)).emoji_name).toBe(name);
  });

  test('pinned: the live pinned posts of a channel, oldest first', async () => {
    const ch = await channelWithMembers(h.stores, makeChannel({ team_id: (await h.stores.channels.get(channelId))!.team_id }), [alice]);
    const old = makePost({ channel_id: ch.id, user_id: alice, create_at: 10, is_pinned: true });
    const plain = makePost({ channel_id: ch.id, user_id: alice, create_at: 20 });
    const recent = makePost({ channel_id: ch.id, user_id: alice, create_at: 30, is_pinned: true });
    const gone = makePost({ channel_id: ch.id, user_id: alice, create_at: 40, is_pinned: true });
    await writePosts(h.stores, ch.id, [old, plain, recent, gone], new Map());
    await h.stores.posts.softDelete(gone, 50);
    expect((await h.stores.posts.pinned(ch.id)).map((p) => p.id)).toEqual([old.id, recent.id]);
    await h.stores.posts.update(recent.id, { is_pinned: false });
    expect((await h.stores.posts.pinned(ch.id)).map((p) => p.id)).toEqual([old.id]);
  });
});
