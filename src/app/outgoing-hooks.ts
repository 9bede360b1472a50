import { isValidId, newId, sortableId } from '../lib/ids';
import { codePointLength } from '../lib/text';
import { AppError, OUTGOING_DELIVERY, OUTGOING_HOOK_LIMITS, type Channel, type IntegrationDelivery, type OutgoingHookInput, type OutgoingWebhook, type Session } from '../model';
import type { TxStores } from '../store';
import type { QueuedCall } from '../store/outgoing-queue-store';
import { Authz } from './authz';
import type { Deps } from './deps';
import { firstWord, matchHook } from './outgoing-match';
import { isSystemAdmin } from './permissions';
import type { PostCommit } from './post-writer';

const disabled = (status = 501) => new AppError('api.outgoing_webhook.disabled.app_error', 'Outgoing webhooks have been disabled by the system admin.', status);
const hookNotFound = () => AppError.notFound('app.webhooks.get_outgoing.app_error', 'Unable to get the outgoing webhook.');
const channelNotFound = () => AppError.notFound('app.channel.get.existing.app_error', 'Unable to find the existing channel.');
const otherTeam = () => new AppError('api.webhook.create_outgoing.permissions.app_error', 'Invalid permissions to create outgoing webhook.', 403);
const noTriggers = () => AppError.badRequest('api.webhook.create_outgoing.triggers.app_error', 'Either trigger_words or channel_id must be set.');

/** Mattermost's IsValidHTTPURL: an http:// or https:// prefix and a URL that parses. */
function isHttpUrl(url: string): boolean {
  if (!url.startsWith('http://') && !url.startsWith('https://')) return false;
  try {
    return new URL(url).host !== '';
  } catch {
    return false;
  }
}

/** Mattermost's OutgoingWebhook.IsValid (the fields a client sets), with its ids and its quirk for trigger_when. */
function validate(h: OutgoingWebhook): void {
  const invalid = (field: string, message: string) => AppError.badRequest(`model.outgoing_hook.is_valid.${field}.app_error`, message);
  const L = OUTGOING_HOOK_LIMITS;
  if (!isValidId(h.creator_id)) throw invalid('user_id', 'Invalid user id.');
  if (!isValidId(h.team_id)) throw invalid('team_id', 'Invalid team id.');
  if (h.channel_id !== '' && !isValidId(h.channel_id)) throw invalid('channel_id', 'Invalid channel id.');
  if (Buffer.byteLength(h.trigger_words.join(',')) > L.triggerWordsJoined) throw invalid('words', `Trigger words must be ${L.triggerWordsJoined} characters or fewer in all.`);
  if (h.trigger_words.some((w) => w === '')) throw invalid('trigger_words', 'Trigger words must not be empty.');
  if (h.callback_urls.length === 0 || Buffer.byteLength(h.callback_urls.join(',')) > L.callbackUrlsJoined) {
    throw invalid('callback', `At least one callback URL is needed, ${L.callbackUrlsJoined} characters or fewer in all.`);
  }
  if (h.callback_urls.some((u) => !isHttpUrl(u))) throw invalid('url', 'Callback URLs must be valid http or https URLs.');
  if (codePointLength(h.display_name) > L.displayName) throw invalid('display_name', `Display name must be ${L.displayName} characters or fewer.`);
  if (codePointLength(h.description) > L.description) throw invalid('description', `Description must be ${L.description} characters or fewer.`);
  if (codePointLength(h.content_type) > L.contentType) throw invalid('content_type', `Content type must be ${L.contentType} characters or fewer.`);
  // Mattermost reports a bad trigger_when under the content_type id.
  if (h.trigger_when !== 0 && h.trigger_when !== 1) throw invalid('content_type', 'trigger_when must be 0 or 1.');
  if (codePointLength(h.username) > L.username) throw AppError.badRequest('model.outgoing_hook.username.app_error', `Username must be ${L.username} characters or fewer.`);
  if (codePointLength(h.icon_url) > L.iconUrl) throw AppError.badRequest('model.outgoing_hook.icon_url.app_error', `Icon URL must be ${L.iconUrl} characters or fewer.`);
}

