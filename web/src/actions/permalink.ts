import { ApiError, rest, type Channel, type Team } from '../api';
import { errorText } from '../error-text';
import { mergePosts } from '../post-store';
import { postRest } from '../post-api';
import { channelPath, navigate, parseRoute, permalinkPath } from '../router';
import { appStore } from '../state/app-store';
import { addChannel, ensureTeamChannels, openChannel } from './channels';
import { openThread } from './panels';
import { ensureUsers } from './users';

/**
 * A permalink (`/{team}/pl/{post_id}`), as Mattermost's web app opens one: the post is fetched (GetPost), its channel
 * opened with the list reaching back to the post, the post highlighted for a few seconds, a reply's thread opened
 * beside it, and the address replaced by the channel's (a reload shows the channel, not the highlight again).
 */

export const NOT_FOUND = 'Message not found. It was deleted, or it is in a channel you cannot see.';
/** How long the post stays highlighted (Mattermost's web app: a few seconds). */
export const HIGHLIGHT_MS = 5000;
/** Older pages fetched at most, of 200 posts each, to reach the post; a post further back is opened in its thread. */
const MAX_PAGES = 25;

let highlightTimer: ReturnType<typeof setTimeout> | undefined;

export function highlightPost(postId: string): void {
  clearTimeout(highlightTimer);
  appStore.set({ highlightPostId: postId });
  highlightTimer = setTimeout(() => {
    if (appStore.get().highlightPostId === postId) appStore.set({ highlightPostId: undefined });
  }, HIGHLIGHT_MS);
}

/** Loads older pages of a channel until the post is in its list (or the list reaches the channel's start). */
async function reachPost(channelId: string, postId: string): Promise<boolean> {
  for (let i = 0; i < MAX_PAGES; i++) {
    const s = appStore.get();
    const list = s.posts.channels[channelId];
    if (!list?.loaded) return false;
    if (list.ids.includes(postId)) return true;
    if (!list.hasOlder) return false;
    const oldest = list.ids.find((id) => !s.posts.byId[id]?.pending && !s.posts.byId[id]?.failed);
    if (!oldest) return false;
    const page = await postRest.postsBefore(channelId, oldest, 200);
    await ensureUsers(Object.values(page.posts).map((p) => p.user_id));
    appStore.set((st) => ({
      posts: mergePosts(st.posts, Object.values(page.posts), { channelId, listed: page.order, hasOlder: page.order.length > 0 && page.prev_post_id !== '', older: true }),
    }));
  }
  return appStore.get().posts.channels[channelId]?.ids.includes(postId) ?? false;
}

export async function openPermalink(team: Team, postId: string): Promise<void> {
  appStore.set({ currentTeamId: team.id, highlightPostId: undefined });
  const fail = (text: string) => appStore.set({ currentChannelId: undefined, routeError: text });
  let post;
  try {
    [post] = await Promise.all([postRest.post(postId), ensureTeamChannels(team.id)]);
  } catch (err) {
    return fail(err instanceof ApiError && (err.status === 403 || err.status === 404 || err.status === 400) ? NOT_FOUND : errorText(err));
  }
  let channel: Channel | undefined = appStore.get().channels[post.channel_id];
  if (!channel) {
    try {
      channel = await rest.channel(post.channel_id);
    } catch {
      return fail(NOT_FOUND);
    }
  }
  if (channel.team_id && channel.team_id !== team.id) {
    // A post of another of the user's teams: that team's permalink.
    const other = appStore.get().teams.find((t) => t.id === channel.team_id);
    if (other) return navigate(permalinkPath(other.name, post.id), { replace: true });
    return fail(NOT_FOUND);
  }
  if (!(appStore.get().teamChannels[team.id] ?? []).includes(channel.id)) {
    // Direct and group channels are the user's own; a team channel must have been joined.
    if (channel.type === 'O' || channel.type === 'P') return fail(`This message is in ~${channel.display_name || channel.name}, a channel you are not a member of.`);
    addChannel(channel);
  }
  const path = channelPath(team.name, channel.name);
  history.replaceState(null, '', path);
  appStore.set({ route: parseRoute(path, '') });
  // A jump from the search results keeps them open beside the channel (a reply's thread takes the panel instead).
  const keepSearch = appStore.get().rhs?.kind === 'search';
  await openChannel(channel.id);
  if (appStore.get().currentChannelId !== channel.id) return;
  if (keepSearch && !post.root_id && !appStore.get().rhs) appStore.set({ rhs: { kind: 'search' } });
  try {
    await reachPost(channel.id, post.id);
  } catch {
    // The channel is open; the post is still highlighted in its thread below.
  }
  highlightPost(post.id);
  if (post.root_id) openThread(post.root_id);
}
