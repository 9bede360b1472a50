import { rest, type Channel, type ChannelMember, type Post, type User } from '../api';
import { markArchived } from '../actions/channel-manage';
import { channelRestored, raiseRevisions } from '../actions/channel-lifecycle';
import { addChannel, isWatching, keepViewed, refreshMemberCount, refreshTeamChannels, removeChannel } from '../actions/channels';
import { addEphemeral } from '../actions/ephemeral';
import { closeRhs } from '../actions/panels';
import { catchUp } from '../actions/posts';
import { resync } from '../actions/sync';
import { preferencesChanged, preferencesDeleted } from '../actions/theme';
import { ensureUsers } from '../actions/users';
import { postChanged } from '../actions/pins';
import { reactionAdded, reactionRemoved } from '../actions/reactions';
import { statusChanged } from '../actions/status';
import { markedUnread } from '../actions/unread';
import type { Reaction } from '../reactions';
import { mergePosts } from '../post-store';
import { navigate } from '../router';
import { appStore } from '../state/app-store';
import type { TypingEntry } from '../state/app-state';
import { revisionsOf } from '../state/revisions';
import { readMember, sortTeams } from '../state/selectors';
import { handled, nested, type WsEvent } from '../ws-events';
import { notifyPosted, setOwnStatus } from './desktop-notify';

/**
 * What the WebSocket's events change: posts, unread and mention counts, typing, channel membership, users. The
 * connection itself is live/connection.ts.
 */

let hellos = 0;

/** A new session starts counting connections afresh. */
export function resetEvents(): void {
  hellos = 0;
}

/** Whether a per-recipient list of `posted` (`mentions`, `followers`: a JSON string of ids) names the viewer. */
function namesMe(list: unknown, meId: string): boolean {
  const ids = nested<unknown>(list);
  return Array.isArray(ids) && ids.includes(meId);
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export function handleEvent(frame: WsEvent): void {
  const { me, currentChannelId, currentTeamId, posts, rhs } = appStore.get();
  const event = handled(frame);
  if (!me || !event) return;
  // The lists open dialogs fetched themselves (Browse channels, the team's members) are fetched again.
  raiseRevisions(revisionsOf(event, appStore.get()));
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
      onPosted(post, namesMe(event.data.mentions, me.id), event.data.channel_type === 'D');
      void notifyPosted(post, {
        mentioned: namesMe(event.data.mentions, me.id),
        following: namesMe(event.data.followers, me.id),
        senderName: text(event.data.sender_name),
        channelDisplayName: text(event.data.channel_display_name),
        channelType: text(event.data.channel_type),
      });
      return;
    }
    case 'post_edited': {
      const post = nested<Post>(event.data.post);
      // Through pins: a change of is_pinned moves the channel's pinned list and count too.
      if (post?.id) postChanged(post);
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
    case 'channel_updated': {
      // The new header, purpose or name, at once where the channel is shown.
      const channel = nested<Channel>(event.data.channel);
      if (channel?.id) appStore.set((s) => ({ channels: { ...s.channels, [channel.id]: { ...s.channels[channel.id], ...channel } } }));
      if (currentTeamId) void refreshTeamChannels(currentTeamId);
      return;
    }
    case 'channel_deleted': {
      // Archived: out of the sidebar; where it is open it stays, read-only.
      const channelId = text(event.data.channel_id);
      if (channelId) markArchived(channelId, typeof event.data.delete_at === 'number' ? event.data.delete_at : Date.now());
      if (currentTeamId) void refreshTeamChannels(currentTeamId);
      return;
    }
    case 'channel_restored': {
      // Unarchived: the composer comes back where it is open, and the channel to its members' sidebars.
      const channelId = text(event.data.channel_id);
      if (channelId) void channelRestored(channelId);
      return;
    }
    case 'leave_team': {
      // Removed from the team one is looking at: the page moves to another team (or to "No teams yet").
      const left = text(event.data.user_id) === me.id && text(event.data.team_id) === currentTeamId;
      void rest.myTeams().then((teams) => {
        appStore.set({ teams: sortTeams(teams) });
        if (left) navigate('/', { replace: true });
      }, () => undefined);
      if (currentTeamId && !left) void refreshTeamChannels(currentTeamId);
      return;
    }
    case 'channel_created':
    case 'direct_added':
    case 'added_to_team':
      if (currentTeamId) void refreshTeamChannels(currentTeamId);
      if (event.event === 'added_to_team') void rest.myTeams().then((teams) => appStore.set({ teams: sortTeams(teams) }), () => undefined);
      return;
    case 'user_updated': {
      const user = event.data.user;
      if (typeof user === 'object' && user !== null && typeof user.id === 'string' && user.id) {
        // The viewer's own copy carries their settings (notify_props): `me` follows it.
        appStore.set((s) => ({ users: { ...s.users, [user.id]: { ...s.users[user.id], ...user } }, ...(user.id === me.id ? { me: { ...s.me, ...user } } : {}) }));
      }
      return;
    }
    case 'channel_member_updated': {
      // The membership's settings changed (here or elsewhere): the server's copy is the truth.
      const member = nested<ChannelMember>(event.data.channelMember);
      if (member?.channel_id && member.user_id === me.id) {
        appStore.set((s) => ({ members: { ...s.members, [member.channel_id]: member.channel_id === s.currentChannelId ? readMember(member, s.channels[member.channel_id]) : member } }));
      }
      return;
    }
    case 'status_change':
      if (text(event.data.user_id) === me.id && event.data.status) setOwnStatus(me.id, event.data.status);
      if (text(event.data.user_id) && event.data.status) statusChanged(text(event.data.user_id), event.data.status);
      return;
    case 'reaction_added':
    case 'reaction_removed': {
      const reaction = nested<Reaction>(event.data.reaction);
      if (!reaction?.post_id || !reaction.user_id || !reaction.emoji_name) return;
      if (event.event === 'reaction_added') reactionAdded(reaction);
      else reactionRemoved(reaction);
      return;
    }
    case 'post_unread': {
      // The user marked a channel unread (in this tab or another one).
      const channelId = text(event.broadcast?.channel_id);
      if (channelId && text(event.broadcast?.user_id) === me.id) markedUnread(channelId, event.data);
      return;
    }
    case 'ephemeral_message': {
      // For this user's eyes only, never stored: shown until dismissed or the page is reloaded.
      const post = nested<Post>(event.data.post);
      if (post?.id && post.channel_id) addEphemeral(post);
      return;
    }
    case 'config_changed': {
      const config = event.data.config;
      if (typeof config === 'object' && config !== null) appStore.set({ config: { ...config } });
      return;
    }
    case 'preferences_changed':
      preferencesChanged(event.data.preferences);
      return;
    case 'preferences_deleted':
      preferencesDeleted(event.data.preferences);
      return;
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
    // A membership read from the server after the post was counted (its last_update_at reached the post's time: the
    // page's first load of the memberships, a refreshed list) already holds this mention: not counted twice.
    const counted = member !== undefined && member.last_update_at >= post.create_at;
    if (member && !counted && post.user_id !== me.id && !isWatching(channelId) && (mentioned || direct)) {
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
