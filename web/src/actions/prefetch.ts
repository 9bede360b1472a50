import { rest, type Channel } from '../api';

/**
 * What a reload fetches ahead, before the session and the channel list are known: the posts and the channel the page
 * showed last time (see routing.ts's route cache). Each is used once, by the first load that wants it.
 */

export const POSTS_PAGE = 60;

/** Posts fetched ahead, keyed by channel id. */
const prefetched = new Map<string, ReturnType<typeof rest.posts>>();
/** That channel itself, and the page path it was fetched for. */
let earlyChannel: { path: string; channel: Promise<Channel | undefined> } | null = null;

export function prefetchChannel(path: string, channelId: string): void {
  const early = rest.posts(channelId, { per_page: POSTS_PAGE });
  early.catch(() => undefined);
  prefetched.set(channelId, early);
  earlyChannel = { path, channel: rest.channel(channelId).catch(() => undefined) };
}

export function takePrefetchedPosts(channelId: string): ReturnType<typeof rest.posts> | undefined {
  const early = prefetched.get(channelId);
  prefetched.delete(channelId);
  return early;
}

/** The channel fetched ahead, if it is the one this path names (same name, live, of this team or a direct one). */
export async function takeEarlyChannel(path: string, teamId: string, name: string): Promise<Channel | undefined> {
  const early = earlyChannel;
  earlyChannel = null;
  if (!early || early.path !== path) return undefined;
  const c = await early.channel;
  return c && c.name === name && c.delete_at === 0 && (c.team_id === teamId || c.team_id === '') ? c : undefined;
}
