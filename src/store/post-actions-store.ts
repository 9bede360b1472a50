import type { ActionIntegration, PostOrigin, SealedActions } from '../model';
import { Executor, Row, json, str } from './rows';

const TABLE = 'post_action_integrations';

const ORIGIN_KINDS: ReadonlySet<string> = new Set<PostOrigin['kind']>(['incoming_webhook', 'outgoing_webhook', 'command']);

function mapRow(r: Row): SealedActions {
  const kind = str(r.origin_kind);
  const origin = ORIGIN_KINDS.has(kind) ? { kind: kind as PostOrigin['kind'], id: str(r.origin_id) } : undefined;
  return { ...(origin ? { origin } : {}), actions: json<Record<string, ActionIntegration>>(r.actions, {}) };
}

function toRow(postId: string, s: SealedActions): Row {
  return { post_id: postId, origin_kind: s.origin?.kind ?? '', origin_id: s.origin?.id ?? '', actions: JSON.stringify(s.actions) };
}

/**
 * What a post's interactive actions call (by action id) and which integration made the post: never part of the post
 * as read, only DoPostAction reads it.
 */
export class PostActionsStore {
  constructor(private readonly db: Executor) {}

  /** Stores the action data of new posts (in their transaction). */
  async insertMany(rows: Array<{ postId: string; sealed: SealedActions }>): Promise<void> {
    if (rows.length === 0) return;
    await this.db(TABLE).insert(rows.map((r) => toRow(r.postId, r.sealed)));
  }

  /** Replaces a post's action data (an edit or an action's update changed its actions); none left deletes it. */
  async replace(postId: string, sealed: SealedActions | undefined): Promise<void> {
    await this.db(TABLE).where({ post_id: postId }).delete();
    if (sealed && (Object.keys(sealed.actions).length > 0 || sealed.origin)) await this.db(TABLE).insert(toRow(postId, sealed));
  }

  async get(postId: string): Promise<SealedActions | undefined> {
    const r = (await this.db(TABLE).where({ post_id: postId }).first()) as Row | undefined;
    return r ? mapRow(r) : undefined;
  }
}
