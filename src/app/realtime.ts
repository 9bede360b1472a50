import type { Channel, ChannelMember, Post, Preference, Reaction, Team, TeamMember, UserRecord } from '../model';
import type { Deps } from './deps';
import { type Audience, broadcast, type RealtimeEvent } from './events';
import { sanitizeTeam, sanitizeUser } from './sanitize';

/**
 * Channel member ids, loaded for the events published in one turn of the event loop with one query. A load joins a
 * batch only before its query starts, so every event's audience is read after its own write committed: a user removed
 * from a channel before a post committed never receives that post.
 */
class ChannelMembers {
  private waiting = new Map<string, Array<{ resolve(ids: string[]): void; reject(err: unknown): void }>>();

  constructor(private readonly deps: Deps) {}

  load(channelId: string): Promise<string[]> {
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) setImmediate(() => void this.flush());
      const list = this.waiting.get(channelId) ?? [];
      list.push({ resolve, reject });
      this.waiting.set(channelId, list);
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = new Map();
    try {
      const members = await this.deps.stores.channels.memberIdsOf([...batch.keys()]);
      for (const [id, list] of batch) for (const w of list) w.resolve(members.get(id) ?? []);
    } catch (err) {
      for (const list of batch.values()) for (const w of list) w.reject(err);
    }
  }
}

/** Mattermost's `otherFile` and `image` flags of a `posted` event, for a post with files. */
function fileFlags(post: Post): { otherFile?: 'true'; image?: 'true' } {
  if (post.file_ids.length === 0) return {};
  const files = Array.isArray(post.metadata.files) ? post.metadata.files : [];
  return files.some((f) => f.mime_type.startsWith('image/')) ? { otherFile: 'true', image: 'true' } : { otherFile: 'true' };
}

/** An event for one user about their own state, with the team it concerns ('' for direct and group channels). */
export interface UserEvent {
  event: string;
  userId: string;
  teamId: string;
  data: Record<string, unknown>;
}

export interface PostedInfo {
  channel: Channel;
  /** The name shown for the sender: "@username", or the webhook's override name where overrides are on. */
  senderName: string | (() => Promise<string>);
  /** API posts mark their author online; webhook posts do not. */
  setOnline: boolean;
  /** Post id → the users it mentions (the post writer's count), each told so in their copy of `posted`. */
  mentioned?: Map<string, string[]>;
  /** Threads collapsed: reply id → its thread's followers (the post writer's), each told so in their copy. */
  followers?: Map<string, string[]>;
}

/**
 * Builds and publishes the events of Mattermost's WebSocket API after the writes they report have committed, with
 * Mattermost's data fields and each event's audience (who may read what it reports). Publishing never waits for
 * delivery, and does nothing while nobody could receive it.
 */
export class Realtime {
  private readonly members: ChannelMembers;

  constructor(private readonly deps: Deps) {
    this.members = new ChannelMembers(deps);
  }

  private get listening(): boolean {
    return this.deps.events.listening();
  }

  /** Publishes once the audience is known; a failure to read it is reported, never thrown at the writer. */
  private send(build: () => Promise<RealtimeEvent[]> | RealtimeEvent[]): void {
    if (!this.listening) return;
    Promise.resolve()
      .then(build)
      .then(
        (events) => {
          for (const e of events) this.deps.events.publish(e);
        },
        (err: unknown) => this.deps.onBackgroundError(err, 'real-time event not published'),
      );
  }

  private async channelAudience(channelId: string): Promise<Audience> {
    return { kind: 'users', userIds: await this.members.load(channelId) };
  }

  private user(userId: string): Audience {
    return { kind: 'users', userIds: [userId] };
  }

