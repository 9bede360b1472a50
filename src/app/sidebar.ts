import { isValidId, newId } from '../lib/ids';
import { codePointLength } from '../lib/text';
import {
  AppError,
  DEFAULT_SIDEBAR_CATEGORIES,
  FAVORITE_CHANNEL_CATEGORY,
  SIDEBAR_LIMITS,
  SIDEBAR_SORTINGS,
  defaultCategoryId,
  type ChannelMember,
  type OrderedSidebarCategories,
  type Session,
  type SidebarCategory,
  type SidebarCategoryInput,
  type SidebarCategoryRecord,
  type SidebarCategorySorting,
} from '../model';
import type { StoreSet, TxStores } from '../store';
import { Authz } from './authz';
import type { Deps } from './deps';
import type { Realtime } from './realtime';

const categoryError = (message: string) => AppError.badRequest('app.channel.sidebar_categories.app_error', message);
const categoryMissing = () => AppError.notFound('app.channel.sidebar_categories.app_error', 'Unable to find the sidebar category.');
const notTeamMember = () => AppError.notFound('app.team.get_member.missing.app_error', 'No team member found for that user ID and team ID.');

function checkDisplayName(name: string | undefined): string {
  const value = name ?? '';
  // More than twice the limit in UTF-16 units cannot fit: no need to count it.
  if (value === '' || value.length > 2 * SIDEBAR_LIMITS.displayName || codePointLength(value) > SIDEBAR_LIMITS.displayName) throw AppError.invalidParam('category.display_name');
  return value;
}

function checkSorting(sorting: string | undefined): SidebarCategorySorting {
  const value = sorting ?? '';
  if (!SIDEBAR_SORTINGS.includes(value as SidebarCategorySorting)) throw AppError.invalidParam('category.sorting');
  return value as SidebarCategorySorting;
}

const isDirect = (type: string) => type === 'D' || type === 'G';

/**
 * The legacy favourites kept in step with the favorites categories, as Mattermost's UpdateSidebarChannelsByPreferences
 * does: a channel saved as favorite_channel/<id> = "true" goes first in the user's favorites category (on its team,
 * or on every team for a direct channel), one saved "false" or deleted leaves favorites (back to its default
 * category). Only categories that exist are changed: a favorites category created later starts from these
 * preferences. Runs in the preferences' transaction; answers whether any favourite was among them.
 */
export async function syncFavoritePreferences(tx: TxStores, userId: string, prefs: Array<{ category: string; name: string; value?: string }>, deleted: boolean): Promise<boolean> {
  const favorites = prefs.filter((p) => p.category === FAVORITE_CHANNEL_CATEGORY);
  for (const p of favorites) {
    if (deleted || p.value === 'false') {
      await tx.sidebar.unplaceFromType(userId, p.name, 'favorites');
      continue;
    }
    // A channel the user is not in has no place in their sidebar (Mattermost would fail on an unknown one).
    const channel = isValidId(p.name) ? await tx.channels.get(p.name) : undefined;
    if (!channel || !(await tx.channels.getMember(channel.id, userId))) continue;
    for (const c of await tx.sidebar.categoriesOfType(userId, 'favorites', channel.team_id || undefined)) await tx.sidebar.placeFirst(userId, c.team_id, c.id, channel.id);
  }
  return favorites.length > 0;
}

/**
 * Users' sidebar categories per team (Mattermost's channel categories). Only what a user chose is stored: the
 * categories, and the channels they placed. Every other channel of theirs is put in Channels or Direct Messages when
 * the sidebar is read, as Mattermost does: joining a channel or opening a direct message needs no write here, and a
 * channel left (or a team left) takes its placements with it in the same transaction (src/app/channel-members.ts,
 * src/app/teams.ts), while the reads also ignore a placement of a channel the user is no longer in.
 */
