import type { Knex } from 'knex';
import type { Channel, ChannelMember, ChannelMemberWithTeamData } from '../model';
import { Executor, Row, bool, json, num, paged, str } from './rows';
import { prepared } from './prepared';

const TABLE = 'channels';
const MEMBERS = 'channel_members';

function mapRow(r: Row): Channel {
  return {
    id: str(r.id),
    create_at: num(r.create_at),
    update_at: num(r.update_at),
    delete_at: num(r.delete_at),
    team_id: str(r.team_id),
    type: str(r.type) as Channel['type'],
    display_name: str(r.display_name),
    name: str(r.name),
    header: str(r.header),
    purpose: str(r.purpose),
    last_post_at: num(r.last_post_at),
    last_root_post_at: num(r.last_root_post_at),
    total_msg_count: num(r.total_msg_count),
    total_msg_count_root: num(r.total_msg_count_root),
    extra_update_at: 0,
    creator_id: str(r.creator_id),
    scheme_id: null,
    props: null,
    group_constrained: null,
    shared: null,
    policy_id: null,
  };
}

/** The stored columns of a new channel (its counters and last post times start at their defaults). */
function toRow(c: Channel): Row {
  return {
    id: c.id,
    create_at: c.create_at,
    update_at: c.update_at,
    delete_at: c.delete_at,
    team_id: c.team_id,
    type: c.type,
    display_name: c.display_name,
    name: c.name,
    header: c.header,
    purpose: c.purpose,
    creator_id: c.creator_id,
  };
}

/** One channel membership's unread counts (GetTeamUnread sums them per team). */
export interface ChannelUnreadRow {
  teamId: string;
  msgCount: number;
  msgCountRoot: number;
  mentionCount: number;
  mentionCountRoot: number;
  /** The member's notify_props.mark_unread: "mention" means plain messages do not count as unread. */
  markUnread: string;
}

/** A channel member as the notification rules read them (ChannelsStore.notifyAudience). */
export interface NotifyAudienceRow {
  userId: string;
  username: string;
  firstName: string;
  isBot: boolean;
  lastActivityAt: number;
  notifyProps: Record<string, string>;
  channelNotifyProps: Record<string, string>;
  /** The stored status row, if the user has one. */
  stored?: { status: string; manual: boolean; dnd_end_time: number; prev_status: string };
}

export const DEFAULT_CHANNEL_NOTIFY_PROPS = {
  desktop: 'default',
  push: 'default',
  email: 'default',
  mark_unread: 'all',
  ignore_channel_mentions: 'default',
  channel_auto_follow_threads: 'off',
};

/** The channel_members columns mapMember reads. */
const MEMBER_COLUMNS = ['channel_id', 'user_id', 'roles', 'last_viewed_at', 'msg_count', 'mention_count', 'mention_count_root', 'msg_count_root', 'notify_props', 'last_update_at', 'scheme_user', 'scheme_admin'] as const;

function mapMember(r: Row): ChannelMember {
  const schemeUser = bool(r.scheme_user);
  const schemeAdmin = bool(r.scheme_admin);
  const explicit = str(r.roles);
  return {
    channel_id: str(r.channel_id),
    user_id: str(r.user_id),
    roles: [explicit, schemeUser ? 'channel_user' : '', schemeAdmin ? 'channel_admin' : ''].filter(Boolean).join(' '),
    last_viewed_at: num(r.last_viewed_at),
    msg_count: num(r.msg_count),
    mention_count: num(r.mention_count),
    mention_count_root: num(r.mention_count_root),
    urgent_mention_count: 0,
    msg_count_root: num(r.msg_count_root),
    notify_props: json(r.notify_props, { ...DEFAULT_CHANNEL_NOTIFY_PROPS }),
    last_update_at: num(r.last_update_at),
    scheme_guest: false,
    scheme_user: schemeUser,
    scheme_admin: schemeAdmin,
    explicit_roles: explicit,
  };
}

/** GetPostsForChannel's channel, the caller's membership and the channel's last change, in one statement. */
const channelForReading = prepared((db, channelId: string, userId: string) =>
  db(`${TABLE} as c`)
    .leftJoin(`${MEMBERS} as m`, (j) => j.on('m.channel_id', 'c.id').andOn('m.user_id', db.raw('?', [userId])))
    .where('c.id', channelId)
    .select('c.*', ...MEMBER_COLUMNS.map((col) => `m.${col} as m_${col}`))
    // On the (channel_id, update_at) index: one index probe.
    .select(db.raw('(select max(p.update_at) from posts p where p.channel_id = c.id) as last_post_update'))
    .limit(1),
);