  posted(posts: Post[], info: PostedInfo): void {
    const { channel } = info;
    this.send(async () => {
      const audience = await this.channelAudience(channel.id);
      const senderName = typeof info.senderName === 'string' ? info.senderName : await info.senderName();
      return posts.map((post) => ({
        event: 'posted',
        data: {
          channel_display_name: channel.type === 'D' ? senderName : channel.display_name,
          channel_name: channel.name,
          channel_type: channel.type,
          post: JSON.stringify(post),
          sender_name: senderName,
          set_online: info.setOnline,
          team_id: channel.team_id,
          ...fileFlags(post),
        },
        broadcast: broadcast({ channel_id: channel.id }),
        audience,
        perRecipient: { mentioned: info.mentioned?.get(post.id) ?? [], followers: info.followers?.get(post.id) ?? [] },
      }));
    });
  }

  postEdited(post: Post): void {
    this.send(async () => [
      { event: 'post_edited', data: { post: JSON.stringify(post) }, broadcast: broadcast({ channel_id: post.channel_id }), audience: await this.channelAudience(post.channel_id) },
    ]);
  }

  /** reaction_added or reaction_removed, to the members of the post's channel; `reaction` as a JSON string. */
  reaction(event: 'reaction_added' | 'reaction_removed', reaction: Reaction): void {
    this.send(async () => [
      {
        event,
        data: { reaction: JSON.stringify(reaction) },
        broadcast: broadcast({ channel_id: reaction.channel_id }),
        audience: await this.channelAudience(reaction.channel_id),
      },
    ]);
  }

  /** Two copies, as Mattermost sends them: who deleted it is for system admins only. */
  postDeleted(post: Post, deletedBy: string): void {
    this.send(async () => {
      const audience = await this.channelAudience(post.channel_id);
      const json = JSON.stringify(post);
      return [
        { event: 'post_deleted', data: { post: json }, broadcast: broadcast({ channel_id: post.channel_id, contains_sanitized_data: true }), audience, admins: false },
        { event: 'post_deleted', data: { post: json, delete_by: deletedBy }, broadcast: broadcast({ channel_id: post.channel_id, contains_sensitive_data: true }), audience, admins: true },
      ];
    });
  }

  typing(channelId: string, userId: string, parentId: string): void {
    this.send(async () => [
      {
        event: 'typing',
        data: { parent_id: parentId, user_id: userId },
        broadcast: broadcast({ channel_id: channelId, omit_users: { [userId]: true } }),
        audience: await this.channelAudience(channelId),
        omitUsers: [userId],
      },
    ]);
  }

  /** Current clients read `multiple_channels_viewed`; older ones `channel_viewed`, one per channel: both are sent. */
  channelsViewed(userId: string, times: Record<string, number>): void {
    this.send(() => [
      { event: 'multiple_channels_viewed', data: { channel_times: times }, broadcast: broadcast({ user_id: userId }), audience: this.user(userId) },
      ...Object.keys(times).map((channelId) => ({ event: 'channel_viewed', data: { channel_id: channelId }, broadcast: broadcast({ user_id: userId }), audience: this.user(userId) })),
    ]);
  }

  channelCreated(channel: Channel, creatorId: string): void {
    this.send(() => [{ event: 'channel_created', data: { channel_id: channel.id, team_id: channel.team_id }, broadcast: broadcast({ user_id: creatorId }), audience: this.user(creatorId) }]);
  }

  directAdded(channel: Channel, creatorId: string, teammateId: string): void {
    this.send(() => [
      {
        event: 'direct_added',
        data: { creator_id: creatorId, teammate_id: teammateId },
        broadcast: broadcast({ channel_id: channel.id }),
        audience: { kind: 'users', userIds: [...new Set([creatorId, teammateId])] },
      },
    ]);
  }

  /** To the channel (the added user left out) and to the added user, as Mattermost sends it. */
  userAdded(channel: Channel, userId: string): void {
    this.send(async () => [
      {
        event: 'user_added',
        data: { user_id: userId, team_id: channel.team_id },
        broadcast: broadcast({ channel_id: channel.id, omit_users: { [userId]: true } }),
        audience: await this.channelAudience(channel.id),
        omitUsers: [userId],
      },
      { event: 'user_added', data: { user_id: userId, team_id: channel.team_id }, broadcast: broadcast({ user_id: userId, channel_id: channel.id }), audience: this.user(userId) },
    ]);
  }

