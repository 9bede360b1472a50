import type { OutgoingWebhook } from '../model';
import { Executor, Row, json, num, paged, str } from './rows';

const TABLE = 'outgoing_webhooks';

function mapRow(r: Row): OutgoingWebhook {
  return {
    id: str(r.id),
    token: str(r.token),
    create_at: num(r.create_at),
    update_at: num(r.update_at),
    delete_at: num(r.delete_at),
    creator_id: str(r.creator_id),
    channel_id: str(r.channel_id),
    team_id: str(r.team_id),
    trigger_words: json<string[]>(r.trigger_words, []),
    trigger_when: num(r.trigger_when) === 1 ? 1 : 0,
    callback_urls: json<string[]>(r.callback_urls, []),
    display_name: str(r.display_name),
    description: str(r.description),
    content_type: str(r.content_type),
    username: str(r.username),
    icon_url: str(r.icon_url),
  };
}

function toRow(h: OutgoingWebhook): Row {
  return { ...h, trigger_words: JSON.stringify(h.trigger_words), callback_urls: JSON.stringify(h.callback_urls) };
}

/** Which hooks a list shows: scope (channel, team or all), owner, and what a viewer may see of private channels. */
export interface OutgoingHookFilter {
  teamId?: string;
  channelId?: string;
  creatorId?: string;
  /** Leaves out hooks bound to a private channel this user is not a member of (undefined: no such filter). */
  viewerId?: string;
}

export class OutgoingHooksStore {
  constructor(private readonly db: Executor) {}

  async insert(h: OutgoingWebhook): Promise<void> {
    await this.db(TABLE).insert(toRow(h));
  }

  /** Live hooks only: a deleted hook is indistinguishable from one that never existed. */
  async get(id: string): Promise<OutgoingWebhook | undefined> {
    const r = (await this.db(TABLE).where({ id, delete_at: 0 }).first()) as Row | undefined;
    return r ? mapRow(r) : undefined;
  }

  /** The live hooks of these teams: what a commit of posts matches its posts against (one indexed query). */
  async liveForTeams(teamIds: string[]): Promise<OutgoingWebhook[]> {
    if (teamIds.length === 0) return [];
    const rows = (await this.db(TABLE).whereIn('team_id', teamIds).where('delete_at', 0)) as Row[];
    return rows.map(mapRow);
  }

  /** The live hooks of a team bound to one channel ('' for the team-wide ones): the candidates for an overlap. */
  async liveForChannel(teamId: string, channelId: string): Promise<OutgoingWebhook[]> {
    const rows = (await this.db(TABLE).where({ team_id: teamId, channel_id: channelId, delete_at: 0 }).limit(1000)) as Row[];
    return rows.map(mapRow);
  }

  async list(filter: OutgoingHookFilter, page: number, perPage: number): Promise<OutgoingWebhook[]> {
    const q = this.db(`${TABLE} as h`).where('h.delete_at', 0).select('h.*').orderBy('h.create_at').orderBy('h.id');
    if (filter.channelId) q.where('h.channel_id', filter.channelId);
    if (filter.teamId) q.where('h.team_id', filter.teamId);
    if (filter.creatorId) q.where('h.creator_id', filter.creatorId);
    if (filter.viewerId) {
      const viewer = filter.viewerId;
      q.where((w) =>
        w
          .where('h.channel_id', '')
          .orWhereIn('h.channel_id', (s) => s.select('id').from('channels').where('type', 'O'))
          .orWhereIn('h.channel_id', (s) => s.select('channel_id').from('channel_members').where('user_id', viewer)),
      );
    }
    return ((await paged(q, page, perPage)) as Row[]).map(mapRow);
  }

  /** Replaces a live hook's fields. A hook deleted since the caller read it stays deleted. */
  async update(h: OutgoingWebhook): Promise<void> {
    const { id, ...rest } = toRow(h);
    await this.db(TABLE).where({ id, delete_at: 0 }).update(rest);
  }

  async softDelete(id: string, now: number): Promise<void> {
    await this.db(TABLE).where({ id, delete_at: 0 }).update({ delete_at: now, update_at: now });
  }
}
