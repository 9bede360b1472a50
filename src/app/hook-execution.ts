import { createHash } from 'node:crypto';
import { isValidId } from '../lib/ids';
import { SingleFlight } from '../lib/single-flight';
import { splitByCodePoints } from '../lib/text';
import { AppError, POST_LIMITS, WEBHOOK_IDEMPOTENCY, isDatabaseError, type Channel, type IncomingWebhook, type Post, type UserRecord, type WebhookPayload } from '../model';
import type { TxStores } from '../store';
import type { HookProbe } from '../store/webhooks-store';
import type { ChannelsService } from './channels';
import type { Deps } from './deps';
import type { PostsService } from './posts';
import type { PostCommit, PostWriter } from './post-writer';
import type { Realtime } from './realtime';
import { newPost } from './records';
import {
  archivedChannelError,
  emptyPayloadError,
  isEmptyAnswer,
  must,
  parseAttachments,
  priorityOnReplyError,
  propsSizeError,
  typeError,
  webhookPriorityError,
  withoutReservedProps,
} from './post-rules';
import { type Attachment, attachmentTexts, convertAttachment, convertSlackLinks, convertSlackMentions, referencedUserIds } from './slack';
import type { WebhookCache } from './webhook-cache';

const hookNotFound = () => AppError.notFound('web.incoming_webhook.invalid.app_error', 'Invalid webhook.');
// A named channel that is missing or that the hook's creator may not post to: one answer for both.
const channelNotFound = () => AppError.notFound('web.incoming_webhook.channel.app_error', "Couldn't find the channel.");
// An @user target that is missing or deactivated.
const userNotFound = () => AppError.notFound('web.incoming_webhook.user.app_error', "Couldn't find the user.");

// Printable ASCII only: a key is an opaque token (a UUID, a job id), and the limit counts characters as bytes.
const IDEMPOTENCY_KEY = /^[\x20-\x7e]+$/;

/** An Idempotency-Key as stored: its SHA-256 (fixed width; the key itself may embed something private). */
export function idempotencyKeyHash(key: string): string {
  if (key.length > WEBHOOK_IDEMPOTENCY.keyMaxChars || !IDEMPOTENCY_KEY.test(key)) {
    throw AppError.badRequest(
      'web.incoming_webhook.idempotency_key.app_error',
      `The Idempotency-Key header must be 1 to ${WEBHOOK_IDEMPOTENCY.keyMaxChars} printable ASCII characters.`,
    );
  }
  return createHash('sha256').update(key).digest('hex');
}
const disabled = (id: string) => AppError.notImplemented(id, 'Incoming webhooks have been disabled by the system admin.');

/** What a webhook post resolved to before it is written: the cached parts the write transaction re-checks. */
interface Resolved {
  hook: IncomingWebhook;
  creator: UserRecord;
  channel: Channel;
}

/** Who a webhook post speaks as: the hook's name and its default overrides (an incoming or outgoing hook's). */
export type HookIdentity = Pick<IncomingWebhook, 'display_name' | 'username' | 'icon_url'>;

/** POST /hooks/{hook_id}: a payload becomes posts, following the webhook rules (docs/webhook-rules.md). */
export class HookExecution {
  private readonly sameKey = new SingleFlight<string[]>();

  constructor(
    private readonly deps: Deps,
    private readonly cache: WebhookCache,
    private readonly channels: ChannelsService,
    private readonly posts: PostsService,
    private readonly writer: PostWriter,
    private readonly realtime: Realtime,
  ) {}

