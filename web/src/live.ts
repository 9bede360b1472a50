import { rest, type Post, type User } from './api';
import { mergePosts } from './post-store';
import {
  addChannel,
  catchUp,
  closeRhs,
  ensureUsers,
  getState,
  isUnread,
  isWatching,
  keepViewed,
  markViewed,
  readMember,
  refreshTeamChannels,
  removeChannel,
  resync,
  set,
  sortTeams,
  type TypingEntry,
} from './store';
import { WsClient, type SocketLike } from './ws-client';
import { handled, nested, type WsEvent } from './ws-events';

/**
 * Live updates: the WebSocket connection and what its events change (posts, unread and mention counts, typing,
 * channel membership), and the fallback polling while no connection is up. The protocol itself is ws-client.ts.
 */

let ws: WsClient | null = null;
let hellos = 0;

function wsUrl(): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v4/websocket`;
}

/** Stops the connection for good (sign-out, session ended). */
export function stopLive(): void {
  ws?.stop();
  ws = null;
  hellos = 0;
}

export function sendTyping(channelId: string, rootId: string): void {
  ws?.userTyping(channelId, rootId);
}

export function connectWebSocket(): void {
  if (ws) return;
  ws = new WsClient({
    url: wsUrl(),
    // The browser's WebSocket has these members; its DOM event types are wider than SocketLike spells them.
    createSocket: (url) => new WebSocket(url) as unknown as SocketLike,
    onEvent: handleEvent,
    onStatus: (status) => set({ ws: status }),
  });
  ws.start();
}

/**
 * While no WebSocket is connected (a server without one, or one that is unreachable for now) the open channel is
 * polled for changes and the sidebar refreshed now and then, so the page never silently goes stale. A connected
 * WebSocket turns this off.
 */
const POLL_CHANNEL_MS = 10_000;
const POLL_SIDEBAR_MS = 60_000;
let lastSidebarPoll = 0;

function poll(): void {
  const { me, ws: status, boot, currentChannelId, currentTeamId } = getState();
  if (!me || status === 'open' || boot !== 'ready' || document.visibilityState !== 'visible') return;
  if (currentChannelId) void catchUp(currentChannelId);
  if (currentTeamId && Date.now() - lastSidebarPoll >= POLL_SIDEBAR_MS) {
    lastSidebarPoll = Date.now();
    void refreshTeamChannels(currentTeamId);
  }
}

if (typeof window !== 'undefined') {
  setInterval(poll, POLL_CHANNEL_MS);
  window.addEventListener('online', () => ws?.reconnectNow());
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState !== 'visible') return;
    ws?.reconnectNow();
    const { currentChannelId: channelId, channels, members } = getState();
    const channel = channelId ? channels[channelId] : undefined;
    if (channelId && channel && isUnread(channel, members[channelId])) markViewed(channelId);
  });
}

function mentionsMe(mentions: unknown, meId: string): boolean {
  const ids = nested<unknown>(mentions);
  return Array.isArray(ids) && ids.includes(meId);
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function handleEvent(frame: WsEvent): void {
  const { me, currentChannelId, currentTeamId, posts, rhs } = getState();
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
      if (post?.id) set((s) => ({ posts: mergePosts(s.posts, [post]) }));
      return;
    }
    case 'post_deleted': {
      const post = nested<Post>(event.data.post);
      if (!post?.id) return;
      set((s) => ({ posts: mergePosts(s.posts, [{ ...post, delete_at: post.delete_at || Date.now() }]) }));
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
      if (event.event === 'added_to_team' || event.event === 'leave_team') void rest.myTeams().then((teams) => set({ teams: sortTeams(teams) }), () => undefined);
      return;
    case 'user_updated': {
      const user = event.data.user;
      if (typeof user === 'object' && user !== null && typeof user.id === 'string' && user.id) {
        set((s) => ({ users: { ...s.users, [user.id]: { ...s.users[user.id], ...user } } }));
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
  const me = getState().me as User;
  const channelId = post.channel_id;
  set((s) => {
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
  const { channels, currentTeamId } = getState();
  if (!channels[channelId]) {
    // A channel this client does not list yet (a new direct message): the sidebar is refreshed.
    if (currentTeamId) void refreshTeamChannels(currentTeamId);
    return;
  }
  if (post.user_id === me.id || isWatching(channelId)) keepViewed(channelId);
}

function viewedElsewhere(channelIds: string[]): void {
  set((s) => {
    const members = { ...s.members };
    for (const id of channelIds) if (members[id]) members[id] = readMember(members[id], s.channels[id]);
    return { members };
  });
}

async function joinedChannel(channelId: string): Promise<void> {
  try {
    const [channel, member] = await Promise.all([rest.channel(channelId), rest.myMember(channelId)]);
    addChannel(channel);
    set((s) => ({ members: { ...s.members, [channelId]: member } }));
  } catch {
    // Not visible after all.
  }
}

function refreshMemberCount(channelId: string): void {
  void rest.memberCount(channelId).then(
    (count) => set((s) => ({ memberCounts: { ...s.memberCounts, [channelId]: count } })),
    () => undefined,
  );
}

const TYPING_MS = 6000;

function addTyping(key: string, userId: string): void {
  const until = Date.now() + TYPING_MS;
  set((s) => ({ typing: { ...s.typing, [key]: [...(s.typing[key] ?? []).filter((t) => t.userId !== userId), { userId, until }] } }));
  setTimeout(() => {
    set((s) => {
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
