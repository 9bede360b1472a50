import { isValidId, newId } from '../lib/ids';
import { codePointLength, splitByCodePoints } from '../lib/text';
import { Authz } from './authz';
import type { ChannelsService } from './channels';
import type { Deps } from './deps';
import { AppError } from './errors';
import type { Channel, IncomingWebhook, Post, Session, UserRecord } from './model';
import { PostsService } from './posts';
import { newPost } from './records';
import { MAX_POST_RUNES, MAX_POST_TYPE_LENGTH, MAX_USER_PROPS_RUNES, isValidUsername } from './rules';
import {
  Attachment,
  AttachmentError,
  attachmentTexts,
  convertAttachment,
  convertSlackLinks,
  convertSlackMentions,
  normaliseAttachments,
  referencedUserIds,
} from './slack';
import { WebhookCache } from './webhook-cache';
import type { Stores } from '../store';
import type { HookProbe } from '../store/webhooks-store';

/** The decoded payload of POST /hooks/{hook_id}, after schema validation. */
export interface WebhookPayload {
  text?: string;
  channel?: string;
  username?: string;
  icon_url?: string;
  icon_emoji?: string;
  attachments?: unknown[] | null;
  type?: string;
  props?: Record<string, unknown> | null;
  root_id?: string;
  priority?: { priority?: string | null; requested_ack?: boolean; persistent_notifications?: boolean } | null;
}

export interface HookInput {
  channel_id?: string;
  user_id?: string;
  display_name?: string;
  description?: string;
  username?: string;
  icon_url?: string;
  channel_locked?: boolean;
}

// Props a payload may never set: the server owns them (anti-phishing: the BOT marker and the name shown).
export const RESERVED_PROPS = ['from_webhook', 'override_username', 'override_icon_url', 'override_icon_emoji', 'webhook_display_name', 'attachments'] as const;

const hookNotFound = () => AppError.notFound('web.incoming_webhook.invalid.app_error', 'Invalid webhook.');
const disabled = (id: string) => AppError.notImplemented(id, 'Incoming webhooks have been disabled by the system admin.');

function byteLength(s: string | undefined): number {
  return s === undefined ? 0 : Buffer.byteLength(s);
}

function validateHookFields(h: HookInput): void {
  const bad = (field: string, message: string) => AppError.badRequest(`model.incoming_hook.${field}.app_error`, message);
  if (byteLength(h.display_name) > 64) throw bad('display_name', 'Invalid display name: at most 64 bytes.');
  if (byteLength(h.description) > 500) throw bad('description', 'Invalid description: at most 500 bytes.');
  if (byteLength(h.icon_url) > 1024) throw bad('icon_url', 'Invalid icon URL: at most 1024 bytes.');
  if (h.username && (byteLength(h.username) > 64 || !isValidUsername(h.username))) {
    throw AppError.badRequest('api.incoming_webhook.invalid_username.app_error', 'Invalid username.');
  }
}

/** What a webhook post resolved to before it is written: the cached parts the write transaction re-checks. */
interface Resolved {
  hook: IncomingWebhook;
  creator: UserRecord;
  channel: Channel;
}

export class WebhooksService {
  private readonly authz: Authz;
  readonly cache: WebhookCache;

  constructor(
    private readonly deps: Deps,
    private readonly channels: ChannelsService,
    private readonly posts: PostsService,
  ) {
    this.authz = new Authz(deps);
    this.cache = new WebhookCache(deps.stores);
  }

  // ---- management -------------------------------------------------------------------------------------------

  private requireEnabled(): void {
    if (!this.deps.config.get().ServiceSettings.EnableIncomingWebhooks) throw disabled('api.incoming_webhook.disabled.app_error');
  }

  /** The checks Mattermost makes to see or change a hook: team permission, channel access, ownership. */
  private async requireManage(session: Session, teamId: string, channel: Channel, ownerId: string): Promise<void> {
    await this.authz.requireTeam(session, teamId, 'manage_own_incoming_webhooks');
    if (channel.type !== 'O') await this.authz.requireChannel(session, channel, 'read_channel');
    if (ownerId !== session.userId) await this.authz.requireTeam(session, teamId, 'manage_others_incoming_webhooks');
  }