  /**
   * Turns a payload into posts, committed together, following the webhook rules (docs/webhook-rules.md). Resolves
   * with the ids of the posts only after the commit. The hook, its creator and the target channel come from a cache;
   * the write transaction re-checks them in one query and retries once from the database when anything changed
   * underneath. With an Idempotency-Key, a repeat within 24 hours (also after a restart, on another process) gets the
   * first request's post ids and posts nothing.
   */
  async execute(hookId: string, payload: WebhookPayload, idempotencyKey?: string): Promise<string[]> {
    if (!this.deps.config.get().ServiceSettings.EnableIncomingWebhooks) throw disabled('web.incoming_webhook.disabled.app_error');
    // Keys are exactly 26 lower-case letters and digits. Anything else is no key, also where the database would
    // compare case-insensitively (MySQL collations): the secret is matched byte for byte on every database.
    if (!isValidId(hookId)) throw hookNotFound();
    if (idempotencyKey === undefined) return this.post(hookId, payload);
    const keyHash = idempotencyKeyHash(idempotencyKey);
    // Requests with one key run one at a time in this process: a repeat waits for the first and replays its answer.
    return this.sameKey.run(`${hookId}|${keyHash}`, async () => {
      // A deleted or unknown hook answers 404 even to a key it once answered.
      if (!(await this.cache.hook(hookId, false))) throw hookNotFound();
      const expiredBefore = this.deps.now() - WEBHOOK_IDEMPOTENCY.ttlMs;
      const seen = await this.deps.stores.webhooks.idempotentAnswer(hookId, keyHash, expiredBefore);
      if (seen) return seen;
      try {
        return await this.post(hookId, payload, { hookId, keyHash, expiredBefore });
      } catch (err) {
        // Another process claimed the key first (its posts committed with it): its answer is this one's.
        if (isDatabaseError(err, 'duplicate')) {
          const winner = await this.deps.stores.webhooks.idempotentAnswer(hookId, keyHash, expiredBefore);
          if (winner) return winner;
        }
        throw err;
      }
    });
  }

  /**
   * Whether a hook with this key exists: asked before a request's body is read, so an unknown key costs one indexed
   * read and no decoding. A cached hook answers at once (no promise); a missing one is never cached (made-up keys
   * must not push real hooks out). A stale entry (a hook deleted on another process; this one's deletions drop it at
   * once) lets bodies through only until the next post through it finds the hook gone and drops it.
   */
  hookExists(hookId: string): boolean | Promise<boolean> {
    if (!isValidId(hookId)) return false;
    if (this.cache.cachedHook(hookId)) return true;
    return this.cache.hook(hookId, false).then((hook) => hook !== undefined);
  }

  /** Forgets Idempotency-Key answers past their 24 hours (run periodically: see App.startMaintenance). */
  async purgeExpiredKeys(): Promise<number> {
    return this.deps.stores.webhooks.purgeIdempotency(this.deps.now() - WEBHOOK_IDEMPOTENCY.ttlMs);
  }

  /** Validates and writes a payload's posts; resolves with their ids once they are committed. */
  private async post(hookId: string, payload: WebhookPayload, idempotency?: PostCommit['idempotency']): Promise<string[]> {
    // The payload's own rules first (post-rules.ts), before anything is read.
    const attachments = parseAttachments(payload.attachments, 'webhook');
    if (attachments instanceof AppError) throw attachments;
    const text = payload.text ?? '';
    must(emptyPayloadError(text, attachments));
    must(typeError(payload.type ?? '', 'webhook'));
    must(webhookPriorityError(payload.priority));
    for (let attempt = 0; ; attempt++) {
      const fresh = attempt > 0;
      const resolved = await this.resolve(hookId, payload.channel ?? '', fresh);
      const posts = await this.buildPosts('webhook', resolved, payload, text, attachments);
      // Through the group commit: concurrent webhook posts share one transaction, and this resolves only after it
      // committed. The freshness check runs inside that transaction, once per hook, channel and creator.
      const commit: PostCommit = {
        channel: resolved.channel,
        posts,
        allowSelfMention: true,
        markViewed: false,
        precondition: (tx, memo) => this.stillCurrent(tx, memo, resolved),
        idempotency,
        // Clicks on the posts' buttons are signed with the hook's signing secret.
        origin: { kind: 'incoming_webhook', id: resolved.hook.id },
      };
      if (await this.writer.submit(commit)) {
        // Published, not awaited: the hook's `ok` does not wait for delivery.
        const override = posts[0].props.override_username;
        this.realtime.posted(posts, {
          channel: resolved.channel,
          senderName: typeof override === 'string' ? override : `@${resolved.creator.username}`,
          setOnline: false,
          mentioned: commit.mentioned,
          followers: commit.followers,
        });
        return posts.map((p) => p.id);
      }
      this.cache.forgetHook(hookId);
      // The second pass reads everything from the database, so a failing check now reports the real cause.
      if (fresh) throw AppError.notFound('web.incoming_webhook.invalid.app_error', 'Invalid webhook.');
    }
  }

