import type { IncomingWebhook } from '../model';
import { Executor, Row, bool, json, num, paged, str } from './rows';

const TABLE = 'incoming_webhooks';
const IDEMPOTENCY = 'webhook_idempotency';

function mapRow(r: Row): IncomingWebhook {
  return {
    id: str(r.id),
    create_at: num(r.create_at),
    update_at: num(r.update_at),
    delete_at: num(r.delete_at),
    user_id: str(r.user_id),
    channel_id: str(r.channel_id),
    team_id: str(r.team_id),
    display_name: str(r.display_name),
    description: str(r.description),
    username: str(r.username),
    icon_url: str(r.icon_url),
    channel_locked: bool(r.channel_locked),
    signing_secret: str(r.signing_secret),
  };
}

/** A hook's fields are its columns (the drivers write booleans as 0/1). */
function toRow(h: IncomingWebhook): Row {
  return { ...h };
}

export interface HookProbe {
  hookUpdateAt: number;
  channelUpdateAt: number;
  channelDeleteAt: number;
  creatorUpdateAt: number;
  creatorDeleteAt: number;
  isMember: boolean;
}

export class WebhooksStore {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): WebhooksStore {
    return new WebhooksStore(trx);
  }

  async insert(h: IncomingWebhook): Promise<void> {
    await this.db(TABLE).insert(toRow(h));
  }

  /** Live hooks only: a deleted hook is indistinguishable from one that never existed. */
  async get(id: string): Promise<IncomingWebhook | undefined> {
    const r = await this.db(TABLE).where({ id, delete_at: 0 }).first();
    return r ? mapRow(r) : undefined;
  }

  async list(opts: { teamId?: string; userId?: string; page: number; perPage: number }): Promise<IncomingWebhook[]> {
    const q = this.db(TABLE).where('delete_at', 0).orderBy('create_at').orderBy('id');
    if (opts.teamId) q.where('team_id', opts.teamId);
    if (opts.userId) q.where('user_id', opts.userId);
    return (await paged(q, opts.page, opts.perPage)).map(mapRow);
  }

  async count(opts: { teamId?: string; userId?: string }): Promise<number> {
    const q = this.db(TABLE).where('delete_at', 0);
    if (opts.teamId) q.where('team_id', opts.teamId);
    if (opts.userId) q.where('user_id', opts.userId);
    const r = await q.count<{ n: number }[]>({ n: '*' }).first();
    return num(r?.n);
  }

  /** Replaces a live hook's fields. A hook deleted since the caller read it stays deleted. */
  async update(h: IncomingWebhook): Promise<void> {
    const { id, ...rest } = toRow(h);
    // The caller's copy says delete_at 0: written to a hook another request deleted in between, it would revive it.
    await this.db(TABLE).where({ id, delete_at: 0 }).update(rest);
  }

  async softDelete(id: string, now: number): Promise<void> {
    await this.db(TABLE).where({ id, delete_at: 0 }).update({ delete_at: now, update_at: now });
  }

  /** Deletes the live hooks that post to a channel (archiving it does, as in Mattermost); returns how many. */
  async softDeleteForChannel(channelId: string, now: number): Promise<number> {
    return this.db(TABLE).where({ channel_id: channelId, delete_at: 0 }).update({ delete_at: now, update_at: now });
  }

  /** The post ids answered for an Idempotency-Key, if it was seen after `since` (older answers have expired). */
  async idempotentAnswer(hookId: string, keyHash: string, since: number): Promise<string[] | undefined> {
    const r: Row | undefined = await this.db(IDEMPOTENCY).where({ hook_id: hookId, key_hash: keyHash }).where('create_at', '>=', since).first();
    return r ? json<string[]>(r.post_ids, []) : undefined;
  }

  /**
   * Records a key's answer; must run in the transaction of the posts it names. An expired record of the same key is
   * replaced; a live one (another process's, committed or in flight) makes the insert fail as a duplicate.
   */
  async recordIdempotency(r: { hookId: string; keyHash: string; postIds: string[]; now: number; expiredBefore: number }): Promise<void> {
    await this.db(IDEMPOTENCY).where({ hook_id: r.hookId, key_hash: r.keyHash }).where('create_at', '<', r.expiredBefore).delete();
    await this.db(IDEMPOTENCY).insert({ hook_id: r.hookId, key_hash: r.keyHash, post_ids: JSON.stringify(r.postIds), create_at: r.now });
  }

  /** Drops expired answers (a periodic job keeps the table at about a day's worth; create_at is indexed). */
  async purgeIdempotency(expiredBefore: number): Promise<number> {
    return this.db(IDEMPOTENCY).where('create_at', '<', expiredBefore).delete();
  }

  /**
   * The freshness probe of the webhook cache, run inside the post's own transaction: the hook's and the target
   * channel's versions and the creator's membership, in a single round trip. The post commits only if what was
   * cached still holds, so a delete or change on any process takes effect at once.
   */
  async probe(hookId: string, channelId: string, userId: string): Promise<HookProbe | undefined> {
    const r = await this.db(`${TABLE} as h`)
      .join('channels as c', 'c.id', this.db.raw('?', [channelId]))
      .join('users as u', 'u.id', 'h.user_id')
      .leftJoin('channel_members as m', (j) => j.on('m.channel_id', 'c.id').andOn('m.user_id', this.db.raw('?', [userId])))
      .where('h.id', hookId)
      .where('h.delete_at', 0)
      .select({
        hookUpdateAt: 'h.update_at',
        channelUpdateAt: 'c.update_at',
        channelDeleteAt: 'c.delete_at',
        creatorUpdateAt: 'u.update_at',
        creatorDeleteAt: 'u.delete_at',
        memberUser: 'm.user_id',
      })
      .first();
    if (!r) return undefined;
    return {
      hookUpdateAt: num(r.hookUpdateAt),
      channelUpdateAt: num(r.channelUpdateAt),
      channelDeleteAt: num(r.channelDeleteAt),
      creatorUpdateAt: num(r.creatorUpdateAt),
      creatorDeleteAt: num(r.creatorDeleteAt),
      isMember: r.memberUser !== null && r.memberUser !== undefined,
    };
  }
}
