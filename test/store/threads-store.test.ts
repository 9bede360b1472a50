// The threads store on every database: a thread's counters and participants as replies come and go, who follows it
// and their read state, and the reads of GetUserThreads (cursor ties, filters, totals) and GetTeamsUnreadForUser.
import type { Post, ThreadListQuery } from '../../src/model';
import { newId } from '../../src/lib/ids';
import { channelWithMembers, forEachDatabase, makeChannel, makePost, makeTeam, makeUser, writePosts } from './fixtures';

forEachDatabase((h) => {
  let teamId: string;
  let otherTeamId: string;

  beforeAll(async () => {
    const team = makeTeam();
    const other = makeTeam();
    await h.stores.teams.insert(team);
    await h.stores.teams.insert(other);
    teamId = team.id;
    otherTeamId = other.id;
  });

  async function users(n: number): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const u = makeUser();
      await h.stores.users.insert(u);
      out.push(u.id);
    }
    return out;
  }

  async function channel(members: string[], team = teamId, type: 'O' | 'D' = 'O'): Promise<string> {
    return (await channelWithMembers(h.stores, makeChannel({ team_id: type === 'D' ? '' : team, type }), members)).id;
  }

  /** A thread row as the post writer makes one on a first reply (no post behind it unless the test writes one). */
  async function thread(channelId: string, team: string, replies: Array<{ userId: string; createAt: number }>, opts: { postId?: string; urgent?: boolean } = {}): Promise<string> {
    const postId = opts.postId ?? newId();
    await h.stores.transaction(async (tx) => {
      await tx.threads.ensure([{ post_id: postId, channel_id: channelId, team_id: team, is_urgent: opts.urgent === true }]);
      await tx.threads.addReplies(postId, replies);
    });
    return postId;
  }

  const membership = (post_id: string, user_id: string, fields: { following?: boolean; last_viewed?: number; unread_mentions?: number; last_updated?: number } = {}) => ({
    post_id,
    user_id,
    following: true,
    last_viewed: 0,
    last_updated: 1,
    unread_mentions: 0,
    ...fields,
  });

  /** A root post and its replies written as posts (oldest first), and the thread counting them. */
  async function writtenThread(channelId: string, author: string, rootAt: number, replies: Array<{ userId: string; createAt: number; message?: string }>): Promise<{ root: Post; replies: Post[] }> {
    const root = makePost({ channel_id: channelId, user_id: author, create_at: rootAt });
    const posts = replies.map((r) => makePost({ channel_id: channelId, user_id: r.userId, create_at: r.createAt, root_id: root.id, message: r.message ?? 'reply' }));
    await writePosts(h.stores, channelId, [root, ...posts]);
    await thread(channelId, teamId, replies, { postId: root.id });
    return { root, replies: posts };
  }

  test('ensure makes a thread once; addReplies counts, keeps the newest reply time and moves each replier to the end', async () => {
    const [alice, bob, carol] = await users(3);
    const ch = await channel([alice, bob, carol]);
    const id = await thread(ch, teamId, []);
    expect(await h.stores.threads.get(id)).toEqual({ post_id: id, channel_id: ch, team_id: teamId, reply_count: 0, last_reply_at: 0, participants: [], delete_at: 0, is_urgent: false });

    // A concurrent writer's row wins: ensuring again changes nothing.
    await h.stores.transaction((tx) => tx.threads.ensure([{ post_id: id, channel_id: ch, team_id: teamId, is_urgent: true }]));
    expect(await h.stores.threads.get(id)).toMatchObject({ reply_count: 0, is_urgent: false });

    const add = (replies: Array<{ userId: string; createAt: number }>) => h.stores.transaction((tx) => tx.threads.addReplies(id, replies));
    // Within one batch, by creation time: carol replied last.
    await add([
      { userId: carol, createAt: 1200 },
      { userId: bob, createAt: 1100 },
    ]);
    expect(await h.stores.threads.get(id)).toMatchObject({ reply_count: 2, last_reply_at: 1200, participants: [bob, carol] });
    await add([{ userId: bob, createAt: 1300 }]);
    expect(await h.stores.threads.get(id)).toMatchObject({ reply_count: 3, last_reply_at: 1300, participants: [carol, bob] });
    // A reply committed late with an older time counts, but never moves last_reply_at back.
    await add([{ userId: alice, createAt: 1250 }]);
    expect(await h.stores.threads.get(id)).toMatchObject({ reply_count: 4, last_reply_at: 1300, participants: [carol, bob, alice] });

    // No thread row, nothing to count (and no error).
    const missing = newId();
    await h.stores.transaction((tx) => tx.threads.addReplies(missing, [{ userId: bob, createAt: 1 }]));
    expect(await h.stores.threads.get(missing)).toBeUndefined();
    expect([...(await h.stores.threads.getMany([id, missing])).keys()]).toEqual([id]);
    expect((await h.stores.threads.getMany([])).size).toBe(0);
  });

  test('follow starts new followers unread and leaves an existing membership (an unfollow stays); mentions follow again', async () => {
    const [alice, bob, carol, dave] = await users(4);
    const ch = await channel([alice, bob, carol, dave]);
    const id = await thread(ch, teamId, [{ userId: bob, createAt: 1000 }]);
    await h.stores.transaction((tx) => tx.threads.follow(id, [alice, bob, bob], 10));
    expect(await h.stores.threads.membership(alice, id)).toEqual(membership(id, alice, { last_updated: 10 }));
    await h.stores.threads.saveMembership(membership(id, bob, { following: false, last_viewed: 900, last_updated: 15 }));

    await h.stores.transaction((tx) => tx.threads.follow(id, [bob, carol], 20));
    expect(await h.stores.threads.membership(bob, id)).toEqual(membership(id, bob, { following: false, last_viewed: 900, last_updated: 15 }));
    expect(await h.stores.threads.membership(carol, id)).toEqual(membership(id, carol, { last_updated: 20 }));
    expect(await h.stores.threads.members(id, [alice, bob, carol, dave])).toEqual(new Set([alice, bob, carol]));
    expect(await h.stores.threads.members(id, [])).toEqual(new Set());
    expect([...(await h.stores.threads.memberships(alice, [id, newId()])).keys()]).toEqual([id]);
    expect(await h.stores.threads.membership(dave, id)).toBeUndefined();

    // A mention follows again (the unfollow ends) and adds to the unread mentions, per user.
    await h.stores.transaction((tx) => tx.threads.addMentions(id, new Map([[bob, 2], [carol, 1]]), 30));
    expect(await h.stores.threads.membership(bob, id)).toMatchObject({ following: true, unread_mentions: 2, last_viewed: 900, last_updated: 30 });
    expect(await h.stores.threads.membership(carol, id)).toMatchObject({ following: true, unread_mentions: 1 });

    // A replier has read up to their reply, mentions included; one who unfollowed is left as they are.
    await h.stores.transaction((tx) => tx.threads.markViewedByReplier(id, carol, 1500, 40));
    expect(await h.stores.threads.membership(carol, id)).toMatchObject({ last_viewed: 1500, unread_mentions: 0, last_updated: 40 });
    await h.stores.threads.saveMembership(membership(id, alice, { following: false, last_updated: 41 }));
    await h.stores.transaction((tx) => tx.threads.markViewedByReplier(id, alice, 1600, 42));
    expect(await h.stores.threads.membership(alice, id)).toEqual(membership(id, alice, { following: false, last_updated: 41 }));

    // saveMembership writes the whole membership, made when missing.
    await h.stores.threads.saveMembership(membership(id, dave, { last_viewed: 7, unread_mentions: 3, last_updated: 8 }));
    await h.stores.threads.saveMembership(membership(id, dave, { following: false, last_viewed: 9, unread_mentions: 0, last_updated: 10 }));
    expect(await h.stores.threads.membership(dave, id)).toEqual(membership(id, dave, { following: false, last_viewed: 9, last_updated: 10 }));
  });

  test('unread replies are the live replies after the last view; followedOne, followers and totals read them', async () => {
    const [alice, bob, carol] = await users(3);
    const ch = await channel([alice, bob, carol]);
    const { root, replies } = await writtenThread(ch, alice, 1000, [
      { userId: bob, createAt: 1100 },
      { userId: bob, createAt: 1200 },
      { userId: carol, createAt: 1300 },
    ]);
    await h.stores.threads.saveMembership(membership(root.id, alice, { last_viewed: 1100, unread_mentions: 1 }));
    await h.stores.threads.saveMembership(membership(root.id, bob, { last_viewed: 1300 }));
    await h.stores.threads.saveMembership(membership(root.id, carol, { following: false }));

    expect(await h.stores.threads.followedOne(alice, root.id)).toMatchObject({ post_id: root.id, reply_count: 3, last_viewed: 1100, unread_replies: 2, unread_mentions: 1 });
    // An unfollowed membership still reads (GetUserThread decides what to do with it).
    expect(await h.stores.threads.followedOne(carol, root.id)).toMatchObject({ unread_replies: 3 });
    expect(await h.stores.threads.followedOne(alice, newId())).toBeUndefined();

    const byUser = <T extends { user_id: string }>(list: T[]) => [...list].sort((a, b) => (a.user_id < b.user_id ? -1 : 1));
    expect(byUser(await h.stores.threads.followers(root.id))).toEqual(
      byUser([
        { user_id: alice, last_viewed: 1100, unread_mentions: 1, unread_replies: 2 },
        { user_id: bob, last_viewed: 1300, unread_replies: 0, unread_mentions: 0 },
      ]),
    );

    // A deleted reply is no longer unread.
    await h.stores.posts.softDelete(replies[1], 1400);
    expect(await h.stores.threads.followedOne(alice, root.id)).toMatchObject({ unread_replies: 1 });

    // Totals: a thread is unread while its last reply is newer than the last view.
    expect(await h.stores.threads.totals(alice, teamId, false)).toEqual({ total: 1, unreadThreads: 1, unreadMentions: 1, unreadUrgentMentions: 0 });
    expect(await h.stores.threads.totals(bob, teamId, false)).toEqual({ total: 1, unreadThreads: 0, unreadMentions: 0, unreadUrgentMentions: 0 });
    expect(await h.stores.threads.totals(carol, teamId, false)).toEqual({ total: 0, unreadThreads: 0, unreadMentions: 0, unreadUrgentMentions: 0 });
  });

  test('list: newest reply first, ties by post id, walked by before and after cursors without loss or repeat; filters', async () => {
    const [dave, bob] = await users(2);
    const ch = await channel([dave, bob]);
    const dm = await channel([dave, bob], teamId, 'D');
    const elsewhere = await channel([dave], otherTeamId);
    const at = (t: number) => [{ userId: bob, createAt: t }];
    const t1 = await thread(ch, teamId, at(2000));
    const tieA = await thread(ch, teamId, at(3000));
    const tieB = await thread(ch, teamId, at(3000));
    const tieC = await thread(ch, teamId, at(3000));
    const t4 = await thread(ch, teamId, at(4000));
    const direct = await thread(dm, '', at(2500));
    const other = await thread(elsewhere, otherTeamId, at(3500));
    const unfollowed = await thread(ch, teamId, at(3600));
    for (const id of [t1, tieA, tieB, tieC, t4, direct, other]) await h.stores.threads.saveMembership(membership(id, dave, { last_updated: 10 }));
    await h.stores.threads.saveMembership(membership(unfollowed, dave, { following: false }));

    const q = (fields: Partial<ThreadListQuery> = {}): ThreadListQuery => ({
      teamId,
      perPage: 60,
      before: '',
      after: '',
      unread: false,
      deleted: false,
      since: 0,
      ...fields,
    });
    const list = async (fields: Parameters<typeof q>[0] = {}) => (await h.stores.threads.list(dave, q(fields))).map((t) => t.post_id);
    const ties = [tieA, tieB, tieC].sort().reverse();
    const expected = [t4, ...ties, direct, t1];
    expect(await list()).toEqual(expected);

    // One at a time with `before`: every thread once, in order, the ties included.
    const walked: string[] = [];
    let before = '';
    for (;;) {
      const [next] = await list({ perPage: 1, before });
      if (!next) break;
      walked.push(next);
      before = next;
    }
    expect(walked).toEqual(expected);
    // `after` answers oldest first.
    const back: string[] = [];
    let after = t1;
    for (;;) {
      const [next] = await list({ perPage: 1, after });
      if (!next) break;
      back.push(next);
      after = next;
    }
    expect(back).toEqual([...expected].reverse().slice(1));
    expect(await list({ perPage: 2, before: ties[0] })).toEqual(ties.slice(1));
    // An unknown cursor is past every thread.
    expect(await list({ before: newId() })).toEqual([]);

    // unread: the last reply is newer than the last view.
    await h.stores.threads.saveMembership(membership(t4, dave, { last_viewed: 4000, last_updated: 10 }));
    expect(await list({ unread: true })).toEqual([...ties, direct, t1]);
    // since: changed memberships or replies from then on.
    await h.stores.threads.saveMembership(membership(t1, dave, { last_updated: 5000 }));
    expect(await list({ since: 3000 })).toEqual([t4, ...ties, t1]);
    // A deleted root hides its thread unless deleted threads are asked for; restored (0) it is back.
    await h.stores.threads.setDeleted(tieB, 6000);
    expect(await list()).not.toContain(tieB);
    expect(await list({ deleted: true })).toContain(tieB);
    expect(await h.stores.threads.totals(dave, teamId, false)).toMatchObject({ total: 5 });
    expect(await h.stores.threads.totals(dave, teamId, true)).toMatchObject({ total: 6 });
    await h.stores.threads.setDeleted(tieB, 0);
    expect(await list()).toContain(tieB);

    // The other team's thread is in that team's list (with the direct one), not this one's.
    expect((await h.stores.threads.list(dave, q({ teamId: otherTeamId }))).map((t) => t.post_id)).toEqual([other, direct]);
    // A channel left takes its threads out of the lists and the totals; the direct thread stays.
    await h.stores.channels.removeMember(ch, dave);
    expect(await list()).toEqual([direct]);
    expect(await h.stores.threads.totals(dave, teamId, false)).toMatchObject({ total: 1 });
  });

  test("readAll reads the team's threads and the direct ones as of now, not another team's", async () => {
    const [alice, bob] = await users(2);
    const ch = await channel([alice, bob]);
    const dm = await channel([alice, bob], teamId, 'D');
    const elsewhere = await channel([alice], otherTeamId);
    const here = await thread(ch, teamId, [{ userId: bob, createAt: 1000 }]);
    const direct = await thread(dm, '', [{ userId: bob, createAt: 1000 }]);
    const other = await thread(elsewhere, otherTeamId, [{ userId: bob, createAt: 1000 }]);
    for (const id of [here, direct, other]) await h.stores.threads.saveMembership(membership(id, alice, { unread_mentions: 2 }));
    await h.stores.threads.saveMembership(membership(here, bob, { unread_mentions: 1 }));

    await h.stores.threads.readAll(alice, teamId, 9000);
    for (const id of [here, direct]) expect(await h.stores.threads.membership(alice, id)).toMatchObject({ last_viewed: 9000, unread_mentions: 0, last_updated: 9000 });
    expect(await h.stores.threads.membership(alice, other)).toMatchObject({ last_viewed: 0, unread_mentions: 2 });
    expect(await h.stores.threads.membership(bob, here)).toMatchObject({ last_viewed: 0, unread_mentions: 1 });
  });

  test('replyDeleted counts the live replies again; an author leaves the participants with their last live reply', async () => {
    const [alice, bob, carol] = await users(3);
    const ch = await channel([alice, bob, carol]);
    const { root, replies } = await writtenThread(ch, alice, 1000, [
      { userId: bob, createAt: 1100 },
      { userId: carol, createAt: 1200 },
      { userId: bob, createAt: 1300 },
    ]);
    expect(await h.stores.threads.get(root.id)).toMatchObject({ reply_count: 3, last_reply_at: 1300, participants: [carol, bob] });
    const remove = async (reply: Post) => {
      await h.stores.transaction(async (tx) => {
        await tx.posts.softDelete(reply, 2000);
        await tx.threads.replyDeleted(root.id, reply.user_id);
      });
      return h.stores.threads.get(root.id);
    };
    // Bob still has a live reply: he stays.
    expect(await remove(replies[2])).toMatchObject({ reply_count: 2, last_reply_at: 1200, participants: [carol, bob] });
    expect(await remove(replies[0])).toMatchObject({ reply_count: 1, last_reply_at: 1200, participants: [carol] });
    expect(await remove(replies[1])).toMatchObject({ reply_count: 0, last_reply_at: 0, participants: [] });
  });

  test('removeMentions takes one mention back from users who had not read past the reply, never below zero', async () => {
    const [alice, bob, carol, dave] = await users(4);
    const ch = await channel([alice, bob, carol, dave]);
    const id = await thread(ch, teamId, [{ userId: alice, createAt: 1200 }]);
    await h.stores.threads.saveMembership(membership(id, bob, { last_viewed: 1000, unread_mentions: 2 }));
    await h.stores.threads.saveMembership(membership(id, carol, { last_viewed: 1500, unread_mentions: 1 }));
    await h.stores.threads.saveMembership(membership(id, dave, { last_viewed: 0, unread_mentions: 0 }));
    await h.stores.transaction((tx) => tx.threads.removeMentions(id, [bob, carol, dave], 1200, 50));
    expect(await h.stores.threads.membership(bob, id)).toMatchObject({ unread_mentions: 1, last_updated: 50 });
    expect(await h.stores.threads.membership(carol, id)).toMatchObject({ unread_mentions: 1, last_updated: 1 });
    expect(await h.stores.threads.membership(dave, id)).toMatchObject({ unread_mentions: 0 });
  });

  test('repliesAfter: the live replies after a time, oldest first, at most the limit, props parsed', async () => {
    const [alice, bob] = await users(2);
    const ch = await channel([alice, bob]);
    const { root, replies } = await writtenThread(ch, alice, 1000, [
      { userId: bob, createAt: 1100, message: 'one' },
      { userId: alice, createAt: 1200, message: 'two' },
      { userId: bob, createAt: 1300, message: 'three' },
      { userId: bob, createAt: 1400, message: 'four' },
    ]);
    await h.stores.posts.softDelete(replies[2], 1500);
    expect(await h.stores.threads.repliesAfter(root.id, 1100, 10)).toEqual([
      { user_id: alice, message: 'two', props: {}, create_at: 1200 },
      { user_id: bob, message: 'four', props: {}, create_at: 1400 },
    ]);
    expect((await h.stores.threads.repliesAfter(root.id, 0, 2)).map((r) => r.message)).toEqual(['one', 'two']);
  });

  test('teamUnreads: unread followed threads and their mentions per team (urgent apart), channels left and direct ones not counted', async () => {
    const [erin, bob] = await users(2);
    const ch = await channel([erin, bob]);
    const left = await channel([erin, bob]);
    const dm = await channel([erin, bob], teamId, 'D');
    const elsewhere = await channel([erin], otherTeamId);
    const unread = await thread(ch, teamId, [{ userId: bob, createAt: 2000 }]);
    const urgent = await thread(ch, teamId, [{ userId: bob, createAt: 2000 }], { urgent: true });
    const read = await thread(ch, teamId, [{ userId: bob, createAt: 2000 }]);
    const gone = await thread(left, teamId, [{ userId: bob, createAt: 2000 }]);
    const direct = await thread(dm, '', [{ userId: bob, createAt: 2000 }]);
    const other = await thread(elsewhere, otherTeamId, [{ userId: bob, createAt: 2000 }]);
    await h.stores.threads.saveMembership(membership(unread, erin, { unread_mentions: 1 }));
    await h.stores.threads.saveMembership(membership(urgent, erin, { unread_mentions: 2 }));
    await h.stores.threads.saveMembership(membership(read, erin, { last_viewed: 2000 }));
    for (const id of [gone, direct, other]) await h.stores.threads.saveMembership(membership(id, erin, { unread_mentions: 5 }));
    await h.stores.channels.removeMember(left, erin);

    const counts = await h.stores.threads.teamUnreads(erin, [teamId, otherTeamId]);
    expect(counts.get(teamId)).toEqual({ threads: 2, mentions: 3, urgent: 2 });
    expect(counts.get(otherTeamId)).toEqual({ threads: 1, mentions: 5, urgent: 0 });
    expect((await h.stores.threads.teamUnreads(erin, [])).size).toBe(0);
  });
});