/** The most channels a channel search or autocompletion returns: Mattermost's limits (ChannelSearchDefaultLimit; 100 for SearchInTeam). */
export const CHANNEL_SEARCH_LIMITS = { autocomplete: 50, search: 100, directMessages: 50 } as const;

/**
 * Rows where every word is found in one of `columns` (letter case ignored). The words are matched as written: `%`,
 * `_` and the escape character itself are escaped, so a term never widens the match, and each LIKE is linear in its
 * word (one leading and one trailing wildcard).
 */
function containsEveryWord(db: Executor, q: Knex.QueryBuilder, columns: string[], words: string[]): Knex.QueryBuilder {
  for (const word of words) {
    const pattern = `%${word.toLowerCase().replace(/[!%_]/g, '!$&')}%`;
    q.where((w) => {
      for (const column of columns) w.orWhere(db.raw("LOWER(??) LIKE ? ESCAPE '!'", [column, pattern]));
    });
  }
  return q;
}

const SEARCHED_COLUMNS = ['c.name', 'c.display_name', 'c.purpose'];

export class ChannelsStore {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): ChannelsStore {
    return new ChannelsStore(trx);
  }

  async insert(c: Channel): Promise<void> {
    await this.db(TABLE).insert(toRow(c));
  }

  async get(id: string): Promise<Channel | undefined> {
    const r = await this.db(TABLE).where({ id }).first();
    return r ? mapRow(r) : undefined;
  }

  async getByName(teamId: string, name: string, includeDeleted: boolean): Promise<Channel | undefined> {
    const q = this.db(TABLE).where({ team_id: teamId, name });
    if (!includeDeleted) q.where('delete_at', 0);
    const r = await q.first();
    // MySQL's default collation folds case and trailing spaces: only an exact match counts, as on SQLite. (The
    // unique index folds the same way, so the row found is the only candidate.)
    return r && str(r.name) === name ? mapRow(r) : undefined;
  }

  /**
   * AutocompleteChannelsForTeam: the team's live channels the user may see (public ones, and private ones they belong
   * to) containing every word, by display name, at most CHANNEL_SEARCH_LIMITS.autocomplete. On the team_id index.
   */
  async autocompleteInTeam(teamId: string, userId: string, words: string[]): Promise<Channel[]> {
    const q = this.db(`${TABLE} as c`)
      .where({ 'c.team_id': teamId, 'c.delete_at': 0 })
      .where((w) =>
        w.where('c.type', 'O').orWhere((p) => p.where('c.type', 'P').whereIn('c.id', (sub) => sub.select('channel_id').from(MEMBERS).where('user_id', userId))),
      )
      .select('c.*');
    containsEveryWord(this.db, q, SEARCHED_COLUMNS, words);
    return (await q.orderBy([{ column: 'c.display_name' }, { column: 'c.id' }]).limit(CHANNEL_SEARCH_LIMITS.autocomplete)).map(mapRow);
  }

  /**
   * SearchChannels: the team's live public channels containing every word (only those `memberId` belongs to, when
   * given), by display name, at most CHANNEL_SEARCH_LIMITS.search.
   */
  async searchPublicInTeam(teamId: string, words: string[], memberId?: string): Promise<Channel[]> {
    const q = this.db(`${TABLE} as c`).where({ 'c.team_id': teamId, 'c.type': 'O', 'c.delete_at': 0 }).select('c.*');
    if (memberId) q.whereIn('c.id', (sub) => sub.select('channel_id').from(MEMBERS).where('user_id', memberId));
    containsEveryWord(this.db, q, SEARCHED_COLUMNS, words);
    return (await q.orderBy([{ column: 'c.display_name' }, { column: 'c.id' }]).limit(CHANNEL_SEARCH_LIMITS.search)).map(mapRow);
  }

  /**
   * AutocompleteChannelsForTeamForSearch: the user's own live channels of the team and group channels containing
   * every word (at most CHANNEL_SEARCH_LIMITS.autocomplete), and their direct channels whose other member's username
   * or nickname contains every word (at most CHANNEL_SEARCH_LIMITS.directMessages), each with `display_name` set to
   * that username as Mattermost answers. Both start from the user's memberships (the user_id index).
   */
  async autocompleteForSearch(teamId: string, userId: string, words: string[]): Promise<Channel[]> {
    const own = this.db(`${TABLE} as c`)
      .join(`${MEMBERS} as m`, 'm.channel_id', 'c.id')
      .where({ 'm.user_id': userId, 'c.delete_at': 0 })
      .where((w) => w.where('c.team_id', teamId).orWhere((g) => g.where({ 'c.team_id': '', 'c.type': 'G' })))
      .select('c.*');
    containsEveryWord(this.db, own, SEARCHED_COLUMNS, words);
    const direct = this.db(`${TABLE} as c`)
      .join(`${MEMBERS} as m`, 'm.channel_id', 'c.id')
      .join(`${MEMBERS} as o`, 'o.channel_id', 'c.id')
      .join('users as u', 'u.id', 'o.user_id')
      .where({ 'm.user_id': userId, 'c.type': 'D', 'c.delete_at': 0 })
      .whereNot('o.user_id', userId)
      .select('c.*', { other_username: 'u.username' });
    containsEveryWord(this.db, direct, ['u.username', 'u.nickname'], words);
    const [channels, directs] = await Promise.all([
      own.orderBy([{ column: 'c.display_name' }, { column: 'c.id' }]).limit(CHANNEL_SEARCH_LIMITS.autocomplete),
      direct.orderBy([{ column: 'u.username' }, { column: 'c.id' }]).limit(CHANNEL_SEARCH_LIMITS.directMessages),
    ]);
    return [...(channels as Row[]).map(mapRow), ...(directs as Row[]).map((r) => ({ ...mapRow(r), display_name: str(r.other_username) }))];
  }

  async listPublic(teamId: string, page: number, perPage: number): Promise<Channel[]> {
    const q = this.db(TABLE).where({ team_id: teamId, type: 'O', delete_at: 0 }).orderBy('display_name').orderBy('id');
    return (await paged(q, page, perPage)).map(mapRow);
  }

  /**
   * GetDeletedChannelsForTeam: the team's archived public channels and the archived private ones `userId` belongs to,
   * by display name, as Mattermost's GetDeleted lists them.
   */
  async listDeleted(teamId: string, userId: string, page: number, perPage: number): Promise<Channel[]> {
    const q = this.db(`${TABLE} as c`)
      .where('c.team_id', teamId)
      .where('c.delete_at', '>', 0)
      .where((w) =>
        w.where('c.type', 'O').orWhere((p) => p.where('c.type', 'P').whereIn('c.id', (sub) => sub.select('channel_id').from(MEMBERS).where('user_id', userId))),
      )
      .select('c.*')
      .orderBy([{ column: 'c.display_name' }, { column: 'c.id' }]);
    return (await paged(q, page, perPage)).map(mapRow);
  }

  /** The user's channels in a team, including direct and group channels (team-less), as Mattermost lists them. */
  async listForUser(teamId: string, userId: string, includeDeleted: boolean, lastDeleteAt: number): Promise<Channel[]> {
    const q = this.db(`${TABLE} as c`)
      .join(`${MEMBERS} as m`, 'm.channel_id', 'c.id')
      .where('m.user_id', userId)
      .where((w) => w.where('c.team_id', teamId).orWhere('c.team_id', ''))
      .select('c.*')
      .orderBy('c.display_name');
    if (!includeDeleted) q.where('c.delete_at', 0);
    else if (lastDeleteAt > 0) q.where((w) => w.where('c.delete_at', 0).orWhere('c.delete_at', '>=', lastDeleteAt));
    return (await q).map(mapRow);
  }

  async insertMember(m: { channel_id: string; user_id: string; scheme_admin: boolean; now: number; msg_count: number; msg_count_root: number }): Promise<void> {
    await this.db(MEMBERS).insert({
      channel_id: m.channel_id,
      user_id: m.user_id,
      roles: '',
      scheme_user: true,
      scheme_admin: m.scheme_admin,
      last_viewed_at: 0,
      msg_count: m.msg_count,
      msg_count_root: m.msg_count_root,
      mention_count: 0,
      mention_count_root: 0,
      notify_props: JSON.stringify(DEFAULT_CHANNEL_NOTIFY_PROPS),
      last_update_at: m.now,
    });
  }

  /**
   * The channel, the user's membership of it and its posts' last change time (the basis of its ETag), in one
   * statement: the first step of reading a channel's history.
   */
  async getForReading(channelId: string, userId: string): Promise<{ channel: Channel; member: ChannelMember | null; lastUpdateAt: number } | undefined> {
    const [r] = await channelForReading(this.db, channelId, userId);
    if (!r) return undefined;
    const row = r as Row;
    const lastUpdateAt = num(row.last_post_update);
    if (row.m_user_id === null || row.m_user_id === undefined) return { channel: mapRow(row), member: null, lastUpdateAt };
    const member: Row = {};
    for (const col of MEMBER_COLUMNS) member[col] = row[`m_${col}`];
    return { channel: mapRow(row), member: mapMember(member), lastUpdateAt };
  }

  async getMember(channelId: string, userId: string): Promise<ChannelMember | undefined> {
    const r = await this.db(MEMBERS).where({ channel_id: channelId, user_id: userId }).first();
    return r ? mapMember(r) : undefined;
  }

  async listMembers(channelId: string, page: number, perPage: number): Promise<ChannelMember[]> {
    const q = this.db(MEMBERS).where({ channel_id: channelId }).orderBy('user_id');
    return (await paged(q, page, perPage)).map(mapMember);
  }

  /** The member ids of several channels in one query (the real-time audience of a batch of events). */
  async memberIdsOf(channelIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(channelIds.map((id) => [id, []]));
    if (channelIds.length === 0) return out;
    const rows = await this.db(MEMBERS).whereIn('channel_id', channelIds).select('channel_id', 'user_id');
    for (const r of rows as Row[]) out.get(str(r.channel_id))?.push(str(r.user_id));
    return out;
  }

  async memberUserIds(channelId: string): Promise<string[]> {
    const rows = await this.db(MEMBERS).where({ channel_id: channelId }).select('user_id');
    return rows.map((r: Row) => str(r.user_id));
  }

  /**
   * Members with everything the notification rules read (user and membership notify_props, stored status), in one
   * join; read only for posts that can notify someone (notify-rules.ts).
   */
  async notifyAudience(channelId: string): Promise<NotifyAudienceRow[]> {
    const rows = await this.db(`${MEMBERS} as m`)
      .join('users as u', 'u.id', 'm.user_id')
      .leftJoin('status as s', 's.user_id', 'm.user_id')
      .where('m.channel_id', channelId)
      .where('u.delete_at', 0)
      .select({
        userId: 'u.id',
        username: 'u.username',
        firstName: 'u.first_name',
        isBot: 'u.is_bot',
        lastActivityAt: 'u.last_activity_at',
        userNotifyProps: 'u.notify_props',
        memberNotifyProps: 'm.notify_props',
        status: 's.status',
        manual: 's.manual',
        dndEndTime: 's.dnd_end_time',
        prevStatus: 's.prev_status',
      });
    return rows.map((r: Row) => ({
      userId: str(r.userId),
      username: str(r.username),
      firstName: str(r.firstName),
      isBot: bool(r.isBot),
      lastActivityAt: num(r.lastActivityAt),
      notifyProps: json<Record<string, string>>(r.userNotifyProps, {}),
      channelNotifyProps: json<Record<string, string>>(r.memberNotifyProps, { ...DEFAULT_CHANNEL_NOTIFY_PROPS }),
      stored: r.status == null ? undefined : { status: str(r.status), manual: bool(r.manual), dnd_end_time: num(r.dndEndTime), prev_status: str(r.prevStatus) },
    }));
  }

  /** Replaces one membership's notify_props (UpdateChannelNotifyProps); false when there is no such membership. */
  async setNotifyProps(channelId: string, userId: string, notifyProps: Record<string, string>, now: number): Promise<boolean> {
    const n = await this.db(MEMBERS).where({ channel_id: channelId, user_id: userId }).update({ notify_props: JSON.stringify(notifyProps), last_update_at: now });
    return n > 0;
  }

  /**
   * Mutes ("mention") or unmutes ("all") the user's memberships of these channels (notify_props.mark_unread), as a
   * muted sidebar category does; returns the memberships changed.
   */
  async setMarkUnread(userId: string, channelIds: string[], markUnread: 'all' | 'mention', now: number): Promise<ChannelMember[]> {
    const changed: ChannelMember[] = [];
    for (let i = 0; i < channelIds.length; i += 200) {
      const rows = (await this.db(MEMBERS).where('user_id', userId).whereIn('channel_id', channelIds.slice(i, i + 200))) as Row[];
      for (const row of rows) {
        const member = mapMember(row);
        if (member.notify_props.mark_unread === markUnread) continue;
        const notifyProps = { ...member.notify_props, mark_unread: markUnread };
        await this.db(MEMBERS).where({ channel_id: member.channel_id, user_id: userId }).update({ notify_props: JSON.stringify(notifyProps), last_update_at: now });
        changed.push({ ...member, notify_props: notifyProps, last_update_at: now });
      }
    }
    return changed;
  }

  async removeMember(channelId: string, userId: string): Promise<number> {
    return this.db(MEMBERS).where({ channel_id: channelId, user_id: userId }).delete();
  }

  /** Writes changed settings of a channel; false when no such channel. */
  async update(id: string, fields: Partial<Pick<Channel, 'display_name' | 'name' | 'header' | 'purpose' | 'update_at'>>): Promise<boolean> {
    return (await this.db(TABLE).where({ id }).update(fields)) === 1;
  }

  /**
   * Archives (deleteAt > 0) or restores (0) a channel in one conditional update: false when it already was in that
   * state, so of two concurrent archives exactly one succeeds.
   */
  async setDeleteAt(id: string, deleteAt: number, updateAt: number): Promise<boolean> {
    const q = this.db(TABLE).where({ id });
    if (deleteAt > 0) q.where('delete_at', 0);
    else q.where('delete_at', '>', 0);
    return (await q.update({ delete_at: deleteAt, update_at: updateAt })) === 1;
  }

  /** Members whose accounts are active (GetChannelStats' member_count). */
  async activeMemberCount(channelId: string): Promise<number> {
    const r = await this.db(`${MEMBERS} as m`)
      .join('users as u', 'u.id', 'm.user_id')
      .where({ 'm.channel_id': channelId, 'u.delete_at': 0 })
      .count<{ n: number }[]>({ n: '*' })
      .first();
    return num(r?.n);
  }

  /** Pinned posts of the channel that are not deleted. */
  async pinnedPostCount(channelId: string): Promise<number> {
    const r = await this.db('posts').where({ channel_id: channelId, is_pinned: true, delete_at: 0 }).count<{ n: number }[]>({ n: '*' }).first();
    return num(r?.n);
  }

  /** The user's memberships of a team's channels (archived ones included) and of their direct channels. */
  async membersForUser(teamId: string, userId: string): Promise<ChannelMember[]> {
    const rows = await this.db(`${MEMBERS} as m`)
      .join(`${TABLE} as c`, 'c.id', 'm.channel_id')
      .where('m.user_id', userId)
      .where((w) => w.where('c.team_id', teamId).orWhere('c.team_id', ''))
      .select('m.*')
      .orderBy('m.channel_id');
    return (rows as Row[]).map(mapMember);
  }

  /**
   * The user's channels in every team and their direct channels, by channel id (on the user_id index), at most
   * `limit`; archived ones only with includeDeleted, and then only those archived at or after lastDeleteAt (when set).
   */
  async listAllForUser(userId: string, opts: { includeDeleted: boolean; lastDeleteAt: number; limit: number }): Promise<Channel[]> {
    const q = this.db(`${MEMBERS} as m`).join(`${TABLE} as c`, 'c.id', 'm.channel_id').where('m.user_id', userId).select('c.*');
    if (!opts.includeDeleted) q.where('c.delete_at', 0);
    else if (opts.lastDeleteAt > 0) q.where((w) => w.where('c.delete_at', 0).orWhere('c.delete_at', '>=', opts.lastDeleteAt));
    return ((await q.orderBy('m.channel_id').limit(opts.limit)) as Row[]).map(mapRow);
  }

  /** The user's channel memberships in every team, by channel id, each with its channel's team ('' and 0 for none). */
  async membersWithTeamsOfUser(userId: string, window: { offset: number; limit: number }): Promise<ChannelMemberWithTeamData[]> {
    const rows = await this.db(`${MEMBERS} as m`)
      .join(`${TABLE} as c`, 'c.id', 'm.channel_id')
      .leftJoin('teams as t', 't.id', 'c.team_id')
      .where('m.user_id', userId)
      .select('m.*', 't.display_name as team_display_name', 't.name as team_name', 't.update_at as team_update_at')
      .orderBy('m.channel_id')
      .offset(window.offset)
      .limit(window.limit);
    return (rows as Row[]).map((r) => ({ ...mapMember(r), team_display_name: str(r.team_display_name), team_name: str(r.team_name), team_update_at: num(r.team_update_at) }));
  }

  /** Sets a member's channel roles: the admin flag and the roles that are not the scheme's; false when not a member. */
  async updateMemberRoles(channelId: string, userId: string, roles: { schemeAdmin: boolean; explicit: string; now: number }): Promise<boolean> {
    const changed = await this.db(MEMBERS)
      .where({ channel_id: channelId, user_id: userId })
      .update({ scheme_admin: roles.schemeAdmin, scheme_user: true, roles: roles.explicit, last_update_at: roles.now });
    return changed === 1;
  }

  /** Drops the user's memberships of every channel of the team (archived ones too); direct channels have no team. */
  async removeMemberFromTeamChannels(teamId: string, userId: string): Promise<number> {
    return this.db(MEMBERS)
      .where('user_id', userId)
      .whereIn('channel_id', (sub) => sub.select('id').from(TABLE).where('team_id', teamId))
      .delete();
  }

  /**
   * The user's unread counts per channel of their teams' channels that are not archived (direct channels, which have
   * no team, are left out): one team's, or every team's but one.
   */
  async unreadsForUser(userId: string, teams: { teamId?: string; excludeTeamId?: string }): Promise<ChannelUnreadRow[]> {
    const q = this.db(`${MEMBERS} as m`)
      .join(`${TABLE} as c`, 'c.id', 'm.channel_id')
      .where({ 'm.user_id': userId, 'c.delete_at': 0 })
      .whereNot('c.team_id', '')
      .select({
        teamId: 'c.team_id',
        total: 'c.total_msg_count',
        totalRoot: 'c.total_msg_count_root',
        seen: 'm.msg_count',
        seenRoot: 'm.msg_count_root',
        mentions: 'm.mention_count',
        mentionsRoot: 'm.mention_count_root',
        notifyProps: 'm.notify_props',
      });
    if (teams.teamId !== undefined) q.where('c.team_id', teams.teamId);
    if (teams.excludeTeamId) q.whereNot('c.team_id', teams.excludeTeamId);
    return (await q).map((r: Row) => ({
      teamId: str(r.teamId),
      msgCount: Math.max(0, num(r.total) - num(r.seen)),
      msgCountRoot: Math.max(0, num(r.totalRoot) - num(r.seenRoot)),
      mentionCount: num(r.mentions),
      mentionCountRoot: num(r.mentionsRoot),
      markUnread: json<Record<string, string>>(r.notifyProps, {}).mark_unread ?? 'all',
    }));
  }

  /**
   * SetPostUnread: the membership reads as last viewed just before `from` (a post's create_at). The live posts created
   * from then on are unread: msg_count is the channel's total less them (Mattermost's UpdateLastViewedAtPost counts
   * only the unread side), the mention counts are the caller's. False when there is no such membership.
   */
  async setUnreadFrom(channelId: string, userId: string, from: number, mentions: { all: number; root: number }, now: number): Promise<boolean> {
    const [counted] = (await this.db('posts')
      .where({ channel_id: channelId, delete_at: 0 })
      .where('create_at', '>=', from)
      .select(this.db.raw('COUNT(*) AS n'), this.db.raw("SUM(CASE WHEN root_id = '' THEN 1 ELSE 0 END) AS roots"))) as Row[];
    const unread = num(counted?.n);
    const unreadRoot = num(counted?.roots);
    const less = (column: string, n: number) => this.db.raw(`(SELECT CASE WHEN ${column} > ? THEN ${column} - ? ELSE 0 END FROM channels WHERE channels.id = channel_members.channel_id)`, [n, n]);
    const n = await this.db(MEMBERS)
      .where({ channel_id: channelId, user_id: userId })
      .update({
        last_viewed_at: from - 1,
        last_update_at: now,
        mention_count: mentions.all,
        mention_count_root: mentions.root,
        msg_count: less('total_msg_count', unread),
        msg_count_root: less('total_msg_count_root', unreadRoot),
      });
    return n > 0;
  }

  /** Marks the channels as read for the user: unread counts drop to zero, msg_count catches up with the channel. */
  async view(channelIds: string[], userId: string, now: number): Promise<void> {
    if (channelIds.length === 0) return;
    await this.db(MEMBERS)
      .where('user_id', userId)
      .whereIn('channel_id', channelIds)
      .update({
        last_viewed_at: now,
        last_update_at: now,
        mention_count: 0,
        mention_count_root: 0,
        msg_count: this.db.raw('(SELECT total_msg_count FROM channels WHERE channels.id = channel_members.channel_id)'),
        msg_count_root: this.db.raw('(SELECT total_msg_count_root FROM channels WHERE channels.id = channel_members.channel_id)'),
      });
  }
}
