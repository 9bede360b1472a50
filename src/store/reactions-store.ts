import type { Reaction } from '../model';
import { Executor, Row, num, str } from './rows';

/** Reactions are written from their key and times (save), never from a whole record: no toRow. */
const TABLE = 'reactions';

function mapRow(r: Row): Reaction {
  return {
    user_id: str(r.user_id),
    post_id: str(r.post_id),
    emoji_name: str(r.emoji_name),
    create_at: num(r.create_at),
    update_at: num(r.update_at),
    delete_at: num(r.delete_at),
    // Shared channels (remote clusters) do not exist here; Mattermost serialises an unset id as "".
    remote_id: '',
    channel_id: str(r.channel_id),
  };
}

/** Post ids per query: well under SQLite's 32766 variables and MySQL's packet size. */
const IDS_PER_QUERY = 1000;

export class ReactionsStore {
  constructor(private readonly db: Executor) {}

  /**
   * Adds a reaction, or revives one removed before (its row is kept, soft-deleted). A reaction already in place is
   * left as it is (only its update_at moves): reacting twice is one reaction. Returns the reaction as stored.
   */
  async save(r: { post_id: string; user_id: string; emoji_name: string; channel_id: string }, now: number): Promise<Reaction> {
    const key = { post_id: r.post_id, user_id: r.user_id, emoji_name: r.emoji_name };
    const existing = await this.db(TABLE).where(key).first();
    if (!existing) {
      await this.db(TABLE).insert({ ...key, channel_id: r.channel_id, create_at: now, update_at: now, delete_at: 0 });
    } else if (num(existing.delete_at) !== 0) {
      await this.db(TABLE).where(key).update({ channel_id: r.channel_id, create_at: now, update_at: now, delete_at: 0 });
    } else {
      await this.db(TABLE).where(key).update({ update_at: now });
    }
    return mapRow((await this.db(TABLE).where(key).first()) as Row);
  }

  /** Soft-deletes a reaction in place; returns it as removed, or undefined when there was none. */
  async remove(key: { post_id: string; user_id: string; emoji_name: string }, now: number): Promise<Reaction | undefined> {
    const changed = await this.db(TABLE).where({ ...key, delete_at: 0 }).update({ update_at: now, delete_at: now });
    if (changed === 0) return undefined;
    return mapRow((await this.db(TABLE).where(key).first()) as Row);
  }

  /** The reactions in place on the given posts, oldest first (ties in a stable order). */
  async forPosts(postIds: string[]): Promise<Reaction[]> {
    const ids = [...new Set(postIds)];
    const out: Reaction[] = [];
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
      const rows = await this.db(TABLE)
        .whereIn('post_id', ids.slice(i, i + IDS_PER_QUERY))
        .where('delete_at', 0)
        .orderBy([{ column: 'create_at' }, { column: 'user_id' }, { column: 'emoji_name' }]);
      out.push(...(rows as Row[]).map(mapRow));
    }
    return ids.length > IDS_PER_QUERY ? out.sort((a, b) => a.create_at - b.create_at) : out;
  }

  /** The different emoji in place on a post: for the per-post limit. */
  async emojiOnPost(postId: string): Promise<Set<string>> {
    const rows = await this.db(TABLE).where({ post_id: postId, delete_at: 0 }).distinct('emoji_name');
    return new Set((rows as Row[]).map((r) => str(r.emoji_name)));
  }
}