  /** Whether what `resolve` found (possibly cached) still holds in the database, read inside the write transaction. */
  private async stillCurrent(tx: TxStores, memo: Map<string, Promise<unknown>>, resolved: Resolved): Promise<boolean> {
    const key = `webhook-probe/${resolved.hook.id}/${resolved.channel.id}/${resolved.creator.id}`;
    let probe = memo.get(key) as Promise<HookProbe | undefined> | undefined;
    if (!probe) {
      probe = tx.webhooks.probe(resolved.hook.id, resolved.channel.id, resolved.creator.id);
      memo.set(key, probe);
    }
    const p = await probe;
    return (
      !!p &&
      p.hookUpdateAt === resolved.hook.update_at &&
      p.channelUpdateAt === resolved.channel.update_at &&
      p.channelDeleteAt === 0 &&
      p.creatorUpdateAt === resolved.creator.update_at &&
      p.creatorDeleteAt === 0 &&
      (resolved.channel.type === 'O' || p.isMember)
    );
  }

  /**
   * The hook, its creator and the channel a payload goes to. Whoever holds a hook's URL (often a third party) learns
   * nothing about the team from the answers: a private channel the creator may not post to answers exactly as a
   * missing name, and a deactivated user as an unknown one; neither message names anything.
   */
  private async resolve(hookId: string, channelName: string, fresh: boolean): Promise<Resolved> {
    const { stores } = this.deps;
    const hook = await this.cache.hook(hookId, fresh);
    if (!hook) throw hookNotFound();
    // First, so that a hook whose creator is gone creates no direct channel on their behalf.
    const creator = await this.cache.user(hook.user_id, fresh);
    if (!creator || creator.delete_at !== 0) throw new AppError('web.incoming_webhook.user.app_error', "Couldn't find the user who owns this webhook.", 403);
    let channel: Channel | undefined;
    const target = channelName.trim();
    if (target.startsWith('@')) {
      // A locked hook may post only to its own channel, and a direct channel never is that channel.
      if (hook.channel_locked) throw lockedError(hook.channel_id);
      // Usernames are lower-case; folding keeps SQLite and MySQL (case-insensitive collation) answering alike.
      const user = await stores.users.getByUsername(target.slice(1).toLowerCase());
      if (!user || user.delete_at !== 0) throw userNotFound();
      channel = await this.channels.getOrCreateDirect(hook.user_id, user.id);
    } else if (target !== '') {
      // Channel names are lower-case; folding the input keeps SQLite (case-sensitive) and MySQL (case-insensitive
      // collation) answering alike.
      const name = (target.startsWith('#') ? target.slice(1) : target).toLowerCase();
      channel = await this.cache.channelByName(hook.team_id, name, fresh);
      // Checked before the lock and the archive: for a channel the creator may not post to, even "this exists" is
      // more than the URL's holder may learn.
      if (!channel || (channel.type !== 'O' && !(await this.cache.isMember(channel.id, creator.id, fresh)))) throw channelNotFound();
    } else {
      channel = await this.cache.channel(hook.channel_id, fresh);
      if (!channel) throw AppError.notFound('app.channel.get.existing.app_error', 'Unable to find the existing channel.');
    }
    if (hook.channel_locked && channel.id !== hook.channel_id) throw lockedError(channel.id);
    must(archivedChannelError(channel, 'webhook'));
    // The hook's own channel (whose creator may have left it since): no name in the message either.
    if (channel.type !== 'O' && !(await this.cache.isMember(channel.id, creator.id, fresh))) {
      throw new AppError('web.incoming_webhook.permissions.app_error', 'Inappropriate channel permissions.', 403);
    }
    return { hook, creator, channel };
  }

