import { rest, type Post, type User } from '../api';
import { addChannel, isWatching, keepViewed, refreshMemberCount, refreshTeamChannels, removeChannel } from '../actions/channels';
import { closeRhs } from '../actions/panels';
import { catchUp } from '../actions/posts';
import { resync } from '../actions/sync';
import { ensureUsers } from '../actions/users';
import { mergePosts } from '../post-store';
import { appStore } from '../state/app-store';
import type { TypingEntry } from '../state/app-state';
import { readMember, sortTeams } from '../state/selectors';
import { handled, nested, type WsEvent } from '../ws-events';

/**
 * What the WebSocket's events change: posts, unread and mention counts, typing, channel membership, users. The
 * connection itself is live/connection.ts.
 */

let hellos = 0;

/** A new session starts counting connections afresh. */
export function resetEvents(): void {
  hellos = 0;
}

function mentionsMe(mentions: unknown, meId: string): boolean {
  const ids = nested<unknown>(mentions);
  return Array.isArray(ids) && ids.includes(meId);
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export function handleEvent(frame: WsEvent): void {
  const { me, currentChannelId, currentTeamId, posts, rhs } = appStore.get();
  const event = handled(frame);
  if (!me || !event) return;
  const broadcastChannelId = text(event.broadcast?.channel_id);
  switch (event.event) {
    case 'hello':
      // A connection that replaced an earlier one (it could not resume): whatever happened meanwhile is fetched.
      // The first one only closes the window between the page's first fetch and the subscription.
      if (hellos++ > 0) void resync();
      else if (currentChannelId && posts.channels[currentChannelId]?.loaded) void catchUp(currentChannelId);
      return;
    case 'posted': {
      const post = nested<Post>(event.data.post);
      if (!post?.id) return;
      onPosted(post, mentionsMe(event.data.mentions, me.id), event.data.channel_type === 'D');
      return;
    }
    case 'post_edited': {
      const post = nested<Post>(event.data.post);
      if (post?.id) appStore.set((s) => ({ posts: mergePosts(s.posts, [post]) }));
      return;
    }
    case 'post_deleted': {
      const post = nested<Post>(event.data.post);
      if (!post?.id) return;
      appStore.set((s) => ({ posts: mergePosts(s.posts, [{ ...post, delete_at: post.delete_at || Date.now() }]) }));
      if ((rhs?.kind === 'thread' && rhs.rootId === post.id) || (rhs?.kind === 'card' && rhs.postId === post.id)) closeRhs();
      return;
    }
    case 'typing': {
      const userId = text(event.data.user_id);
      const parentId = text(event.data.parent_id);
      if (!userId || userId === me.id || !broadcastChannelId) return;
      addTyping(parentId ? `thread:${parentId}` : broadcastChannelId, userId);
      void ensureUsers([userId]);
      return;
    }
    case 'channel_viewed': {
      const channelId = text(event.data.channel_id);
      if (channelId) viewedElsewhere([channelId]);
      return;
    }
    case 'multiple_channels_viewed': {
      const times = event.data.channel_times;
      if (typeof times === 'object' && times !== null) viewedElsewhere(Object.keys(times));
      return;
    }
    case 'user_added': {
      if (text(event.data.user_id) === me.id && broadcastChannelId) void joinedChannel(broadcastChannelId);
      else if (broadcastChannelId && broadcastChannelId === currentChannelId) refreshMemberCount(broadcastChannelId);
      return;
    }
    case 'user_removed': {
      // The removed user's copy names the channel in data; the other members' copy names the user.
      const channelId = text(event.data.channel_id) || broadcastChannelId;
      const removedUser = text(event.data.user_id) || text(event.broadcast?.user_id);
      if (!channelId) return;
      if (removedUser === me.id) removeChannel(channelId);
      else if (channelId === currentChannelId) refreshMemberCount(channelId);
      return;
    }
    case 'channel_created':
    case 'channel_updated':
    case 'channel_deleted':
    case 'direct_added':
    case 'added_to_team':
    case 'leave_team':
      if (currentTeamId) void refreshTeamChannels(currentTeamId);
      if (event.event === 'added_to_team' || event.event === 'leave_team') void rest.myTeams().then((teams) => appStore.set({ teams: sortTeams(teams) }), () => undefined);
      return;
    case 'user_updated': {
      const user = event.data.user;
      if (typeof user === 'object' && user !== null && typeof user.id === 'string' && user.id) {
        appStore.set((s) => ({ users: { ...s.users, [user.id]: { ...s.users[user.id], ...user } } }));
      }
      return;
    }
    default:
      // Every handled event has its case: a name added to HandledWsEvent without one is a type error here.
      event satisfies never;
      return;
  }
}

function onPosted(post: Post, mentioned: boolean, direct: boolean): void {
  const me = appStore.get().me as User;
  const channelId = post.channel_id;
  appStore.set((s) => {
    const channel = s.channels[channelId];
    const channels = channel ? { ...s.channels, [channelId]: { ...channel, total_msg_count: (channel.total_msg_count ?? 0) + 1, last_post_at: post.create_at } } : s.channels;
    let members = s.members;
    const member = s.members[channelId];
    if (member && post.user_id !== me.id && !isWatching(channelId) && (mentioned || direct)) {
      members = { ...members, [channelId]: { ...member, mention_count: member.mention_count + 1 } };
    }
    const typing = clearTyping(s.typing, post.root_id ? `thread:${post.root_id}` : channelId, post.user_id);
    return { posts: mergePosts(s.posts, [post]), channels, members, typing };
  });
  void ensureUsers([post.user_id]);
  const { channels, currentTeamId } = appStore.get();
  if (!channels[channelId]) {
    // A channel this client does not list yet (a new direct message): the sidebar is refreshed.
    if (currentTeamId) void refreshTeamChannels(currentTeamId);
    return;
  }
  if (post.user_id === me.id || isWatching(channelId)) keepViewed(channelId);
}

function viewedElsewhere(channelIds: string[]): void {
  appStore.set((s) => {
    const members = { ...s.members };
    for (const id of channelIds) if (members[id]) members[id] = readMember(members[id], s.channels[id]);
    return { members };
  });
}

async function joinedChannel(channelId: string): Promise<void> {
  try {
    const [channel, member] = await Promise.all([rest.channel(channelId), rest.myMember(channelId)]);
    addChannel(channel);
    appStore.set((s) => ({ members: { ...s.members, [channelId]: member } }));
  } catch {
    // Not visible after all.
  }
}

const TYPING_MS = 6000;

function addTyping(key: string, userId: string): void {
  const until = Date.now() + TYPING_MS;
  appStore.set((s) => ({ typing: { ...s.typing, [key]: [...(s.typing[key] ?? []).filter((t) => t.userId !== userId), { userId, until }] } }));
  setTimeout(() => {
    appStore.set((s) => {
      const left = (s.typing[key] ?? []).filter((t) => t.until > Date.now());
      return { typing: { ...s.typing, [key]: left } };
    });
  }, TYPING_MS + 50);
}

function clearTyping(typing: Record<string, TypingEntry[]>, key: string, userId: string): Record<string, TypingEntry[]> {
  const entries = typing[key];
  if (!entries?.some((t) => t.userId === userId)) return typing;
  return { ...typing, [key]: entries.filter((t) => t.userId !== userId) };
}
