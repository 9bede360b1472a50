// The group commit behind every post write: concurrent writers share transactions, each caller learns of its own
// commit only, and one failing write never fails the others sharing its transaction.
import type { Channel, Post } from '../../src/model';
import type { Stores, TxStores } from '../../src/store';
import { translateDriverError } from '../../src/store/driver-errors';
import { findCommitted } from '../../src/app/post-writer';
import { DatabaseError } from '../../src/model';
import { GroupCommit } from '../../src/store/group-commit';
import { DUPLICATE, channelWithMembers, makeChannel, makePost, makeTeam, makeUser, rejection, writePosts, forEachDatabase } from './fixtures';

interface Item {
  channelId: string;
  posts: Post[];
}

/** The writer's work for a batch: the items' posts, in the transaction it is given. */
const writeItems = (tx: TxStores, items: Item[]) => tx.posts.writeMany(items.map((i) => ({ channelId: i.channelId, posts: i.posts, mentions: new Map() })));

const lost = () => Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true });

forEachDatabase((h) => {
  let teamId: string;
  let alice: string;

  beforeAll(async () => {
    const team = makeTeam();
    await h.stores.teams.insert(team);
    teamId = team.id;
    const a = makeUser();
    await h.stores.users.insert(a);
    alice = a.id;
  });

  function postWriter(): GroupCommit<Item, string> {
    return new GroupCommit<Item, string>(
      h.stores,
      async (tx, items) => {
        await writeItems(tx, items);
        return items.map((i) => i.posts[0].id);
      },
      { concurrency: h.stores.concurrentWriters },
    );
  }

  /**
   * The real stores, except that the first `times` transactions fail at their very end with `error()`: after the
   * database committed (`committed: true`, the answer to COMMIT lost with the connection) or just before (rolled back).
   */
  function failingAtCommit(times: number, committed: boolean, error: () => Error = lost): Stores {
    let left = times;
    return {
      ...h.stores,
      // Errors leave it translated, as they leave the real stores.
      transaction: async <T>(fn: (tx: TxStores) => Promise<T>): Promise<T> => {
        const fail = left-- > 0;
        const result = await h.stores.transaction(async (tx) => {
          const r = await fn(tx);
          if (fail && !committed) throw error();
          return r;
        });
        if (fail) throw translateDriverError(error());
        return result;
      },
    };
  }

  const newChannel = (): Promise<Channel> => channelWithMembers(h.stores, makeChannel({ team_id: teamId }), [alice]);
  const post = (channelId: string, i: number, fields: Partial<Post> = {}) => makePost({ channel_id: channelId, user_id: alice, create_at: 1000 + i, ...fields });
  const stored = async (posts: Post[]) => (await h.stores.posts.getMany(posts.map((p) => p.id))).length;

  test('concurrent writes share transactions; each caller resolves with its own result once its posts are readable', async () => {
    const ch = await newChannel();
    const writer = postWriter();
    const posts = Array.from({ length: 40 }, (_, i) => post(ch.id, i));
    const seen: boolean[] = [];
    const results = await Promise.all(
      posts.map((p) =>
        writer.submit({ channelId: ch.id, posts: [p] }).then(async (id) => {
          seen.push((await h.stores.posts.get(id)) !== undefined);
          return id;
        }),
      ),
    );
    expect(results).toEqual(posts.map((p) => p.id));
    expect(seen).toEqual(posts.map(() => true));
    expect(writer.stats.items).toBe(40);
    expect(writer.stats.transactions).toBeLessThan(10);
    expect((await h.stores.channels.get(ch.id))?.total_msg_count).toBe(40);
  });

  test('with a spacing, writes that trickle in one at a time share a transaction; an idle queue starts at once', async () => {
    const ch = await newChannel();
    const SPACING_MS = 300;
    const batches: number[] = [];
    const waited: number[] = [];
    let submittedAt = 0;
    const spaced = new GroupCommit<Item, string>(
      h.stores,
      async (tx, items) => {
        waited.push(performance.now() - submittedAt);
        batches.push(items.length);
        await writeItems(tx, items);
        return items.map((i) => i.posts[0].id);
      },
      { concurrency: 1, spacingMs: SPACING_MS },
    );
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    submittedAt = performance.now();
    await spaced.submit({ channelId: ch.id, posts: [post(ch.id, 0)] });
    // Three writes, each in a later turn of the event loop (without a spacing, a transaction each), all within the
    // spacing of the first transaction: they wait for it to be due and share one.
    const trickle = [1, 2, 3].map((i) => post(ch.id, i));
    const done: Array<Promise<string>> = [];
    for (const p of trickle) {
      done.push(spaced.submit({ channelId: ch.id, posts: [p] }));
      await pause(10);
    }
    expect(await Promise.all(done)).toEqual(trickle.map((p) => p.id));
    expect(batches).toEqual([1, 3]);
    expect(await stored(trickle)).toBe(3);
    // Long after the last transaction, a write does not wait for the spacing.
    await pause(SPACING_MS + 50);
    submittedAt = performance.now();
    await spaced.submit({ channelId: ch.id, posts: [post(ch.id, 4)] });
    expect(batches).toEqual([1, 3, 1]);
    expect(waited[2]).toBeLessThan(SPACING_MS);
    expect(spaced.stats).toMatchObject({ transactions: 3, items: 5 });
  });

  test('with a spacing and two transactions at once, the one due takes what queued and the other finds nothing to do', async () => {
    const ch = await newChannel();
    const batches: number[] = [];
    let release = () => undefined as void;
    const held = new Promise<void>((r) => (release = r));
    const first = post(ch.id, 10);
    const spaced = new GroupCommit<Item, string>(
      h.stores,
      async (tx, items) => {
        batches.push(items.length);
        if (items[0]?.posts[0].id === first.id) await held;
        await writeItems(tx, items);
        return items.map((i) => i.posts[0].id);
      },
      { concurrency: 2, spacingMs: 200 },
    );
    const a = spaced.submit({ channelId: ch.id, posts: [first] });
    await new Promise((r) => setImmediate(r));
    // While the first transaction is held open, a second drain is scheduled for when the spacing allows; the first
    // drain, once done, also waits for that moment. Only one of them may take the write.
    const second = post(ch.id, 11);
    const b = spaced.submit({ channelId: ch.id, posts: [second] });
    release();
    expect(await Promise.all([a, b])).toEqual([first.id, second.id]);
    await new Promise((r) => setTimeout(r, 250));
    expect(batches).toEqual([1, 1]);
    expect(spaced.stats).toMatchObject({ transactions: 2, items: 2 });
  });

  test('a failing write in a shared transaction gets its own error; every other write of that transaction commits', async () => {
    const ch = await newChannel();
    const existing = post(ch.id, 0);
    await writePosts(h.stores, ch.id, [existing]);
    const writer = postWriter();
    const good = Array.from({ length: 6 }, (_, i) => post(ch.id, i + 1));
    // The bad write carries three posts, the last one a duplicate: none of its posts may be stored (all or none).
    const bad = [post(ch.id, 10), post(ch.id, 11), { ...existing }];
    const outcomes = await Promise.all([
      ...good.slice(0, 3).map((p) => rejection(writer.submit({ channelId: ch.id, posts: [p] }))),
      rejection(writer.submit({ channelId: ch.id, posts: bad })),
      ...good.slice(3).map((p) => rejection(writer.submit({ channelId: ch.id, posts: [p] }))),
    ]);
    expect(outcomes.filter((o) => o === '')).toHaveLength(6);
    expect(outcomes[3]).toMatch(DUPLICATE);
    expect(writer.stats.retriedAlone).toBeGreaterThan(0);
    expect(await stored(good)).toBe(6);
    expect(await stored(bad.slice(0, 2))).toBe(0);
    expect((await h.stores.channels.get(ch.id))?.total_msg_count).toBe(7);
  });

  test('writes to several channels in one transaction move each channel by its own posts only', async () => {
    const [a, b] = [await newChannel(), await newChannel()];
    const writer = postWriter();
    const reply = (root: Post, i: number) => post(root.channel_id, i, { root_id: root.id });
    const rootA = post(a.id, 1);
    const rootB = post(b.id, 2);
    await Promise.all([
      writer.submit({ channelId: a.id, posts: [rootA] }),
      writer.submit({ channelId: b.id, posts: [rootB] }),
      writer.submit({ channelId: a.id, posts: [reply(rootA, 3), reply(rootA, 4)] }),
      writer.submit({ channelId: b.id, posts: [post(b.id, 5)] }),
    ]);
    const [ca, cb] = [await h.stores.channels.get(a.id), await h.stores.channels.get(b.id)];
    expect([ca?.total_msg_count, ca?.total_msg_count_root, ca?.last_post_at, ca?.last_root_post_at]).toEqual([3, 1, 1004, 1001]);
    expect([cb?.total_msg_count, cb?.total_msg_count_root, cb?.last_post_at, cb?.last_root_post_at]).toEqual([2, 2, 1005, 1005]);
  });

  test('posts too large for one INSERT together are split over several statements of the same transaction', async () => {
    const ch = await newChannel();
    const writer = postWriter();
    // 300 posts (over the rows-per-INSERT cap) and a few large ones (over the characters-per-INSERT cap).
    const many = Array.from({ length: 300 }, (_, i) => post(ch.id, i));
    const large = Array.from({ length: 3 }, (_, i) => post(ch.id, 400 + i, { props: { blob: 'x'.repeat(600_000) } }));
    await Promise.all([writer.submit({ channelId: ch.id, posts: many }), writer.submit({ channelId: ch.id, posts: large })]);
    expect(await stored([...many, ...large])).toBe(303);
    expect((await h.stores.posts.get(large[2].id))?.props.blob).toHaveLength(600_000);
  });

  test('when no transaction can begin (database unreachable), every waiting write fails at once with that error', async () => {
    let attempts = 0;
    const unreachable = {
      transaction: async () => {
        attempts++;
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED' });
      },
    } as unknown as Stores;
    const writer = new GroupCommit<number, number>(unreachable, async (_tx, items) => items);
    const outcomes = await Promise.all([1, 2, 3, 4, 5].map((i) => rejection(writer.submit(i))));
    expect(outcomes).toEqual([1, 2, 3, 4, 5].map(() => 'connect ECONNREFUSED 127.0.0.1:3306'));
    // One attempt for the shared transaction, none one by one.
    expect(attempts).toBe(1);
  });

  describe('the database not answering in time (hung)', () => {
    const timedOut = () => new DatabaseError('timeout', 'The database did not answer within 3 s.');

    test.each([
      ['during a statement', 'statement'],
      ['at COMMIT', 'commit'],
    ] as const)('%s: every write of the transaction gets the 503-class error at once, not retried alone nor checked', async (_when, hungAt) => {
      const ch = await newChannel();
      // The real stores; every transaction begins, then a statement or the COMMIT times out (and nothing is kept).
      const hung = failingAtCommit(Infinity, false, timedOut);
      let checks = 0;
      const writer = new GroupCommit<Item, string>(
        hung,
        async (tx, items) => {
          if (hungAt === 'statement') throw timedOut();
          await writeItems(tx, items);
          return items.map((i) => i.posts[0].id);
        },
        {
          recover: async () => {
            checks++;
            return undefined;
          },
        },
      );
      const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => rejection(writer.submit({ channelId: ch.id, posts: [post(ch.id, i)] }))));
      expect(outcomes).toEqual(Array(6).fill('The database did not answer within 3 s.'));
      // One transaction for the whole batch (the first write may run alone before the others queue up): no retries.
      expect(writer.stats.transactions).toBeLessThanOrEqual(2);
      expect(writer.stats.retriedAlone).toBe(0);
      expect(checks).toBe(0);
    });
  });

  describe('a connection lost around COMMIT', () => {
    function writerOver(stores: Stores, recover: (items: Item[]) => Promise<boolean[] | undefined>): GroupCommit<Item, boolean> {
      return new GroupCommit<Item, boolean>(
        stores,
        async (tx, items) => {
          await writeItems(tx, items);
          return items.map(() => true);
        },
        { recover },
      );
    }

    async function submitAll(writer: GroupCommit<Item, boolean>, ch: Channel, n: number): Promise<{ outcomes: string[]; posts: Post[] }> {
      // Two posts per write: recovery must see a write whole, never half of it.
      const writes = Array.from({ length: n }, (_, i) => [post(ch.id, 2 * i), post(ch.id, 2 * i + 1)]);
      const outcomes = await Promise.all(writes.map((posts) => rejection(writer.submit({ channelId: ch.id, posts }))));
      return { outcomes, posts: writes.flat() };
    }

    /** Every caller answered ok, and every post stored and counted in its channel exactly once. */
    async function expectEachStoredOnce(ch: Channel, { outcomes, posts }: { outcomes: string[]; posts: Post[] }): Promise<void> {
      expect(outcomes).toEqual(Array(outcomes.length).fill(''));
      expect(await stored(posts)).toBe(posts.length);
      expect((await h.stores.channels.get(ch.id))?.total_msg_count).toBe(posts.length);
    }

    test('a batch committed but unanswered is found committed: every caller ok, nothing written twice', async () => {
      const ch = await newChannel();
      const writer = writerOver(failingAtCommit(1, true), (items) => findCommitted(h.stores, items));
      const written = await submitAll(writer, ch, 8);
      await expectEachStoredOnce(ch, written);
      expect(writer.stats.recovered).toBe(8);
      expect(writer.stats.retriedAlone).toBe(0);
    });

    test('when the check itself fails, the retries find their own rows stored and answer ok instead of a duplicate error', async () => {
      const ch = await newChannel();
      let checks = 0;
      const writer = writerOver(failingAtCommit(1, true), async (items) => {
        // The first check runs on a dead connection too.
        if (checks++ === 0) throw lost();
        return findCommitted(h.stores, items);
      });
      const written = await submitAll(writer, ch, 6);
      await expectEachStoredOnce(ch, written);
      expect(writer.stats.retriedAlone).toBe(6);
      expect(writer.stats.recovered).toBe(6);
    });

    test('a batch rolled back at its end is not taken for committed: its writes are retried and stored once', async () => {
      const ch = await newChannel();
      const writer = writerOver(failingAtCommit(1, false), (items) => findCommitted(h.stores, items));
      const written = await submitAll(writer, ch, 5);
      await expectEachStoredOnce(ch, written);
      expect(writer.stats.recovered).toBe(0);
      expect(writer.stats.retriedAlone).toBe(5);
    });

    test('a write colliding with rows stored before is not taken for committed: it fails with the duplicate error', async () => {
      const ch = await newChannel();
      const existing = post(ch.id, 0);
      await writePosts(h.stores, ch.id, [existing]);
      const writer = writerOver(h.stores, (items) => findCommitted(h.stores, items));
      const fresh = post(ch.id, 1);
      expect(await rejection(writer.submit({ channelId: ch.id, posts: [fresh, { ...existing }] }))).toMatch(DUPLICATE);
      expect(writer.stats.recovered).toBe(0);
      expect(await stored([fresh])).toBe(0);
    });
  });
});
