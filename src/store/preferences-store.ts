import { FLAGGED_POST_CATEGORY, type Preference } from '../model';
import { Executor, Row, paged, str } from './rows';

const TABLE = 'preferences';

function mapRow(r: Row): Preference {
  return { user_id: str(r.user_id), category: str(r.category), name: str(r.name), value: str(r.value) };
}

function toRow(p: Preference): Row {
  return { user_id: p.user_id, category: p.category, name: p.name, value: p.value };
}

/**
 * Which saved posts to list: one channel's, else one team's (with direct and group channels, which belong to no team),
 * else all.
 */
export interface FlaggedScope {
  channelId?: string;
  teamId?: string;
}

export class PreferencesStore {
  constructor(private readonly db: Executor) {}

  /**
   * Stores each preference, replacing the value under the same key (the last one wins when a key repeats). Callers run
   * it in a transaction: several rows change together or not at all.
   */
  async save(preferences: Preference[]): Promise<void> {
    if (preferences.length === 0) return;
    await this.db(TABLE).insert(preferences.map(toRow)).onConflict(['user_id', 'category', 'name']).merge(['value']);
  }

  /** Deletes the preferences with these keys; a key not stored is nothing to delete. */
  async delete(userId: string, keys: Array<{ category: string; name: string }>): Promise<void> {
    for (const k of keys) await this.db(TABLE).where({ user_id: userId, category: k.category, name: k.name }).delete();
  }

  /** Deletes the user's preferences of one category with these names, a few hundred per statement. */
  async deleteNames(userId: string, category: string, names: string[]): Promise<void> {
    for (let i = 0; i < names.length; i += 200) await this.db(TABLE).where({ user_id: userId, category }).whereIn('name', names.slice(i, i + 200)).delete();
  }

  async all(userId: string): Promise<Preference[]> {
    const rows = await this.db(TABLE).where({ user_id: userId }).orderBy([{ column: 'category' }, { column: 'name' }]);
    return (rows as Row[]).map(mapRow);
  }

  async category(userId: string, category: string): Promise<Preference[]> {
    const rows = await this.db(TABLE).where({ user_id: userId, category }).orderBy('name');
    return (rows as Row[]).map(mapRow);
  }

  async get(userId: string, category: string, name: string): Promise<Preference | undefined> {
    const row = (await this.db(TABLE).where({ user_id: userId, category, name }).first()) as Row | undefined;
    return row ? mapRow(row) : undefined;
  }

  /**
   * Ids of the posts the user saved that are not deleted, newest first, one page of them: preferences joined to posts
   * (and to channels for a team's), so deleted posts never take a place in the page.
   */
  async flaggedPostIds(userId: string, scope: FlaggedScope, page: number, perPage: number): Promise<string[]> {
    const q = this.db(`${TABLE} as pf`)
      .join('posts as p', 'p.id', 'pf.name')
      .where({ 'pf.user_id': userId, 'pf.category': FLAGGED_POST_CATEGORY, 'pf.value': 'true', 'p.delete_at': 0 })
      .select('p.id')
      .orderBy([{ column: 'p.create_at', order: 'desc' }, { column: 'p.id', order: 'desc' }]);
    const { channelId, teamId } = scope;
    if (channelId) q.where('p.channel_id', channelId);
    else if (teamId) q.join('channels as c', 'c.id', 'p.channel_id').where((w) => w.where('c.team_id', teamId).orWhere('c.team_id', ''));
    return ((await paged(q, page, perPage)) as Row[]).map((r) => str(r.id));
  }
}
