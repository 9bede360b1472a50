import type { Post } from '../../src/model';
import { PendingPosts } from '../../src/app/pending-posts';

// The idempotency window of CreatePost (src/app/pending-posts.ts), with a clock the test moves.

let clock = 1_000_000;
const now = () => clock;
let made = 0;
const stored = new Map<string, Post>();

function creator(delayMs = 0, fail?: Error): () => Promise<Post> {
  return async () => {
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    if (fail) throw fail;
    const post = { id: `post${++made}` } as Post;
    stored.set(post.id, post);
    return post;
  };
}
const find = async (id: string) => stored.get(id);

beforeEach(() => {
  clock = 1_000_000;
  made = 0;
  stored.clear();
});

test('a retry within the window gets the first post; after it, a new one', async () => {
  const p = new PendingPosts(now, 30_000);
  const first = await p.once('u:1', creator(), find);
  clock += 29_999;
  expect((await p.once('u:1', creator(), find)).id).toBe(first.id);
  clock += 1;
  expect((await p.once('u:1', creator(), find)).id).not.toBe(first.id);
  expect(made).toBe(2);
});

test('different keys never share a post', async () => {
  const p = new PendingPosts(now);
  const a = await p.once('alice:1', creator(), find);
  const b = await p.once('bob:1', creator(), find);
  expect(a.id).not.toBe(b.id);
});

test('a retry while the first is still being written waits for it and gets the same post', async () => {
  const p = new PendingPosts(now);
  const posts = await Promise.all([p.once('u:1', creator(30), find), p.once('u:1', creator(), find), p.once('u:1', creator(), find)]);
  expect(new Set(posts.map((x) => x.id)).size).toBe(1);
  expect(made).toBe(1);
});

test('a failed request is forgotten: its retry posts, once, even when several retries wait on it', async () => {
  const p = new PendingPosts(now);
  const first = p.once('u:1', creator(20, new Error('database unavailable')), find);
  const retries = [p.once('u:1', creator(10), find), p.once('u:1', creator(10), find)];
  await expect(first).rejects.toThrow('database unavailable');
  const [a, b] = await Promise.all(retries);
  expect(a.id).toBe(b.id);
  expect(made).toBe(1);
});

test('a post deleted since is not returned: the retry posts anew', async () => {
  const p = new PendingPosts(now);
  const first = await p.once('u:1', creator(), find);
  stored.delete(first.id);
  const again = await p.once('u:1', creator(), find);
  expect(again.id).not.toBe(first.id);
});

test('memory is bounded: expired entries and, past the cap, the oldest are dropped', async () => {
  const p = new PendingPosts(now, 1_000, 3);
  for (let i = 0; i < 5; i++) await p.once(`u:${i}`, creator(), find);
  expect(p.size).toBe(3);
  // The two oldest went first: their retries post anew, the newest are still recognised.
  expect((await p.once('u:4', creator(), find)).id).toBe('post5');
  expect((await p.once('u:0', creator(), find)).id).toBe('post6');
  expect(p.size).toBe(3);
  clock += 1_000;
  await p.once('u:new', creator(), find);
  expect(p.size).toBe(1);
});
