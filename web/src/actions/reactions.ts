import { api, call } from '../api';
import { errorText } from '../error-text';
import { withReaction, withoutReaction, type Reaction } from '../reactions';
import { appStore } from '../state/app-store';

/** Emoji reactions: the user's own (SaveReaction / DeleteReaction) and everyone's as events bring them. */

function updatePost(postId: string, change: (p: NonNullable<ReturnType<typeof appStore.get>['posts']['byId'][string]>) => typeof p): void {
  appStore.set((s) => {
    const post = s.posts.byId[postId];
    if (!post) return {};
    const next = change(post);
    return next === post ? {} : { posts: { ...s.posts, byId: { ...s.posts.byId, [postId]: next } } };
  });
}

/** reaction_added (anyone's, own included: idempotent). */
export function reactionAdded(r: Reaction): void {
  updatePost(r.post_id, (p) => withReaction(p, r));
}

/** reaction_removed. */
export function reactionRemoved(r: Pick<Reaction, 'post_id' | 'user_id' | 'emoji_name'>): void {
  updatePost(r.post_id, (p) => withoutReaction(p, r));
}

/** Adds the user's reaction; resolves with an error message, or undefined. */
export async function addReaction(postId: string, emojiName: string): Promise<string | undefined> {
  const me = appStore.get().me;
  if (!me) return undefined;
  try {
    const r = await call(api.POST('/api/v4/reactions', { body: { user_id: me.id, post_id: postId, emoji_name: emojiName } }));
    reactionAdded(r);
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

export async function removeReaction(postId: string, emojiName: string): Promise<string | undefined> {
  const me = appStore.get().me;
  if (!me) return undefined;
  try {
    await call(api.DELETE('/api/v4/users/{user_id}/posts/{post_id}/reactions/{emoji_name}', { params: { path: { user_id: me.id, post_id: postId, emoji_name: emojiName } } }));
    reactionRemoved({ post_id: postId, user_id: me.id, emoji_name: emojiName });
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

/** A click on an existing reaction: removes the user's own, else adds theirs (as Mattermost's web app). */
export function toggleReaction(postId: string, emojiName: string, mine: boolean): Promise<string | undefined> {
  return mine ? removeReaction(postId, emojiName) : addReaction(postId, emojiName);
}
