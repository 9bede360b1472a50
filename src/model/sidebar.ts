import type { NullsDropped, Schemas } from './wire';

/** One of a user's sidebar categories on a team, with its channels in order (Mattermost's SidebarCategoryWithChannels). */
export type SidebarCategory = Schemas['SidebarCategory'];

/** A category without its channels: what the sidebar_categories table holds. */
export type SidebarCategoryRecord = Omit<SidebarCategory, 'channel_ids'>;

export type SidebarCategoryType = SidebarCategory['type'];
export type SidebarCategorySorting = SidebarCategory['sorting'];

/** A user's categories on a team, and their order. */
export type OrderedSidebarCategories = Schemas['OrderedSidebarCategories'];

/** A category as a request body gives it (nulls read as not given). */
export type SidebarCategoryInput = NullsDropped<Schemas['SidebarCategoryInput']>;

export const SIDEBAR_SORTINGS: readonly SidebarCategorySorting[] = ['', 'manual', 'alpha', 'recent'];

/** The three categories every user has on every team they use, in their first order. */
export const DEFAULT_SIDEBAR_CATEGORIES: ReadonlyArray<{ type: Exclude<SidebarCategoryType, 'custom'>; displayName: string; sorting: SidebarCategorySorting }> = [
  // Display names as Mattermost stores them; clients show their own translation.
  { type: 'favorites', displayName: 'Favorites', sorting: '' },
  { type: 'channels', displayName: 'Channels', sorting: '' },
  { type: 'direct_messages', displayName: 'Direct Messages', sorting: 'recent' },
];

export const SIDEBAR_LIMITS = {
  /** Mattermost's MinimalSidebarSortDistance: categories and channels are numbered 0, 10, 20, ... */
  sortStep: 10,
  /** A category's name, in code points (the column's width; Mattermost checks none, its column holds 255). */
  displayName: 255,
  /**
   * Custom categories per user and team. Mattermost sets no bound; this one keeps a user's sidebar (read in full on
   * every page load) and each reorder (one statement per category) bounded, far above what a sidebar shows.
   */
  customPerTeam: 100,
} as const;

/** A default category's id: Mattermost's `{type}_{user_id}_{team_id}`, the same on every server. */
export function defaultCategoryId(type: SidebarCategoryType, userId: string, teamId: string): string {
  return `${type}_${userId}_${teamId}`;
}

/** The legacy preference category of favourite channels (name = channel id, value "true"), kept in step with favorites. */
export const FAVORITE_CHANNEL_CATEGORY = 'favorite_channel';
