import type { Post } from '../api';
import { mergePosts, removeLocal } from '../post-store';
import { appStore } from '../state/app-store';
import { ensureUsers } from './users';

/**
 * Ephemeral posts: a slash command's reply or error, a warning, for this user's eyes only. They come as
 * `ephemeral_message` events, are never stored on the server nor sent back to it, and last until dismissed or
 * the page is reloaded (as in Mattermost).
 */

/** An ephemeral post arrived (`ephemeral_message`): shown in its channel and thread, never sent anywhere. */
export function addEphemeral(post: Post): void {
  appStore.set((s) => ({ posts: mergePosts(s.posts, [{ ...post, type: 'system_ephemeral' }]) }));
  void ensureUsers([post.user_id]);
}

/** The person dismissed an ephemeral post: it leaves the page (it exists nowhere else). */
export function dismissEphemeral(postId: string): void {
  const post = appStore.get().posts.byId[postId];
  if (post?.type !== 'system_ephemeral') return;
  appStore.set((s) => ({ posts: removeLocal(s.posts, postId) }));
}
