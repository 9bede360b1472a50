import { FAVORITE_CHANNEL_CATEGORY, SIDEBAR_LIMITS, type SidebarCategoryRecord } from '../model';
import { Executor, Row, bool, num, str } from './rows';

const TABLE = 'sidebar_categories';
const CHANNELS = 'sidebar_channels';

/** Ids per statement: far below every dialect's limit on bound values, whatever the number of a user's channels. */
const CHUNK = 200;

function chunks<T>(list: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

function mapRow(r: Row): SidebarCategoryRecord {
  return {
    id: str(r.id),
    user_id: str(r.user_id),
    team_id: str(r.team_id),
    sort_order: num(r.sort_order),
    sorting: str(r.sorting) as SidebarCategoryRecord['sorting'],
    type: str(r.type) as SidebarCategoryRecord['type'],
    display_name: str(r.display_name),
    muted: bool(r.muted),
    collapsed: bool(r.collapsed),
  };
}

function toRow(c: SidebarCategoryRecord): Row {
  return { id: c.id, user_id: c.user_id, team_id: c.team_id, sort_order: c.sort_order, sorting: c.sorting, type: c.type, display_name: c.display_name, muted: c.muted, collapsed: c.collapsed };
}

/** A channel the user placed in one of their categories. */
export interface PlacedChannel {
  categoryId: string;
  channelId: string;
}

/** A channel of the user's that they have not placed: it belongs to Channels or Direct Messages. */
export interface UnplacedChannel {
  channelId: string;
  type: string;
}

/** The channels placed in one category, in order. */
export interface Placement {
  categoryId: string;
  channelIds: string[];
}

/**
 * Users' sidebar categories (one row per category) and the channels they placed in them (one row per user, team and
 * channel: a channel is in at most one category of a user's sidebar on a team).
 */
export class SidebarStore {
  constructor(private readonly db: Executor) {}

  /** The user's categories on the team, in the sidebar's order. */
  async categories(userId: string, teamId: string): Promise<SidebarCategoryRecord[]> {
    const rows = await this.db(TABLE).where({ user_id: userId, team_id: teamId }).orderBy([{ column: 'sort_order' }, { column: 'id' }]);
    return (rows as Row[]).map(mapRow);
  }

  async category(id: string): Promise<SidebarCategoryRecord | undefined> {
    const row = (await this.db(TABLE).where({ id }).first()) as Row | undefined;
    // MySQL's collation folds case: only the exact id is this category.
    return row && str(row.id) === id ? mapRow(row) : undefined;
  }

  /** Adds categories; one whose id exists already (a default one, created meanwhile by another request) is skipped. */
  async insertCategories(categories: SidebarCategoryRecord[]): Promise<void> {
    if (categories.length === 0) return;
    await this.db(TABLE).insert(categories.map(toRow)).onConflict('id').ignore();
  }

  /** Writes a category's settings (its id, owner, team, type and place stay). */
  async updateCategory(c: SidebarCategoryRecord): Promise<void> {
    await this.db(TABLE).where({ id: c.id }).update({ display_name: c.display_name, sorting: c.sorting, muted: c.muted, collapsed: c.collapsed });
  }

  /** Numbers the categories 0, 10, 20, ... in the order given. */
  async setOrder(ids: string[]): Promise<void> {
    for (const [i, id] of ids.entries()) await this.db(TABLE).where({ id }).update({ sort_order: i * SIDEBAR_LIMITS.sortStep });
  }

  /** Deletes a category and the placements in it (its channels go back to the default categories). */
  async deleteCategory(id: string): Promise<void> {
    await this.db(CHANNELS).where({ category_id: id }).delete();
    await this.db(TABLE).where({ id }).delete();
  }

  async countCustom(userId: string, teamId: string): Promise<number> {
    const row = await this.db(TABLE).where({ user_id: userId, team_id: teamId, type: 'custom' }).count<{ n: number }[]>({ n: '*' }).first();
    return num(row?.n);
  }

  /**
   * The channels the user placed in their categories on the team (in one category, when given), each category's in
   * order; a placement of a channel the user is no longer a member of is not one.
   */
  async placed(userId: string, teamId: string, categoryId?: string): Promise<PlacedChannel[]> {
    const q = this.db(`${CHANNELS} as sc`)
      .join('channel_members as m', (j) => j.on('m.channel_id', 'sc.channel_id').andOn('m.user_id', 'sc.user_id'))
      .where({ 'sc.user_id': userId, 'sc.team_id': teamId })
      .select({ categoryId: 'sc.category_id', channelId: 'sc.channel_id' })
      .orderBy([{ column: 'sc.category_id' }, { column: 'sc.sort_order' }, { column: 'sc.channel_id' }]);
    if (categoryId !== undefined) q.where('sc.category_id', categoryId);
    return (await q).map((r: Row) => ({ categoryId: str(r.categoryId), channelId: str(r.channelId) }));
  }

  /**
   * The user's channels on the team and their direct and group channels that they have not placed and that are not
   * archived, by display name: Mattermost's "orphaned" channels, which the sidebar shows in Channels or Direct
   * Messages.
   */
  async unplaced(userId: string, teamId: string): Promise<UnplacedChannel[]> {
    const rows = await this.db('channel_members as m')
      .join('channels as c', 'c.id', 'm.channel_id')
      .leftJoin(`${CHANNELS} as sc`, (j) => j.on('sc.user_id', 'm.user_id').andOn('sc.channel_id', 'm.channel_id').andOn('sc.team_id', this.db.raw('?', [teamId])))
      .where({ 'm.user_id': userId, 'c.delete_at': 0 })
      .where((w) => w.where('c.team_id', teamId).orWhere('c.team_id', ''))
      .whereNull('sc.channel_id')
      .select({ channelId: 'c.id', type: 'c.type' })
      .orderBy([{ column: 'c.display_name' }, { column: 'c.id' }]);
    return (rows as Row[]).map((r) => ({ channelId: str(r.channelId), type: str(r.type) }));
  }

  /**
   * Replaces the channels of the categories `cleared` with `placements` (each category's channels numbered 0, 10,
   * 20, ...); a channel placed here leaves whichever other category of the user's on the team it was in. Callers run
   * it in a transaction and list each channel once.
   */
  async place(userId: string, teamId: string, cleared: string[], placements: Placement[]): Promise<void> {
    for (const ids of chunks(cleared)) await this.db(CHANNELS).whereIn('category_id', ids).delete();
    const moved = placements.flatMap((p) => p.channelIds);
    for (const ids of chunks(moved)) await this.db(CHANNELS).where({ user_id: userId, team_id: teamId }).whereIn('channel_id', ids).delete();
    const rows = placements.flatMap((p) =>
      p.channelIds.map((channelId, i) => ({ user_id: userId, team_id: teamId, channel_id: channelId, category_id: p.categoryId, sort_order: i * SIDEBAR_LIMITS.sortStep })),
    );
    for (const part of chunks(rows)) await this.db(CHANNELS).insert(part);
  }

  /**
   * Puts a channel first in a category (the sort order below the category's lowest), leaving the category it was in
   * on that team; nothing when it is there already.
   */
  async placeFirst(userId: string, teamId: string, categoryId: string, channelId: string): Promise<void> {
    const current = (await this.db(CHANNELS).where({ user_id: userId, team_id: teamId, channel_id: channelId }).first()) as Row | undefined;
    if (current && str(current.category_id) === categoryId) return;
    if (current) await this.db(CHANNELS).where({ user_id: userId, team_id: teamId, channel_id: channelId }).delete();
    const low = (await this.db(CHANNELS).where({ category_id: categoryId }).min({ low: 'sort_order' }).first()) as Row | undefined;
    const sortOrder = low?.low === null || low?.low === undefined ? 0 : num(low.low) - SIDEBAR_LIMITS.sortStep;
    await this.db(CHANNELS).insert({ user_id: userId, team_id: teamId, channel_id: channelId, category_id: categoryId, sort_order: sortOrder });
  }

  /**
   * Places channels in a new category, in order, skipping any already placed (the favourites a new favorites
   * category starts with, which two first reads may both write).
   */
  async seed(userId: string, teamId: string, categoryId: string, channelIds: string[]): Promise<void> {
    const rows = channelIds.map((channelId, i) => ({ user_id: userId, team_id: teamId, channel_id: channelId, category_id: categoryId, sort_order: i * SIDEBAR_LIMITS.sortStep }));
    for (const part of chunks(rows)) await this.db(CHANNELS).insert(part).onConflict(['user_id', 'team_id', 'channel_id']).ignore();
  }

  /** The user's categories of a type: on one team, or on every team. */
  async categoriesOfType(userId: string, type: SidebarCategoryRecord['type'], teamId?: string): Promise<SidebarCategoryRecord[]> {
    const q = this.db(TABLE).where({ user_id: userId, type });
    if (teamId !== undefined) q.where('team_id', teamId);
    return ((await q) as Row[]).map(mapRow);
  }

  /** Takes a channel out of the user's categories of a type (out of favorites: it goes back to its default category). */
  async unplaceFromType(userId: string, channelId: string, type: SidebarCategoryRecord['type']): Promise<void> {
    await this.db(CHANNELS)
      .where({ user_id: userId, channel_id: channelId })
      .whereIn('category_id', (sub) => sub.select('id').from(TABLE).where({ user_id: userId, type }))
      .delete();
  }

  /** Forgets where the users had placed a channel they left (rejoining puts it back in Channels, as in Mattermost). */
  async removeChannel(channelId: string, userIds: string[]): Promise<void> {
    for (const ids of chunks(userIds)) await this.db(CHANNELS).where({ channel_id: channelId }).whereIn('user_id', ids).delete();
  }

  /** Drops the user's sidebar on a team they left, as Mattermost's ClearSidebarOnTeamLeave does. */
  async clearTeam(userId: string, teamId: string): Promise<void> {
    await this.db(CHANNELS).where({ user_id: userId, team_id: teamId }).delete();
    await this.db(TABLE).where({ user_id: userId, team_id: teamId }).delete();
  }

  /**
   * The channels the user marked as favourites in their preferences (favorite_channel/<id> = "true") that they are a
   * member of, on the team or team-less, by display name: what a new favorites category starts with, as Mattermost
   * migrates them.
   */
  async favoritesFromPreferences(userId: string, teamId: string): Promise<string[]> {
    const rows = await this.db('preferences as p')
      .join('channels as c', 'c.id', 'p.name')
      .join('channel_members as m', (j) => j.on('m.channel_id', 'c.id').andOn('m.user_id', 'p.user_id'))
      .where({ 'p.user_id': userId, 'p.category': FAVORITE_CHANNEL_CATEGORY, 'p.value': 'true' })
      .where((w) => w.where('c.team_id', teamId).orWhere('c.team_id', ''))
      .select('c.id')
      .orderBy([{ column: 'c.display_name' }, { column: 'c.name' }]);
    return (rows as Row[]).map((r) => str(r.id));
  }
}
