// The email outbox on every database: the bounded claim of due rows (oldest first, never a row that is not due or that
// a live claim holds), the per-user claim that batching uses, and nextDue (when the worker should wake next).
import { newId, sortableId } from '../../src/lib/ids';
import type { OutboxRow } from '../../src/store/email-outbox-store';
import { forEachDatabase } from './fixtures';

forEachDatabase((h) => {
  const row = (fields: Partial<OutboxRow> = {}): OutboxRow => ({
    id: sortableId(fields.create_at ?? 100), user_id: newId(), post_ids: [newId()], channel_id: newId(), team_id: newId(),
    create_at: 100, next_attempt_at: 100, attempts: 0, ...fields,
  });
  const outbox = () => h.stores.emailOutbox;

  test('claimDue takes at most the limit, the longest waiting first, and skips rows not yet due or held by a live claim', async () => {
    const user = newId();
    const due = [300, 100, 200].map((at) => row({ user_id: user, next_attempt_at: at, create_at: at }));
    const later = row({ next_attempt_at: 5000 });
    const held = row({ next_attempt_at: 50 });
    await outbox().enqueue([...due, later, held]);
    expect((await outbox().claimDue('holder', 1000, 1000 + 60_000, 10)).map((r) => r.id)).toEqual(
      expect.arrayContaining([...due, held].map((r) => r.id)),
    );
    // Every due row is now held; give the three back and keep `held` claimed.
    await outbox().release(due.map((r) => r.id), 'holder', 100, false);

    const first = await outbox().claimDue('a', 1000, 1000 + 60_000, 2);
    expect(first.map((r) => r.next_attempt_at)).toEqual([100, 100]);
    const second = await outbox().claimDue('b', 1000, 1000 + 60_000, 2);
    expect(second).toHaveLength(1);
    expect(new Set([...first, ...second].map((r) => r.id))).toEqual(new Set(due.map((r) => r.id)));

    // Given back at distinct times: the longest waiting comes first, a page at a time.
    await outbox().release(first.map((r) => r.id), 'a', 400, true);
    await outbox().release(second.map((r) => r.id), 'b', 300, false);
    const page = await outbox().claimDue('c', 1000, 1000 + 60_000, 1);
    expect(page.map((r) => r.id)).toEqual([second[0].id]);
    const rest = await outbox().claimDue('d', 1000, 1000 + 60_000, 5);
    expect(rest.map((r) => [r.next_attempt_at, r.attempts])).toEqual([[400, 1], [400, 1]]);
    // The row due at 5000 is not taken before then, and nothing is left now.
    expect(await outbox().claimDue('e', 1000, 1000 + 60_000, 5)).toEqual([]);
    expect((await outbox().claimDue('f', 5000, 5000 + 60_000, 5)).map((r) => r.id)).toEqual([later.id]);
    // An expired claim is claimable again.
    expect((await outbox().claimDue('g', 1000 + 60_001, 1000 + 120_000, 5)).map((r) => r.id)).toContain(held.id);
  });

  test('claim takes every unclaimed row of the users, sorted by recipient then age; nextDue is the earliest unclaimed', async () => {
    const [u1, u2, other] = [newId(), newId(), newId()];
    const rows = [
      row({ user_id: u1, create_at: 30, next_attempt_at: 30 }),
      row({ user_id: u2, create_at: 10, next_attempt_at: 10 }),
      row({ user_id: u1, create_at: 20, next_attempt_at: 9000 }),
      row({ user_id: other, create_at: 40, next_attempt_at: 40 }),
    ];
    const before = await outbox().nextDue(0);
    await outbox().enqueue(rows);
    expect(await outbox().nextDue(0)).toBe(Math.min(10, before ?? Infinity));
    const claimed = await outbox().claim([u1, u2], 'tok', 0, 60_000);
    const expected = [rows[0], rows[1], rows[2]].sort((a, b) => a.user_id.localeCompare(b.user_id) || a.create_at - b.create_at);
    expect(claimed.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    // Held rows are not due for the worker; the other user's is.
    expect(await outbox().nextDue(0)).toBe(before === undefined ? 40 : Math.min(40, before));
    await outbox().remove(claimed.map((r) => r.id), 'tok');
    expect(await outbox().forUser(u1)).toEqual([]);
    await outbox().remove([rows[3].id], 'not-the-holder');
    expect(await outbox().forUser(other)).toHaveLength(1);
  });

  test('a row lists its posts in order; keep shortens the list only while the token holds the row', async () => {
    const user = newId();
    const posts = [newId(), newId(), newId()];
    const listed = row({ user_id: user, post_ids: posts, create_at: 10, next_attempt_at: 10 });
    await outbox().enqueue([listed]);
    expect((await outbox().forUser(user)).map((r) => r.post_ids)).toEqual([posts]);
    const [held] = await outbox().claim([user], 'tok', 20, 60_000);
    expect(held.post_ids).toEqual(posts);
    await outbox().keep(listed.id, 'someone-else', []);
    await outbox().keep(listed.id, 'tok', posts.slice(2));
    expect((await outbox().forUser(user)).map((r) => r.post_ids)).toEqual([posts.slice(2)]);
  });
});
