import type { Post } from '../model';

/** How long a pending_post_id is remembered: Mattermost's window. */
export const PENDING_POST_TTL_MS = 30_000;
/** At most this many remembered ids (Mattermost's cache size); the oldest are forgotten first. */
export const PENDING_POST_MAX_ENTRIES = 25_000;

interface Entry {
  expires: number;
  /** Set once the first request's post is committed. */
  postId?: string;
  /** Settles when the first request is answered, either way. */
  settled: Promise<void>;
}

/**
 * CreatePost made idempotent as in Mattermost: the web and mobile apps send a pending_post_id with each post and the
 * same one again when they retry (after a timeout, a lost answer, a reconnect). Within 30 s the retry gets the post
 * the first request created instead of a second copy. A retry that arrives while the first is still being written
 * waits for it (Mattermost answers that case with a 500). A request that failed is forgotten, so its retry posts.
 * Per process, as in Mattermost: a retry sent to another process, or after a restart, creates a new post.
 */
export class PendingPosts {
  // Entries are added with a fixed lifetime, so insertion order is expiry order: the oldest are always first.
  private readonly seen = new Map<string, Entry>();

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = PENDING_POST_TTL_MS,
    private readonly maxEntries = PENDING_POST_MAX_ENTRIES,
  ) {}

  /**
   * The post for `key`: the one created for it within the window if it is still there (`find` reads it back),
   * otherwise a new one from `create`.
   */
  async once(key: string, create: () => Promise<Post>, find: (postId: string) => Promise<Post | undefined>): Promise<Post> {
    for (;;) {
      const entry = this.current(key);
      if (!entry) break;
      if (entry.postId === undefined) {
        await entry.settled;
        continue;
      }
      const post = await find(entry.postId);
      if (post) return post;
      // Deleted since: the retry posts anew.
      this.forget(key, entry);
      break;
    }
    let settle!: () => void;
    const entry: Entry = { expires: this.now() + this.ttlMs, settled: new Promise((resolve) => (settle = resolve)) };
    this.remember(key, entry);
    try {
      const post = await create();
      entry.postId = post.id;
      return post;
    } catch (err) {
      this.forget(key, entry);
      throw err;
    } finally {
      settle();
    }
  }

  get size(): number {
    return this.seen.size;
  }

  private current(key: string): Entry | undefined {
    const entry = this.seen.get(key);
    if (entry && entry.expires <= this.now()) {
      this.seen.delete(key);
      return undefined;
    }
    return entry;
  }

  private remember(key: string, entry: Entry): void {
    const now = this.now();
    for (const [k, e] of this.seen) {
      if (e.expires > now && this.seen.size < this.maxEntries) break;
      this.seen.delete(k);
    }
    this.seen.set(key, entry);
  }

  private forget(key: string, entry: Entry): void {
    if (this.seen.get(key) === entry) this.seen.delete(key);
  }
}
