import type { Post } from '../post-store';
import type { FileInfo } from '../files';

/** The state of attachments being uploaded from a composer, and of the search shown in the right-hand panel. */

export interface Upload {
  /** The client's id of this upload (also sent as UploadFile's client_ids). */
  clientId: string;
  name: string;
  size: number;
  type: string;
  /** 0 to 1. */
  progress: number;
  /** The server's FileInfo, once uploaded. */
  info?: FileInfo;
  error?: string;
}

export interface SearchState {
  terms: string;
  teamId: string;
  status: 'loading' | 'done' | 'error';
  error?: string;
  /** Ids of the posts found, newest first. */
  order: string[];
  /** The posts found (apart from the channels' lists: a result is not placed in its channel's view). */
  posts: Record<string, Post>;
  hasNext: boolean;
  page: number;
  loadingMore?: boolean;
}

/** A composer's key for its uploads: the channel's, or a thread's of it. */
export function draftKey(channelId: string, rootId = ''): string {
  return rootId ? `${channelId}:${rootId}` : channelId;
}

/** A composer's attachments: how many are uploaded, whether some are still running, whether some failed. */
export function uploadsState(list: Upload[] | undefined): { ready: number; busy: boolean; failed: boolean } {
  let ready = 0;
  let busy = false;
  let failed = false;
  for (const u of list ?? []) {
    if (u.info) ready++;
    else if (u.error) failed = true;
    else busy = true;
  }
  return { ready, busy, failed };
}