export class SidebarService {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly realtime: Realtime,
  ) {
    this.authz = new Authz(deps);
  }

  /** Mattermost's checks: oneself or edit_other_users, then view_team; and the user must be on the team. */
  private async access(userId: string, teamId: string, session: Session): Promise<void> {
    if (userId !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
    await this.authz.requireTeam(session, teamId, 'view_team');
    if (!(await this.authz.teamMember(teamId, userId))) throw notTeamMember();
  }

  /**
   * Mattermost's SessionHasPermissionToCategory: the caller's own category of this path's team, or any with
   * edit_other_users (here only one of the path's user and team: another is not found through this path).
   */
  private async categoryAccess(userId: string, teamId: string, categoryId: string, session: Session): Promise<SidebarCategoryRecord> {
    const admin = this.authz.system(session, 'edit_other_users');
    if (!admin && userId !== session.userId) throw AppError.forbidden('edit_other_users');
    await this.access(userId, teamId, session);
    await this.ensureDefaults(userId, teamId);
    const found = await this.deps.stores.sidebar.category(categoryId);
    if (!found || found.user_id !== userId || found.team_id !== teamId) throw admin ? categoryMissing() : AppError.forbidden('edit_other_users');
    return found;
  }

  /**
   * The user's categories on the team, the three default ones created the first time they are needed (favorites
   * starting with the user's favorite_channel preferences), as Mattermost's createInitialSidebarCategories does.
   * Deterministic ids make a second concurrent creation a no-op.
   */
  private async ensureDefaults(userId: string, teamId: string): Promise<SidebarCategoryRecord[]> {
    const { stores } = this.deps;
    const existing = await stores.sidebar.categories(userId, teamId);
    const missing = DEFAULT_SIDEBAR_CATEGORIES.filter((d) => !existing.some((c) => c.type === d.type));
    if (missing.length === 0) return existing;
    await stores.transaction(async (tx) => {
      await tx.sidebar.insertCategories(
        missing.map((d) => ({
          id: defaultCategoryId(d.type, userId, teamId),
          user_id: userId,
          team_id: teamId,
          sort_order: DEFAULT_SIDEBAR_CATEGORIES.indexOf(d) * SIDEBAR_LIMITS.sortStep,
          sorting: d.sorting,
          type: d.type,
          display_name: d.displayName,
          muted: false,
          collapsed: false,
        })),
      );
      if (missing.some((d) => d.type === 'favorites')) {
        await tx.sidebar.seed(userId, teamId, defaultCategoryId('favorites', userId, teamId), await tx.sidebar.favoritesFromPreferences(userId, teamId));
      }
    });
    return stores.sidebar.categories(userId, teamId);
  }

  /** The categories with their channels: those placed, then (in Channels and Direct Messages) those not placed. */
  private async withChannels(userId: string, teamId: string, records: SidebarCategoryRecord[], stores: StoreSet = this.deps.stores): Promise<SidebarCategory[]> {
    const only = records.length === 1 ? records[0].id : undefined;
    const placed = await stores.sidebar.placed(userId, teamId, only);
    const defaults = records.some((r) => r.type === 'channels' || r.type === 'direct_messages');
    const unplaced = defaults ? await stores.sidebar.unplaced(userId, teamId) : [];
    const out = records.map((r): SidebarCategory => ({ ...r, channel_ids: [] }));
    const byId = new Map(out.map((c) => [c.id, c]));
    // Direct Messages holds exactly the direct channels placed nowhere else: it stores none of its own.
    for (const p of placed) {
      const c = byId.get(p.categoryId);
      if (c && c.type !== 'direct_messages') c.channel_ids.push(p.channelId);
    }
    const channels = out.find((c) => c.type === 'channels');
    const directs = out.find((c) => c.type === 'direct_messages');
    for (const u of unplaced) (isDirect(u.type) ? directs : channels)?.channel_ids.push(u.channelId);
    return out;
  }

  /**
   * A filter keeping the ids that are the user's channels on the team or their direct channels (archived ones too),
   * each once, in the order given: others are dropped, as Mattermost's validateSidebarCategoryChannels drops them.
   * The user's channels are read only when some id is given.
   */
  private async channelFilter(userId: string, teamId: string, needed: boolean): Promise<(list: string[] | undefined) => string[]> {
    const mine = needed ? new Set((await this.deps.stores.channels.listForUser(teamId, userId, true, 0)).map((c) => c.id)) : new Set<string>();
    return (list) => {
      const seen = new Set<string>();
      return (list ?? []).filter((id) => {
        if (!mine.has(id) || seen.has(id)) return false;
        seen.add(id);
        return true;
      });
    };
  }

  async list(userId: string, teamId: string, session: Session): Promise<OrderedSidebarCategories> {
    await this.access(userId, teamId, session);
    const records = await this.ensureDefaults(userId, teamId);
    return { categories: await this.withChannels(userId, teamId, records), order: records.map((r) => r.id) };
  }

  async order(userId: string, teamId: string, session: Session): Promise<string[]> {
    await this.access(userId, teamId, session);
    return (await this.ensureDefaults(userId, teamId)).map((r) => r.id);
  }

  async get(userId: string, teamId: string, categoryId: string, session: Session): Promise<SidebarCategory> {
    const record = await this.categoryAccess(userId, teamId, categoryId, session);
    return (await this.withChannels(userId, teamId, [record]))[0];
  }

  /** Every category exactly once, in the new order (Mattermost's UpdateSidebarCategoryOrder). */
  async setOrder(userId: string, teamId: string, order: string[], session: Session): Promise<string[]> {
    await this.access(userId, teamId, session);
    const records = await this.ensureDefaults(userId, teamId);
    const mine = new Set(records.map((r) => r.id));
    if (!order.every((id) => mine.has(id))) throw AppError.invalidParam('category');
    if (order.length !== records.length || new Set(order).size !== order.length) throw categoryError('The order must list every sidebar category once.');
    await this.deps.stores.transaction((tx) => tx.sidebar.setOrder(order));
    this.realtime.sidebar('sidebar_category_order_updated', userId, teamId, { order });
    return order;
  }

  /**
   * A custom category, placed after Favorites when Favorites comes first, else first (Mattermost's rule); the
   * channels given leave the category they were in.
   */
  async create(userId: string, teamId: string, input: SidebarCategoryInput, session: Session): Promise<SidebarCategory> {
    await this.access(userId, teamId, session);
    if (input.user_id !== userId || input.team_id !== teamId) throw AppError.invalidParam('category');
    const displayName = checkDisplayName(input.display_name);
    const sorting = checkSorting(input.sorting);
    const records = await this.ensureDefaults(userId, teamId);
    const channelIds = (await this.channelFilter(userId, teamId, (input.channel_ids ?? []).length > 0))(input.channel_ids);
    const id = newId();
    const ids = records.map((r) => r.id);
    const order = records[0]?.type === 'favorites' ? [ids[0], id, ...ids.slice(1)] : [id, ...ids];
    const category: SidebarCategory = {
      id,
      user_id: userId,
      team_id: teamId,
      sort_order: order.indexOf(id) * SIDEBAR_LIMITS.sortStep,
      sorting,
      type: 'custom',
      display_name: displayName,
      muted: input.muted ?? false,
      collapsed: false,
      channel_ids: channelIds,
    };
    const { channel_ids: _placed, ...record } = category;
    await this.deps.stores.transaction(async (tx) => {
      if ((await tx.sidebar.countCustom(userId, teamId)) >= SIDEBAR_LIMITS.customPerTeam) {
        throw categoryError(`A user may have at most ${SIDEBAR_LIMITS.customPerTeam} custom sidebar categories per team.`);
      }
      await tx.sidebar.insertCategories([record]);
      await tx.sidebar.place(userId, teamId, [], [{ categoryId: id, channelIds }]);
      // Channels that were favourites are not any more.
      await tx.preferences.deleteNames(userId, FAVORITE_CHANNEL_CATEGORY, channelIds);
      await tx.sidebar.setOrder(order);
    });
    this.realtime.sidebar('sidebar_category_created', userId, teamId, { category_id: id });
    return category;
  }

  async updateMany(userId: string, teamId: string, inputs: SidebarCategoryInput[], session: Session): Promise<SidebarCategory[]> {
    await this.access(userId, teamId, session);
    return this.apply(userId, teamId, await this.ensureDefaults(userId, teamId), inputs);
  }

  async update(userId: string, teamId: string, categoryId: string, input: SidebarCategoryInput, session: Session): Promise<SidebarCategory> {
    await this.categoryAccess(userId, teamId, categoryId, session);
    if (input.user_id !== userId || input.team_id !== teamId) throw AppError.invalidParam('category');
    const records = await this.deps.stores.sidebar.categories(userId, teamId);
    return (await this.apply(userId, teamId, records, [{ ...input, id: categoryId }]))[0];
  }

  /**
   * Mattermost's UpdateSidebarCategories: each category given is replaced whole, but for what stays (id, owner,
   * team, type, place; the name of a default category; the channels and `muted` of Direct Messages). Where
   * Mattermost would list a channel in two categories (one named in a category of the request while placed in a
   * category the request leaves out), it stays where it is, and a channel may be listed once in a request: a channel
   * is never in two categories. favorite_channel preferences follow Favorites, and a change of `muted` mutes or
   * unmutes the channels concerned, as Mattermost does.
   */
  private async apply(userId: string, teamId: string, records: SidebarCategoryRecord[], inputs: SidebarCategoryInput[]): Promise<SidebarCategory[]> {
    const { stores } = this.deps;
    const byId = new Map(records.map((r) => [r.id, r]));
    const seen = new Set<string>();
    for (const input of inputs) {
      const id = input.id ?? '';
      if (!byId.has(id) || seen.has(id)) throw AppError.invalidParam('category');
      seen.add(id);
    }
    if (inputs.length === 0) return [];
    const own = await this.channelFilter(userId, teamId, inputs.some((i) => (i.channel_ids ?? []).length > 0));
    // Where each placed channel is now. One placed in a category the request does not name stays there: clients send
    // a move as both categories (the destination with it, the source without), so a list naming a channel that sits
    // in a third category is a stale copy (moveChannelToCategory sends the source category as its store last saw it).
    const placedIn = new Map((await stores.sidebar.placed(userId, teamId)).map((p) => [p.channelId, p.categoryId]));
    const stays = (channelId: string) => {
      const at = placedIn.get(channelId);
      return at !== undefined && !seen.has(at);
    };
    const listed = new Set<string>();
    const updated = inputs.map((input): SidebarCategory => {
      const src = byId.get(input.id as string) as SidebarCategoryRecord;
      const directs = src.type === 'direct_messages';
      const channelIds = directs ? [] : own(input.channel_ids).filter((id) => !stays(id));
      for (const channelId of channelIds) {
        if (listed.has(channelId)) throw AppError.invalidParam('category.channel_ids');
        listed.add(channelId);
      }
      return {
        ...src,
        display_name: src.type === 'custom' ? checkDisplayName(input.display_name) : src.display_name,
        sorting: checkSorting(input.sorting),
        muted: directs ? src.muted : (input.muted ?? false),
        collapsed: input.collapsed ?? false,
        channel_ids: channelIds,
      };
    });

    const before = await this.withChannels(userId, teamId, records);
    const wasIn = new Map<string, SidebarCategory>();
    for (const c of before) for (const channelId of c.channel_ids) wasIn.set(channelId, c);
    const unfavorite: string[] = [];
    const favorite: string[] = [];
    const mute: string[] = [];
    const unmute: string[] = [];
    for (const c of updated) {
      if (c.type === 'favorites') {
        unfavorite.push(...(before.find((b) => b.id === c.id)?.channel_ids ?? []));
        favorite.push(...c.channel_ids);
      } else unfavorite.push(...c.channel_ids);
      if (c.type === 'direct_messages') continue;
      for (const channelId of c.channel_ids) if (c.muted !== (wasIn.get(channelId)?.muted ?? false)) (c.muted ? mute : unmute).push(channelId);
    }

    const now = this.deps.now();
    const members: ChannelMember[] = [];
    await stores.transaction(async (tx) => {
      for (const c of updated) await tx.sidebar.updateCategory(c);
      const placements = updated.filter((c) => c.type !== 'direct_messages').map((c) => ({ categoryId: c.id, channelIds: c.channel_ids }));
      await tx.sidebar.place(userId, teamId, updated.map((c) => c.id), placements);
      await tx.preferences.deleteNames(userId, FAVORITE_CHANNEL_CATEGORY, unfavorite);
      await tx.preferences.save(favorite.map((name) => ({ user_id: userId, category: FAVORITE_CHANNEL_CATEGORY, name, value: 'true' })));
      members.push(...(await tx.channels.setMarkUnread(userId, mute, 'mention', now)), ...(await tx.channels.setMarkUnread(userId, unmute, 'all', now)));
    });

    const after = await this.withChannels(userId, teamId, await stores.sidebar.categories(userId, teamId));
    const afterById = new Map(after.map((c) => [c.id, c]));
    // The event carries every category that changed: those given, and those a channel left or fell back to.
    const changed = after.filter((c) => seen.has(c.id) || before.find((b) => b.id === c.id)?.channel_ids.join() !== c.channel_ids.join());
    this.realtime.sidebar('sidebar_category_updated', userId, teamId, { updatedCategories: JSON.stringify(changed) });
    for (const m of members) this.realtime.channelMemberUpdated(m);
    return updated.map((c) => afterById.get(c.id) as SidebarCategory);
  }

  /** Deletes a custom category; its channels go back to Channels or Direct Messages. */
  async remove(userId: string, teamId: string, categoryId: string, session: Session): Promise<void> {
    const record = await this.categoryAccess(userId, teamId, categoryId, session);
    if (record.type !== 'custom') throw categoryError('Only custom sidebar categories can be deleted.');
    await this.deps.stores.transaction((tx) => tx.sidebar.deleteCategory(record.id));
    this.realtime.sidebar('sidebar_category_deleted', userId, teamId, { category_id: record.id });
  }
}