/** Another hook of the team on the same channel sharing a callback URL and a trigger word: Mattermost refuses both. */
function overlaps(a: OutgoingWebhook, b: OutgoingWebhook): boolean {
  return a.id !== b.id && a.channel_id === b.channel_id && a.callback_urls.some((u) => b.callback_urls.includes(u)) && a.trigger_words.some((w) => b.trigger_words.includes(w));
}

/**
 * Outgoing webhooks: management (the /api/v4/hooks/outgoing operations, the delivery log) and, inside each post
 * commit, queueing the calls a post makes. The calls themselves are made by OutgoingDelivery.
 */
export class OutgoingHooksService {
  private readonly authz: Authz;
  /** Told when calls were queued outside a post commit (a redelivery): wakes the delivery worker. */
  onQueued?: () => void;

  constructor(private readonly deps: Deps) {
    this.authz = new Authz(deps);
  }

  private enabled(): boolean {
    return this.deps.config.get().ServiceSettings.EnableOutgoingWebhooks;
  }

  private requireEnabled(): void {
    if (!this.enabled()) throw disabled();
  }

  /**
   * Mattermost's checks to see or change a hook (manage_own on its team, manage_others for someone else's), and
   * Parley's for a hook bound to a private channel: only members of that channel (and system admins) manage it.
   */
  private async requireManage(session: Session, hook: Pick<OutgoingWebhook, 'team_id' | 'creator_id' | 'channel_id'>): Promise<void> {
    await this.authz.requireTeam(session, hook.team_id, 'manage_own_outgoing_webhooks');
    if (hook.creator_id !== session.userId) await this.authz.requireTeam(session, hook.team_id, 'manage_others_outgoing_webhooks');
    if (hook.channel_id === '') return;
    const channel = await this.deps.stores.channels.get(hook.channel_id);
    if (channel && channel.type !== 'O') await this.authz.requireChannel(session, channel, 'read_channel');
  }

  /**
   * The channel a hook is bound to, checked: it exists, is in the hook's team, and is public, or (Parley's) private
   * with both the caller and the hook's creator members of it. `notOpenId` is the id Mattermost answers a channel
   * that is not public with (create and update differ).
   */
  private async bindableChannel(session: Session, channelId: string, teamId: string, creatorId: string, notOpenId: string): Promise<Channel> {
    const { stores } = this.deps;
    if (!isValidId(channelId)) throw AppError.badRequest('model.outgoing_hook.is_valid.channel_id.app_error', 'Invalid channel id.');
    const channel = await stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    const notOpen = () => new AppError(notOpenId, 'Outgoing webhooks can only be bound to public channels, or to private channels their creator is a member of.', 403);
    if (channel.type === 'P') {
      if (!(await this.authz.channel(session, channel, 'read_channel'))) throw notOpen();
      if (!(await stores.channels.getMember(channel.id, creatorId))) throw notOpen();
    } else if (channel.type !== 'O') {
      throw notOpen();
    }
    if (channel.team_id !== teamId) throw otherTeam();
    return channel;
  }

  private async refuseOverlap(hook: OutgoingWebhook, id: string, status: number): Promise<void> {
    const siblings = await this.deps.stores.outgoingHooks.liveForChannel(hook.team_id, hook.channel_id);
    if (siblings.some((s) => overlaps(hook, s))) {
      throw new AppError(id, 'Another outgoing webhook on this channel already sends one of these trigger words to one of these URLs.', status);
    }
  }