  private async channelFor(channelId: string | undefined): Promise<Channel> {
    if (!isValidId(channelId)) throw AppError.invalidParam('channel_id');
    const channel = await this.deps.stores.channels.get(channelId);
    if (!channel || channel.delete_at !== 0) throw AppError.notFound('app.channel.get.existing.app_error', 'Unable to find the existing channel.');
    if (channel.type !== 'O' && channel.type !== 'P') throw AppError.invalidParam('channel_id');
    return channel;
  }

  async create(input: HookInput, session: Session): Promise<IncomingWebhook> {
    const { stores, config } = this.deps;
    const channel = await this.channelFor(input.channel_id);
    const ownerId = input.user_id || session.userId;
    await this.requireManage(session, channel.team_id, channel, ownerId);
    if (ownerId !== session.userId) {
      const owner = await stores.users.get(ownerId);
      if (!owner || owner.delete_at !== 0) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
    }
    this.requireEnabled();
    validateHookFields(input);
    const settings = config.get().ServiceSettings;
    const now = this.deps.now();
    const hook: IncomingWebhook = {
      id: newId(),
      create_at: now,
      update_at: now,
      delete_at: 0,
      user_id: ownerId,
      channel_id: channel.id,
      team_id: channel.team_id,
      display_name: input.display_name ?? '',
      description: input.description ?? '',
      // As in Mattermost, overrides the server does not allow are not stored at all.
      username: settings.EnablePostUsernameOverride ? (input.username ?? '') : '',
      icon_url: settings.EnablePostIconOverride ? (input.icon_url ?? '') : '',
      channel_locked: input.channel_locked ?? false,
    };
    await stores.webhooks.insert(hook);
    return hook;
  }

  async list(opts: { teamId?: string; page: number; perPage: number; includeTotal: boolean }, session: Session) {
    const { stores } = this.deps;
    let userId: string | undefined;
    if (opts.teamId) {
      await this.authz.requireTeam(session, opts.teamId, 'manage_own_incoming_webhooks');
      if (!(await this.authz.team(session, opts.teamId, 'manage_others_incoming_webhooks'))) userId = session.userId;
    } else {
      this.authz.requireSystem(session, 'manage_own_incoming_webhooks');
      if (!this.authz.system(session, 'manage_others_incoming_webhooks')) userId = session.userId;
    }
    // As in Mattermost, the app-layer listing is refused when the feature is off (after the permission checks).
    this.requireEnabled();
    const hooks = await stores.webhooks.list({ teamId: opts.teamId, userId, page: opts.page, perPage: opts.perPage });
    if (!opts.includeTotal) return hooks;
    return { incoming_webhooks: hooks, total_count: await stores.webhooks.count({ teamId: opts.teamId, userId }) };
  }

  /** Get, update and delete start with Mattermost's app-layer lookup: 501 when disabled, before 404 and 403. */
  private async loadManaged(hookId: string, session: Session): Promise<{ hook: IncomingWebhook; channel: Channel }> {
    this.requireEnabled();
    const hook = await this.deps.stores.webhooks.get(hookId);
    if (!hook) throw AppError.notFound('app.webhooks.get_incoming.app_error', 'Unable to get the webhook.');
    const channel = await this.deps.stores.channels.get(hook.channel_id);
    if (!channel) throw AppError.notFound('app.channel.get.existing.app_error', 'Unable to find the existing channel.');
    await this.requireManage(session, hook.team_id, channel, hook.user_id);
    return { hook, channel };
  }

  async get(hookId: string, session: Session): Promise<IncomingWebhook> {
    return (await this.loadManaged(hookId, session)).hook;
  }

