import { isValidId } from '../lib/ids';
import { codePointLength } from '../lib/text';
import { AppError, FLAGGED_POST_CATEGORY, PREFERENCE_LIMITS, type Post, type PostList, type Preference, type Session } from '../model';
import type { FlaggedScope } from '../store/preferences-store';
import { Authz } from './authz';
import type { Deps } from './deps';
import type { PostsService } from './posts';
import type { Realtime } from './realtime';
import { syncFavoritePreferences } from './sidebar';

/** A preference as a body may give it: any field may be missing (Mattermost reads a missing one as ""). */
export interface PreferenceInput {
  user_id?: string;
  category?: string;
  name?: string;
  value?: string;
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const invalid = (field: string, message: string) => AppError.badRequest(`model.preference.is_valid.${field}.app_error`, message);

/** Mattermost's PreferenceMaxLimitVisibleDmsGmsValue. */
const MAX_VISIBLE_DMS_GMS = 40;

/** Mattermost's theme check: the value decodes as a JSON object of strings (colours and the theme's name). */
function isThemeObject(value: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return false;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return false;
  return Object.values(parsed).every((v) => typeof v === 'string');
}

/** Mattermost's Preference.IsValid, in its order: the first broken rule names itself. Linear in the value's length. */
export function checkPreference(p: Preference): void {
  if (!isValidId(p.user_id)) throw invalid('id', 'Invalid user id.');
  if (p.category === '' || bytes(p.category) > PREFERENCE_LIMITS.categoryBytes) throw invalid('category', 'Invalid category.');
  if (bytes(p.name) > PREFERENCE_LIMITS.nameBytes) throw invalid('name', 'Invalid name.');
  // A value more than twice the limit in UTF-16 units cannot fit (a code point is at most two): no need to count it.
  if (p.value.length > 2 * PREFERENCE_LIMITS.valueRunes || codePointLength(p.value) > PREFERENCE_LIMITS.valueRunes) throw invalid('value', 'Value is too long.');
  if (p.category === 'theme' && !isThemeObject(p.value)) throw invalid('theme', 'Invalid theme.');
  if (p.category === 'sidebar_settings' && p.name === 'limit_visible_dms_gms') {
    const n = /^[0-9]{1,3}$/.test(p.value) ? Number(p.value) : NaN;
    if (!(n >= 1 && n <= MAX_VISIBLE_DMS_GMS)) throw invalid('limit_visible_dms_gms', 'Invalid number of direct and group messages to show.');
  }
}

const normalise = (p: PreferenceInput): Preference => ({ user_id: p.user_id ?? '', category: p.category ?? '', name: p.name ?? '', value: p.value ?? '' });

/** A colour as Mattermost's themes write it: #rgb or #rrggbb. */
const THEME_COLOUR = /^#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?$/;
/** The theme's entries that are not colours. */
const THEME_NOT_COLOURS = new Set(['image', 'type', 'codeTheme']);

/**
 * Mattermost's Preference.PreUpdate: in a theme, every entry but image, type and codeTheme that is not a colour
 * becomes "#ffffff", and the theme is written again with its keys sorted (as Go writes a map). A value that is not a
 * JSON object of strings is left for checkPreference to refuse.
 */
export function sanitizeTheme(p: Preference): Preference {
  if (p.category !== 'theme' || !isThemeObject(p.value)) return p;
  const theme = JSON.parse(p.value) as Record<string, string>;
  const out: Record<string, string> = {};
  for (const key of Object.keys(theme).sort()) out[key] = THEME_NOT_COLOURS.has(key) || THEME_COLOUR.test(theme[key]) ? theme[key] : '#ffffff';
  return { ...p, value: JSON.stringify(out) };
}

/** A user's preferences (client settings, saved posts): reading, saving, deleting; changes go to the user's sockets. */
export class PreferencesService {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly posts: PostsService,
    private readonly realtime: Realtime,
  ) {
    this.authz = new Authz(deps);
  }