  async create(input: OutgoingHookInput, session: Session): Promise<OutgoingWebhook> {
    const { stores } = this.deps;
    const teamId = input.team_id ?? '';
    await this.authz.requireTeam(session, teamId, 'manage_own_outgoing_webhooks');
    const creatorId = input.creator_id || session.userId;
    if (creatorId !== session.userId) {
      await this.authz.requireTeam(session, teamId, 'manage_others_outgoing_webhooks');
      const creator = isValidId(creatorId) ? await stores.users.get(creatorId) : undefined;
      if (!creator || creator.delete_at !== 0) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
    }
    this.requireEnabled();
    const channelId = input.channel_id ?? '';
    const words = input.trigger_words ?? [];
    // Mattermost answers a channel that is not public with the "disabled" id here (and the not_open one on update).
    if (channelId !== '') await this.bindableChannel(session, channelId, teamId, creatorId, 'api.outgoing_webhook.disabled.app_error');
    else if (words.length === 0) throw noTriggers();
    const now = this.deps.now();
    const hook: OutgoingWebhook = {
      id: newId(),
      token: newId(),
      create_at: now,
      update_at: now,
      delete_at: 0,
      creator_id: creatorId,
      channel_id: channelId,
      team_id: teamId,
      trigger_words: words,
      // Checked by validate (Mattermost reports a bad one under the content_type id).
      trigger_when: (input.trigger_when ?? 0) as OutgoingWebhook['trigger_when'],
      callback_urls: input.callback_urls ?? [],
      display_name: input.display_name ?? '',
      description: input.description ?? '',
      content_type: input.content_type ?? '',
      username: input.username ?? '',
      icon_url: input.icon_url ?? '',
    };
    validate(hook);
    // Mattermost answers this with 500; a client's overlapping hook is bad input, so 400 with Mattermost's id.
    await this.refuseOverlap(hook, 'api.webhook.create_outgoing.intersect.app_error', 400);
    await stores.outgoingHooks.insert(hook);
    return hook;
  }

  async list(opts: { teamId?: string; channelId?: string; page: number; perPage: number }, session: Session): Promise<OutgoingWebhook[]> {
    let creatorId: string | undefined = session.userId;
    if (opts.channelId) {
      const channel = isValidId(opts.channelId) ? await this.deps.stores.channels.get(opts.channelId) : undefined;
      if (!channel || !(await this.authz.channel(session, channel, 'manage_own_outgoing_webhooks'))) throw AppError.forbidden('manage_own_outgoing_webhooks');
      if (await this.authz.channel(session, channel, 'manage_others_outgoing_webhooks')) creatorId = undefined;
    } else if (opts.teamId) {
      await this.authz.requireTeam(session, opts.teamId, 'manage_own_outgoing_webhooks');
      if (await this.authz.team(session, opts.teamId, 'manage_others_outgoing_webhooks')) creatorId = undefined;
    } else {
      this.authz.requireSystem(session, 'manage_own_outgoing_webhooks');
      if (this.authz.system(session, 'manage_others_outgoing_webhooks')) creatorId = undefined;
    }
    this.requireEnabled();
    const filter = {
      channelId: opts.channelId || undefined,
      teamId: opts.channelId ? undefined : opts.teamId || undefined,
      creatorId,
      // A hook on a private channel (its token, its URLs) is shown only to the channel's members.
      viewerId: isSystemAdmin(session.roles) ? undefined : session.userId,
    };
    return this.deps.stores.outgoingHooks.list(filter, opts.page, opts.perPage);
  }

  /** Get, update, delete and the rest start with Mattermost's app-layer lookup: 501 when disabled, before 404 and 403. */
  private async loadManaged(hookId: string, session: Session): Promise<OutgoingWebhook> {
    this.requireEnabled();
    const hook = await this.deps.stores.outgoingHooks.get(hookId);
    if (!hook) throw hookNotFound();
    await this.requireManage(session, hook);
    return hook;
  }

  async get(hookId: string, session: Session): Promise<OutgoingWebhook> {
    return this.loadManaged(hookId, session);
  }

  async update(hookId: string, input: OutgoingHookInput, session: Session): Promise<OutgoingWebhook> {
    if (input.id !== hookId) throw AppError.invalidParam('hook_id');
    this.requireEnabled();
    const hook = await this.deps.stores.outgoingHooks.get(hookId);
    if (!hook) throw hookNotFound();
    if (input.team_id && input.team_id !== hook.team_id) {
      throw AppError.badRequest('api.webhook.team_mismatch.app_error', 'Unable to update webhook across teams.');
    }
    await this.requireManage(session, hook);
    const channelId = input.channel_id ?? hook.channel_id;
    const words = input.trigger_words ?? hook.trigger_words;
    if (channelId !== '') await this.bindableChannel(session, channelId, hook.team_id, hook.creator_id, 'api.webhook.create_outgoing.not_open.app_error');
    // Mattermost answers this with 500; it is the client's mistake, so 400 with Mattermost's id.
    else if (words.length === 0) throw noTriggers();
    const updated: OutgoingWebhook = {
      ...hook,
      channel_id: channelId,
      trigger_words: words,
      trigger_when: (input.trigger_when ?? hook.trigger_when) as OutgoingWebhook['trigger_when'],
      callback_urls: input.callback_urls ?? hook.callback_urls,
      display_name: input.display_name ?? hook.display_name,
      description: input.description ?? hook.description,
      content_type: input.content_type ?? hook.content_type,
      username: input.username ?? hook.username,
      icon_url: input.icon_url ?? hook.icon_url,
      update_at: Math.max(this.deps.now(), hook.update_at + 1),
    };
    validate(updated);
    await this.refuseOverlap(updated, 'api.webhook.update_outgoing.intersect.app_error', 400);
    await this.deps.stores.outgoingHooks.update(updated);
    return updated;
  }

