import type { FileRecord } from '../../src/model';
import { newId } from '../../src/lib/ids';
import { channelWithMembers, forEachDatabase, makeChannel, makePost, makeTeam, makeUser, writePosts } from './fixtures';

function makeFile(fields: Partial<FileRecord> & Pick<FileRecord, 'user_id' | 'channel_id'>): FileRecord {
  const id = newId();
  return {
    id,
    post_id: '',
    create_at: 1,
    update_at: 1,
    delete_at: 0,
    path: `x/${id}/original`,
    thumbnail_path: '',
    preview_path: '',
    name: 'ü.txt',
    extension: 'txt',
    size: 3,
    mime_type: 'text/plain',
    width: 0,
    height: 0,
    has_preview_image: false,
    mini_preview: null,
    ...fields,
  };
}

forEachDatabase((h) => {
  async function world() {
    const { stores } = h;
    const user = makeUser();
    const other = makeUser();
    await stores.users.insert(user);
    await stores.users.insert(other);
    const team = makeTeam();
    await stores.teams.insert(team);
    const channel = await channelWithMembers(stores, makeChannel({ team_id: team.id }), [user.id, other.id]);
    return { user, other, channel };
  }

  test('records round-trip, image fields and all', async () => {
    const { user, channel } = await world();
    const f = makeFile({ user_id: user.id, channel_id: channel.id, width: 400, height: 200, has_preview_image: true, mini_preview: 'AAAA', thumbnail_path: 'x/t.png', preview_path: 'x/p.png', size: 104857600 });
    await h.stores.files.insertMany([f]);
    expect(await h.stores.files.get(f.id)).toEqual(f);
    expect(await h.stores.files.get(newId())).toBeUndefined();
  });

  test('attach takes all the files or none, only the poster’s unattached ones of the channel; detach undoes it', async () => {
    const { user, other, channel } = await world();
    const mine = [makeFile({ user_id: user.id, channel_id: channel.id }), makeFile({ user_id: user.id, channel_id: channel.id })];
    const theirs = makeFile({ user_id: other.id, channel_id: channel.id });
    await h.stores.files.insertMany([...mine, theirs]);
    const post = makePost({ channel_id: channel.id, user_id: user.id, create_at: 5 });
    await writePosts(h.stores, channel.id, [post]);
    expect(await h.stores.transaction((tx) => tx.files.attach([...mine.map((f) => f.id), theirs.id], post, 9))).toBe(2);
    await h.stores.transaction((tx) => tx.files.detach(post.id));
    expect((await h.stores.files.get(mine[0].id))?.post_id).toBe('');
    expect(await h.stores.transaction((tx) => tx.files.attach(mine.map((f) => f.id), post, 9))).toBe(2);
    expect((await h.stores.files.forPosts([post.id])).map((f) => [f.post_id, f.update_at])).toEqual([
      [post.id, 9],
      [post.id, 9],
    ]);
    // Already attached: a second post gets none of them.
    const second = makePost({ channel_id: channel.id, user_id: user.id, create_at: 6 });
    await writePosts(h.stores, channel.id, [second]);
    expect(await h.stores.transaction((tx) => tx.files.attach([mine[0].id], second, 10))).toBe(0);
  });

  test('deleting a thread deletes the files of its root and of its replies only', async () => {
    const { user, channel } = await world();
    const root = makePost({ channel_id: channel.id, user_id: user.id, create_at: 5 });
    const reply = makePost({ channel_id: channel.id, user_id: user.id, create_at: 6, root_id: root.id });
    const other = makePost({ channel_id: channel.id, user_id: user.id, create_at: 7 });
    await writePosts(h.stores, channel.id, [root, reply, other]);
    const files = [root, reply, other].map((p) => makeFile({ user_id: user.id, channel_id: channel.id, post_id: p.id }));
    await h.stores.files.insertMany(files);
    await h.stores.files.deleteForThread(root.id, 42);
    expect((await h.stores.files.forPosts([root.id, reply.id, other.id])).map((f) => f.post_id)).toEqual([other.id]);
    expect((await h.stores.files.get(files[0].id))?.delete_at).toBe(42);
  });

  test('storedBytes: a user’s live files, attached or not, and the deleted ones since the given time', async () => {
    const { user, other, channel } = await world();
    await h.stores.files.insertMany([
      makeFile({ user_id: user.id, channel_id: channel.id, size: 100 }),
      makeFile({ user_id: user.id, channel_id: channel.id, size: 20, post_id: newId() }),
      makeFile({ user_id: user.id, channel_id: channel.id, size: 3, delete_at: 50 }),
      makeFile({ user_id: user.id, channel_id: channel.id, size: 4000, delete_at: 10 }),
      makeFile({ user_id: other.id, channel_id: channel.id, size: 99999 }),
    ]);
    expect(await h.stores.files.storedBytes(user.id, 50)).toBe(123);
    expect(await h.stores.files.storedBytes(user.id, 0)).toBe(4123);
    expect(await h.stores.files.storedBytes(newId(), 0)).toBe(0);
  });

  test('unattached files before a time are removed, except one a post attached in between', async () => {
    const { user, channel } = await world();
    const old = [1, 2, 3].map((t) => makeFile({ user_id: user.id, channel_id: channel.id, create_at: t }));
    const recent = makeFile({ user_id: user.id, channel_id: channel.id, create_at: 100 });
    const attached = makeFile({ user_id: user.id, channel_id: channel.id, create_at: 1, post_id: newId() });
    const deleted = makeFile({ user_id: user.id, channel_id: channel.id, create_at: 1, delete_at: 5 });
    await h.stores.files.insertMany([...old, recent, attached, deleted]);
    // The suite's other tests left files of their own (created at 1): only this test's are looked at.
    const mine = new Set([...old, recent, attached, deleted].map((f) => f.id));
    const found = (await h.stores.files.unattachedBefore(100, 1000)).filter((f) => mine.has(f.id));
    expect(found.map((f) => f.id).sort()).toEqual(old.map((f) => f.id).sort());
    expect(await h.stores.files.unattachedBefore(100, 2)).toHaveLength(2);
    // A post claims old[0] after the purge found it: its record stays, and it is not reported removed.
    const post = makePost({ channel_id: channel.id, user_id: user.id, create_at: 5 });
    await writePosts(h.stores, channel.id, [post]);
    expect(await h.stores.transaction((tx) => tx.files.attach([old[0].id], post, 9))).toBe(1);
    expect((await h.stores.files.removeUnattached(found.map((f) => f.id))).sort()).toEqual([old[1].id, old[2].id].sort());
    expect(await h.stores.files.get(old[1].id)).toBeUndefined();
    for (const f of [old[0], recent, attached, deleted]) expect(await h.stores.files.get(f.id)).toBeDefined();
    expect(await h.stores.files.removeUnattached([])).toEqual([]);
  });

  test('deleted files before a time are found and their records removed; a live file’s record never is', async () => {
    const { user, channel } = await world();
    const early = makeFile({ user_id: user.id, channel_id: channel.id, delete_at: 10, post_id: newId() });
    const late = makeFile({ user_id: user.id, channel_id: channel.id, delete_at: 100, post_id: newId() });
    const live = makeFile({ user_id: user.id, channel_id: channel.id });
    await h.stores.files.insertMany([early, late, live]);
    const mine = new Set([early, late, live].map((f) => f.id));
    expect((await h.stores.files.deletedBefore(100, 1000)).filter((f) => mine.has(f.id)).map((f) => f.id)).toEqual([early.id]);
    expect(await h.stores.files.removeDeleted([early.id, live.id])).toBe(1);
    expect(await h.stores.files.get(early.id)).toBeUndefined();
    expect(await h.stores.files.get(live.id)).toBeDefined();
    expect(await h.stores.files.get(late.id)).toBeDefined();
  });
});