  /** Mattermost's SessionHasPermissionToUser: oneself, or edit_other_users for anyone else. */
  private requireUser(userId: string, session: Session): void {
    if (userId !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
  }

  private checkCount(list: unknown[]): void {
    if (list.length === 0 || list.length > PREFERENCE_LIMITS.perRequest) throw AppError.invalidParam('preferences');
  }

  async all(userId: string, session: Session): Promise<Preference[]> {
    this.requireUser(userId, session);
    return this.deps.stores.preferences.all(userId);
  }

  async category(userId: string, category: string, session: Session): Promise<Preference[]> {
    this.requireUser(userId, session);
    const list = await this.deps.stores.preferences.category(userId, category);
    if (list.length === 0) throw AppError.notFound('api.preference.preferences_category.get.app_error', 'Unable to find preferences in this category.');
    return list;
  }

  async get(userId: string, category: string, name: string, session: Session): Promise<Preference> {
    this.requireUser(userId, session);
    const found = await this.deps.stores.preferences.get(userId, category, name);
    // A 400, as Mattermost answers it (its store's "not found" reaches the app as a plain error).
    if (!found) throw AppError.badRequest('app.preference.get.app_error', 'Unable to find the preference.');
    return found;
  }

  async save(userId: string, body: PreferenceInput[], session: Session): Promise<void> {
    this.requireUser(userId, session);
    this.checkCount(body);
    const list = body.map(normalise).map(sanitizeTheme);
    for (const p of list) {
      if (p.user_id !== userId) throw new AppError('api.preference.update_preferences.set.app_error', 'Unable to set user preferences.', 403);
    }
    for (const p of list) checkPreference(p);
    await this.checkFlaggedPosts(list, session);
    const favorites = await this.deps.stores.transaction(async (tx) => {
      await tx.preferences.save(list);
      return syncFavoritePreferences(tx, userId, list, false);
    });
    // As Mattermost: a sidebar_category_updated without data, after which clients fetch their categories again.
    if (favorites) this.realtime.sidebar('sidebar_category_updated', userId, '', {});
    this.realtime.preferences('preferences_changed', userId, list);
  }

  /**
   * Saving a post needs a post there (400 otherwise, as Mattermost's invalid preference.name) that the caller may
   * read: a saved post's content is served back by GetFlaggedPostsForUser.
   */
  private async checkFlaggedPosts(list: Preference[], session: Session): Promise<void> {
    const ids = [...new Set(list.filter((p) => p.category === FLAGGED_POST_CATEGORY).map((p) => p.name))];
    if (ids.length === 0) return;
    const { stores } = this.deps;
    const posts = new Map((await stores.posts.getMany(ids.filter(isValidId))).map((p) => [p.id, p]));
    const readable = new Map<string, boolean>();
    for (const id of ids) {
      const post = posts.get(id);
      if (!post || post.delete_at !== 0) throw AppError.invalidParam('preference.name');
      if (!(await this.canRead(post, session, readable))) throw AppError.forbidden('read_channel');
    }
  }

  private async canRead(post: Post, session: Session, cache: Map<string, boolean>): Promise<boolean> {
    let ok = cache.get(post.channel_id);
    if (ok === undefined) {
      const channel = await this.deps.stores.channels.get(post.channel_id);
      ok = channel !== undefined && (await this.authz.channel(session, channel, 'read_channel'));
      cache.set(post.channel_id, ok);
    }
    return ok;
  }

  async delete(userId: string, body: PreferenceInput[], session: Session): Promise<void> {
    this.requireUser(userId, session);
    this.checkCount(body);
    const list = body.map(normalise);
    for (const p of list) {
      if (p.user_id !== userId) throw new AppError('api.preference.delete_preferences.delete.app_error', 'Unable to delete user preferences.', 403);
    }
    const favorites = await this.deps.stores.transaction(async (tx) => {
      await tx.preferences.delete(userId, list);
      return syncFavoritePreferences(tx, userId, list, true);
    });
    if (favorites) this.realtime.sidebar('sidebar_category_updated', userId, '', {});
    this.realtime.preferences('preferences_deleted', userId, list);
  }

  /**
   * GetFlaggedPostsForUser: a page of the user's saved posts, newest first. As in Mattermost, posts in channels the
   * caller may not read (any more) are dropped from the page after paging, so a page may hold fewer than per_page.
   */
  async flagged(userId: string, scope: FlaggedScope, page: number, perPage: number, session: Session): Promise<PostList> {
    this.requireUser(userId, session);
    const list: PostList = { order: [], posts: {}, next_post_id: '', prev_post_id: '', has_next: false };
    if (perPage === 0) return list;
    const { stores } = this.deps;
    const ids = await stores.preferences.flaggedPostIds(userId, scope, page, perPage);
    const found = await stores.posts.getMany(ids);
    const readable = new Map<string, boolean>();
    const visible: Post[] = [];
    for (const post of found) if (post.delete_at === 0 && (await this.canRead(post, session, readable))) visible.push(post);
    visible.sort((a, b) => b.create_at - a.create_at || (b.id < a.id ? -1 : 1));
    for (const p of await this.posts.withReplyStats(visible)) {
      list.order.push(p.id);
      list.posts[p.id] = p;
    }
    return list;
  }
}