  /** To the channel's remaining members, and to the removed user. */
  userRemoved(channel: Channel, userId: string, removerId: string): void {
    this.send(async () => [
      { event: 'user_removed', data: { user_id: userId, remover_id: removerId }, broadcast: broadcast({ channel_id: channel.id }), audience: await this.channelAudience(channel.id) },
      { event: 'user_removed', data: { channel_id: channel.id, remover_id: removerId }, broadcast: broadcast({ user_id: userId }), audience: this.user(userId) },
    ]);
  }

  addedToTeam(teamId: string, userId: string): void {
    this.send(() => [{ event: 'added_to_team', data: { team_id: teamId, user_id: userId }, broadcast: broadcast({ user_id: userId }), audience: this.user(userId) }]);
  }

  /** To the team's remaining members (the user left out, as Mattermost marks it), and to the user who left. */
  leaveTeam(teamId: string, userId: string): void {
    this.send(async () => [
      {
        event: 'leave_team',
        data: { team_id: teamId, user_id: userId },
        broadcast: broadcast({ team_id: teamId, omit_users: { [userId]: true } }),
        audience: await this.teamAudience(teamId),
        omitUsers: [userId],
      },
      { event: 'leave_team', data: { team_id: teamId, user_id: userId }, broadcast: broadcast({ user_id: userId }), audience: this.user(userId) },
    ]);
  }

  private async teamAudience(teamId: string): Promise<Audience> {
    return { kind: 'users', userIds: await this.deps.stores.teams.memberIds(teamId) };
  }

  /** A team's new settings, to its members, without what only its managers may see (email, invite id). */
  updateTeam(team: Team): void {
    this.send(async () => [
      { event: 'update_team', data: { team: JSON.stringify(sanitizeTeam(team, false)) }, broadcast: broadcast({ team_id: team.id }), audience: await this.teamAudience(team.id) },
    ]);
  }

  /** A channel's new settings, to its members (Mattermost broadcasts it on the channel, public or not). */
  channelUpdated(channel: Channel): void {
    this.send(async () => [
      { event: 'channel_updated', data: { channel: JSON.stringify(channel) }, broadcast: broadcast({ channel_id: channel.id }), audience: await this.channelAudience(channel.id) },
    ]);
  }

  /**
   * Where an archive or restore is announced, as Mattermost does: for a public channel the whole team (every member
   * may browse it, and their lists change), for a private channel only its members.
   */
  private async archiveScope(channel: Channel): Promise<{ broadcast: ReturnType<typeof broadcast>; audience: Audience }> {
    if (channel.type === 'O') return { broadcast: broadcast({ team_id: channel.team_id }), audience: await this.teamAudience(channel.team_id) };
    return { broadcast: broadcast({ channel_id: channel.id }), audience: await this.channelAudience(channel.id) };
  }

  channelDeleted(channel: Channel, deleteAt: number): void {
    this.send(async () => [{ event: 'channel_deleted', data: { channel_id: channel.id, delete_at: deleteAt }, ...(await this.archiveScope(channel)) }]);
  }

  channelRestored(channel: Channel): void {
    this.send(async () => [{ event: 'channel_restored', data: { channel_id: channel.id }, ...(await this.archiveScope(channel)) }]);
  }

  /** A membership's new roles, to that member only (the key is camelCase, as Mattermost sends it). */
  channelMemberUpdated(member: ChannelMember): void {
    this.send(() => [
      { event: 'channel_member_updated', data: { channelMember: JSON.stringify(member) }, broadcast: broadcast({ user_id: member.user_id }), audience: this.user(member.user_id) },
    ]);
  }