  /**
   * Posts an integration's answer (an outgoing webhook's reply) as the hook's creator, by the rules of a payload:
   * Slack conversion, overrides, reserved props, splitting. Never with TriggerWebhooks: an answer fires no hook.
   * `identity.id` is the outgoing webhook's id (the delivery passes the hook itself): the posts' actions are signed
   * with its token. Resolves with the posts' ids once committed.
   */
  async postReply(identity: HookIdentity & { id?: string }, creatorId: string, channelId: string, payload: WebhookPayload): Promise<string[]> {
    const { stores } = this.deps;
    const attachments = parseAttachments(payload.attachments, 'webhook_answer');
    if (attachments instanceof AppError) throw attachments;
    const text = payload.text ?? '';
    if (isEmptyAnswer(text, attachments)) return [];
    must(typeError(payload.type ?? '', 'webhook_answer'));
    const creator = await stores.users.get(creatorId);
    if (!creator || creator.delete_at !== 0) throw new AppError('web.incoming_webhook.user.app_error', "Couldn't find the user who owns this webhook.", 403);
    const channel = await stores.channels.get(channelId);
    if (!channel) throw AppError.notFound('app.channel.get.existing.app_error', 'Unable to find the existing channel.');
    must(archivedChannelError(channel, 'webhook_answer'));
    if (channel.type !== 'O' && !(await stores.channels.getMember(channel.id, creator.id))) {
      throw new AppError('web.incoming_webhook.permissions.app_error', 'Inappropriate channel permissions.', 403);
    }
    const posts = await this.buildPosts('webhook_answer', { hook: identity, creator, channel }, payload, text, attachments);
    // The outgoing webhook (its id): clicks on the reply's buttons are signed with its token.
    const origin = identity.id ? { kind: 'outgoing_webhook' as const, id: identity.id } : undefined;
    const commit: PostCommit = { channel, posts, allowSelfMention: true, markViewed: false, origin };
    if (!(await this.writer.submit(commit))) return [];
    const override = posts[0].props.override_username;
    this.realtime.posted(posts, {
      channel,
      senderName: typeof override === 'string' ? override : `@${creator.username}`,
      setOnline: false,
      mentioned: commit.mentioned,
      followers: commit.followers,
    });
    return posts.map((p) => p.id);
  }

  private async buildPosts(
    path: 'webhook' | 'webhook_answer',
    r: { hook: HookIdentity; creator: UserRecord; channel: Channel },
    payload: WebhookPayload,
    rawText: string,
    rawAttachments: Attachment[],
  ): Promise<Post[]> {
    const { stores, config } = this.deps;
    const settings = config.get().ServiceSettings;
    const ids = referencedUserIds([rawText, ...attachmentTexts(rawAttachments)]);
    const usernames = new Map((await stores.users.getMany(ids)).map((u) => [u.id, u.username] as const));
    const text = convertSlackLinks(convertSlackMentions(rawText, usernames));
    const attachments = rawAttachments.map((a) => convertAttachment(a, usernames));

    const props = withoutReservedProps(payload.props, path);
    props.from_webhook = 'true';
    props.webhook_display_name = r.hook.display_name;
    if (settings.EnablePostUsernameOverride) {
      props.override_username = payload.username || r.hook.username || r.creator.username;
    }
    if (settings.EnablePostIconOverride) {
      const iconUrl = payload.icon_url || r.hook.icon_url;
      if (iconUrl) props.override_icon_url = iconUrl;
      const emoji = (payload.icon_emoji ?? '').replace(/^:|:$/g, '');
      if (emoji) props.override_icon_emoji = emoji;
    }
    const lastProps = attachments.length > 0 ? { ...props, attachments } : props;
    // The props as stored (attachments and the server's own included) are bounded as any post's.
    must(propsSizeError(lastProps, path));
    const type = attachments.length > 0 ? 'slack_attachment' : (payload.type ?? '').trim();
    const rootId = payload.root_id ?? '';
    if (rootId) await this.posts.checkRoot(rootId, r.channel.id);
    if (payload.priority) must(priorityOnReplyError(rootId));
    // A long message is split, never refused (post-rules.ts: messageLengthError).
    const parts = splitByCodePoints(text, POST_LIMITS.messageRunes);
    const now = this.deps.now();
    return parts.map((message, i) =>
      newPost(
        {
          user_id: r.creator.id,
          channel_id: r.channel.id,
          message,
          type,
          root_id: rootId,
          props: i === parts.length - 1 ? lastProps : { ...props },
          // Consecutive create times keep the parts in order on every client and cursor.
          create_at: now + i,
          update_at: now + i,
          metadata: i === 0 && payload.priority ? { priority: { priority: payload.priority.priority ?? '', requested_ack: payload.priority.requested_ack ?? false } } : {},
        },
        now,
      ),
    );
  }
}

function lockedError(channelId: string): AppError {
  return new AppError('web.incoming_webhook.channel_locked.app_error', `This webhook is not permitted to post to the requested channel ${channelId}.`, 403);
}