  async update(hookId: string, input: HookInput & { id?: string; team_id?: string }, session: Session): Promise<IncomingWebhook> {
    if (input.id !== undefined && input.id !== hookId) throw AppError.invalidParam('hook_id');
    const { hook } = await this.loadManaged(hookId, session);
    if (input.team_id && input.team_id !== hook.team_id) {
      throw AppError.badRequest('api.webhook.team_mismatch.app_error', 'Unable to update webhook across teams.');
    }
    const channel = await this.channelFor(input.channel_id ?? hook.channel_id);
    if (channel.team_id !== hook.team_id) throw AppError.invalidParam('channel_id');
    await this.requireManage(session, hook.team_id, channel, hook.user_id);
    validateHookFields(input);
    const settings = this.deps.config.get().ServiceSettings;
    const updated: IncomingWebhook = {
      ...hook,
      channel_id: channel.id,
      display_name: input.display_name ?? hook.display_name,
      description: input.description ?? hook.description,
      username: settings.EnablePostUsernameOverride ? (input.username ?? hook.username) : hook.username,
      icon_url: settings.EnablePostIconOverride ? (input.icon_url ?? hook.icon_url) : hook.icon_url,
      channel_locked: input.channel_locked ?? hook.channel_locked,
      update_at: Math.max(this.deps.now(), hook.update_at + 1),
    };
    await this.deps.stores.webhooks.update(updated);
    this.cache.forgetHook(hookId);
    return updated;
  }

  async delete(hookId: string, session: Session): Promise<void> {
    await this.loadManaged(hookId, session);
    await this.deps.stores.webhooks.softDelete(hookId, this.deps.now());
    this.cache.forgetHook(hookId);
  }

  // ---- execution: POST /hooks/{hook_id} ---------------------------------------------------------------------

  /**
   * Turns a payload into posts, committed together, following PRODUCT.md's webhook rules. Resolves "ok" only after
   * the commit. The hook, its creator and the target channel come from a cache; the write transaction re-checks
   * them in one query and retries once from the database when anything changed underneath.
   */
  async execute(hookId: string, payload: WebhookPayload): Promise<void> {
    if (!this.deps.config.get().ServiceSettings.EnableIncomingWebhooks) throw disabled('web.incoming_webhook.disabled.app_error');
    // Keys are exactly 26 lower-case letters and digits. Anything else is no key, also where the database would
    // compare case-insensitively (MySQL collations): the secret is matched byte for byte on every database.
    if (!isValidId(hookId)) throw hookNotFound();
    let attachments: Attachment[];
    try {
      attachments = normaliseAttachments(payload.attachments);
    } catch (err) {
      if (err instanceof AttachmentError) throw AppError.badRequest('web.incoming_webhook.parse.app_error', 'Unable to parse incoming data.', err.message);
      throw err;
    }
    const text = payload.text ?? '';
    if (text === '' && attachments.length === 0) throw AppError.badRequest('web.incoming_webhook.text.app_error', 'No text specified.');
    const type = payload.type ?? '';
    if (type.trim() !== '' && !type.startsWith('custom_')) {
      throw AppError.badRequest('api.context.invalid_param.app_error', 'Invalid or missing post.type parameter in request body or URL. The post type must be blank or start with "custom_".');
    }
    if (type.length > MAX_POST_TYPE_LENGTH) {
      throw AppError.badRequest('api.context.invalid_param.app_error', `Invalid post.type parameter: at most ${MAX_POST_TYPE_LENGTH} characters.`);
    }
    if (payload.priority && (payload.priority.priority === null || payload.priority.priority === undefined)) throw AppError.invalidParam('webhook.priority.priority');
    for (let attempt = 0; ; attempt++) {
      const fresh = attempt > 0;
      const resolved = await this.resolve(hookId, payload.channel ?? '', fresh);
      const posts = await this.buildPosts(resolved, payload, text, attachments);
      // Through the group commit: concurrent webhook posts share one transaction, and this resolves only after it
      // committed. The freshness check runs inside that transaction, once per hook, channel and creator.
      const committed = await this.posts.submit({
        channel: resolved.channel,
        posts,
        allowSelfMention: true,
        markViewed: false,
        precondition: (tx, memo) => this.stillCurrent(tx, memo, resolved),
      });
      if (committed) return;
      this.cache.forgetHook(hookId);
      // The second pass reads everything from the database, so a failing check now reports the real cause.
      if (fresh) throw AppError.notFound('web.incoming_webhook.invalid.app_error', 'Invalid webhook.');
    }
  }