  /** A team membership's new roles, to that member only (the membership as a JSON string, as Mattermost sends it). */
  memberRoleUpdated(member: TeamMember): void {
    this.send(() => [
      { event: 'memberrole_updated', data: { member: JSON.stringify(member) }, broadcast: broadcast({ user_id: member.user_id }), audience: this.user(member.user_id) },
    ]);
  }

  /**
   * A user's new system roles, to that user only; the event also carries them to the user's sockets on every process,
   * which are addressed by them from then on (admin-only copies, typing permission).
   */
  userRoleUpdated(userId: string, roles: string): void {
    this.send(() => [
      { event: 'user_role_updated', data: { user_id: userId, roles }, broadcast: broadcast({ user_id: userId }), audience: this.user(userId), rolesChanged: { userId, roles } },
    ]);
  }

  newUser(userId: string): void {
    this.send(() => [{ event: 'new_user', data: { user_id: userId }, broadcast: broadcast(), audience: { kind: 'all' } }]);
  }

  /**
   * Three copies, as Mattermost sends them: system admins see what admins may see, everyone else the profile as
   * privacy settings allow, and the user themselves their own.
   */
  userUpdated(user: UserRecord): void {
    this.send(() => {
      const config = this.deps.config.get();
      const forAdmin = sanitizeUser(user, { userId: '', isAdmin: true }, config);
      const forOthers = sanitizeUser(user, { userId: '', isAdmin: false }, config);
      const own = sanitizeUser(user, { userId: user.id, isAdmin: false }, config);
      const omit = { [user.id]: true };
      return [
        { event: 'user_updated', data: { user: forAdmin }, broadcast: broadcast({ omit_users: omit, contains_sensitive_data: true }), audience: { kind: 'all' }, omitUsers: [user.id], admins: true },
        { event: 'user_updated', data: { user: forOthers }, broadcast: broadcast({ omit_users: omit, contains_sanitized_data: true }), audience: { kind: 'all' }, omitUsers: [user.id], admins: false },
        { event: 'user_updated', data: { user: own }, broadcast: broadcast({ user_id: user.id }), audience: this.user(user.id) },
      ];
    });
  }

  /** Saved or deleted preferences, to the user's own sockets only (`preferences` as a JSON array string). */
  preferences(event: 'preferences_changed' | 'preferences_deleted', userId: string, preferences: Preference[]): void {
    this.send(() => [{ event, data: { preferences: JSON.stringify(preferences) }, broadcast: broadcast({ user_id: userId }), audience: this.user(userId) }]);
  }

  /**
   * A change to a user's sidebar categories on a team, to that user's own sockets, with Mattermost's data:
   * `category_id` (created, deleted), `updatedCategories` as a JSON array string (updated; left out, with no team,
   * where clients are to fetch their categories again), `order` (order updated).
   */
  sidebar(event: 'sidebar_category_created' | 'sidebar_category_deleted' | 'sidebar_category_updated' | 'sidebar_category_order_updated', userId: string, teamId: string, data: Record<string, unknown>): void {
    this.send(() => [{ event, data, broadcast: broadcast({ user_id: userId, team_id: teamId }), audience: this.user(userId) }]);
  }

  /**
   * Events about a user's own state (the threads they follow: thread_updated, thread_follow_changed,
   * thread_read_changed), each to that user's own sockets only; built after the write, when someone listens.
   */
  userEvents(build: () => Promise<UserEvent[]> | UserEvent[]): void {
    this.send(async () =>
      (await build()).map((e) => ({ event: e.event, data: e.data, broadcast: broadcast({ user_id: e.userId, team_id: e.teamId }), audience: this.user(e.userId) })),
    );
  }

  /** The new client configuration, to system admins (the ones who can change it, and whose screens show it). */
  configChanged(config: Record<string, string>): void {
    this.send(() => [{ event: 'config_changed', data: { config }, broadcast: broadcast(), audience: { kind: 'all' }, admins: true }]);
  }
}
