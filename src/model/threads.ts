import type { Schemas } from './wire';

/** A thread as one user follows it (Mattermost's ThreadResponse), as served. */
export type UserThread = Schemas['UserThread'];

/** A page of a user's threads with their totals (Mattermost's Threads), as served. */
export type UserThreadList = Schemas['UserThreadList'];

/** A root post's thread, as stored: counters kept by the post writer in each reply's transaction. */
export interface ThreadRecord {
  post_id: string;
  channel_id: string;
  /** The channel's team; '' for direct and group channels. */
  team_id: string;
  reply_count: number;
  last_reply_at: number;
  /** Repliers, oldest replier first. */
  participants: string[];
  delete_at: number;
  is_urgent: boolean;
}

/** A user's relation to a thread: whether they follow it and until when they read it. */
export interface ThreadMembership {
  post_id: string;
  user_id: string;
  following: boolean;
  last_viewed: number;
  last_updated: number;
  unread_mentions: number;
}

/** A followed thread as a list reads it: the thread, the user's membership and the replies they have not read. */
export interface FollowedThread extends ThreadRecord {
  last_viewed: number;
  unread_mentions: number;
  unread_replies: number;
}

/** What GetUserThreads asks for (Mattermost's GetUserThreadsOpts). */
export interface ThreadListQuery {
  teamId: string;
  perPage: number;
  before: string;
  after: string;
  unread: boolean;
  deleted: boolean;
  since: number;
}

export interface ThreadTotals {
  total: number;
  unreadThreads: number;
  unreadMentions: number;
  unreadUrgentMentions: number;
}

/** Mattermost's page sizes for GetUserThreads: per_page as everywhere (default 60, at most 200), 0 read as 30. */
export const THREAD_LIMITS = { perPageDefault: 60, perPageMax: 200, perPageWhenZero: 30 } as const;