  async regenToken(hookId: string, session: Session): Promise<OutgoingWebhook> {
    const hook = await this.loadManaged(hookId, session);
    const updated = { ...hook, token: newId(), update_at: Math.max(this.deps.now(), hook.update_at + 1) };
    await this.deps.stores.outgoingHooks.update(updated);
    return updated;
  }

  async delete(hookId: string, session: Session): Promise<void> {
    await this.loadManaged(hookId, session);
    await this.deps.stores.outgoingHooks.softDelete(hookId, this.deps.now());
  }

  /** The hook's last attempts, newest first (Parley's delivery log). */
  async deliveries(hookId: string, session: Session): Promise<IntegrationDelivery[]> {
    await this.loadManaged(hookId, session);
    return this.deps.stores.deliveries.recent(hookId, OUTGOING_DELIVERY.logSize);
  }

  /** Queues an attempt's call again, as a new call of the same post. */
  async redeliver(hookId: string, deliveryId: string, session: Session): Promise<void> {
    const { stores } = this.deps;
    const hook = await this.loadManaged(hookId, session);
    const delivery = await stores.deliveries.get(deliveryId);
    if (!delivery || delivery.integration_id !== hook.id || delivery.kind !== 'outgoing_webhook') {
      throw AppError.notFound('app.webhooks.get_delivery.app_error', 'Unable to find that delivery of this webhook.');
    }
    const post = await stores.posts.get(delivery.post_id);
    const channel = post && post.delete_at === 0 ? await stores.channels.get(post.channel_id) : undefined;
    if (!post || !channel) throw AppError.notFound('app.post.get.app_error', 'Unable to get the post.');
    const urls = hook.callback_urls.includes(delivery.callback_url) ? [delivery.callback_url] : hook.callback_urls;
    const triggerWord = matchHook(hook, channel, firstWord(post.message))?.triggerWord ?? '';
    const now = this.deps.now();
    await stores.outgoingQueue.insertMany(urls.map((url) => queued(hook.id, post.id, url, triggerWord, now)));
    this.onQueued?.();
  }

  /**
   * Inside a post commit's transaction: the calls its posts make, queued with them. One indexed read of the teams'
   * live hooks per transaction, and only for posts in public and private channels; nothing when the feature is off.
   */
  async queueCalls(tx: TxStores, commits: PostCommit[]): Promise<void> {
    if (!this.enabled()) return;
    const candidates = commits.filter((c) => (c.channel.type === 'O' || c.channel.type === 'P') && c.channel.team_id !== '');
    if (candidates.length === 0) return;
    const hooks = await tx.outgoingHooks.liveForTeams([...new Set(candidates.map((c) => c.channel.team_id))]);
    if (hooks.length === 0) return;
    const now = this.deps.now();
    const calls: QueuedCall[] = [];
    for (const c of candidates) {
      const before = calls.length;
      const teamHooks = hooks.filter((h) => h.team_id === c.channel.team_id);
      for (const post of c.posts) {
        const word = firstWord(post.message);
        for (const hook of teamHooks) {
          const match = matchHook(hook, c.channel, word);
          if (match) for (const url of hook.callback_urls) calls.push(queued(hook.id, post.id, url, match.triggerWord, now));
        }
      }
      if (calls.length > before) c.outgoingQueued = true;
    }
    if (calls.length > 0) await tx.outgoingQueue.insertMany(calls);
  }
}

function queued(hookId: string, postId: string, url: string, triggerWord: string, now: number): QueuedCall {
  return { id: sortableId(now), hook_id: hookId, post_id: postId, callback_url: url, trigger_word: triggerWord, attempt: 0, due_at: now, create_at: now };
}