  /** Whether what `resolve` found (possibly cached) still holds in the database, read inside the write transaction. */
  private async stillCurrent(tx: Stores, memo: Map<string, Promise<unknown>>, resolved: Resolved): Promise<boolean> {
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

  private async resolve(hookId: string, channelName: string, fresh: boolean): Promise<Resolved> {
    const { stores } = this.deps;
    const hook = await this.cache.hook(hookId, fresh);
    if (!hook) throw hookNotFound();
    let channel: Channel | undefined;
    const target = channelName.trim();
    if (target.startsWith('@')) {
      // A locked hook may post only to its own channel, and a direct channel never is that channel.
      if (hook.channel_locked) throw lockedError(hook.channel_id);
      const user = await stores.users.getByUsername(target.slice(1));
      if (!user || user.delete_at !== 0) {
        throw AppError.notFound('web.incoming_webhook.user.app_error', `Couldn't find the user ${target.slice(1)}.`);
      }
      channel = await this.channels.getOrCreateDirect(hook.user_id, user.id);
    } else if (target !== '') {
      // Channel names are lower-case; folding the input keeps SQLite (case-sensitive) and MySQL (case-insensitive
      // collation) answering alike.
      const name = (target.startsWith('#') ? target.slice(1) : target).toLowerCase();
      channel = await this.cache.channelByName(hook.team_id, name, fresh);
      if (!channel) throw AppError.notFound('web.incoming_webhook.channel.app_error', "Couldn't find the channel.");
    } else {
      channel = await this.cache.channel(hook.channel_id, fresh);
      if (!channel) throw AppError.notFound('app.channel.get.existing.app_error', 'Unable to find the existing channel.');
    }
    if (hook.channel_locked && channel.id !== hook.channel_id) throw lockedError(channel.id);
    if (channel.delete_at !== 0) {
      throw AppError.badRequest('api.post.create_post.can_not_post_to_deleted.error', 'Can not post to deleted channel.');
    }
    const creator = await this.cache.user(hook.user_id, fresh);
    if (!creator || creator.delete_at !== 0) throw new AppError('web.incoming_webhook.user.app_error', "Couldn't find the user who owns this webhook.", 403);
    if (channel.type !== 'O' && !(await this.cache.isMember(channel.id, creator.id, fresh))) {
      throw new AppError('web.incoming_webhook.permissions.app_error', `User ${creator.username} does not have appropriate permissions to channel ${channel.name}.`, 403);
    }
    return { hook, creator, channel };
  }

  private async buildPosts(r: Resolved, payload: WebhookPayload, rawText: string, rawAttachments: Attachment[]): Promise<Post[]> {
    const { stores, config } = this.deps;
    const settings = config.get().ServiceSettings;
    const ids = referencedUserIds([rawText, ...attachmentTexts(rawAttachments)]);
    const usernames = new Map((await stores.users.getMany(ids)).map((u) => [u.id, u.username] as const));
    const text = convertSlackLinks(convertSlackMentions(rawText, usernames));
    const attachments = rawAttachments.map((a) => convertAttachment(a, usernames));

    const props: Record<string, unknown> = { ...(payload.props ?? {}) };
    for (const key of RESERVED_PROPS) delete props[key];
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
    if (codePointLength(JSON.stringify(lastProps)) > MAX_USER_PROPS_RUNES) {
      throw AppError.badRequest('web.incoming_webhook.split_props_length.app_error', `Unable to split webhook props into ${MAX_USER_PROPS_RUNES} character parts.`);
    }
    const type = attachments.length > 0 ? 'slack_attachment' : (payload.type ?? '').trim();
    const rootId = payload.root_id ?? '';
    if (rootId) await this.posts.checkRoot(rootId, r.channel.id);
    if (payload.priority && rootId) {
      throw AppError.badRequest('api.post.create_post.post_priority.reply_not_allowed', 'Post priority can only be set on root posts.');
    }
    const parts = splitByCodePoints(text, MAX_POST_RUNES);
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
