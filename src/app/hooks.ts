import { newId, isValidId } from '../lib/ids';
import { AppError, HOOK_LIMITS, type Channel, type HookInput, type HookUpdate, type IncomingWebhook, type Session } from '../model';
import { Authz } from './authz';
import type { Deps } from './deps';
import { isValidUsername } from './rules';
import type { WebhookCache } from './webhook-cache';

const disabled = (id: string) => AppError.notImplemented(id, 'Incoming webhooks have been disabled by the system admin.');

function byteLength(s: string | undefined): number {
  return s === undefined ? 0 : Buffer.byteLength(s);
}

function validateHookFields(h: HookInput): void {
  const bad = (field: string, message: string) => AppError.badRequest(`model.incoming_hook.${field}.app_error`, message);
  if (byteLength(h.display_name) > HOOK_LIMITS.displayNameBytes) throw bad('display_name', `Invalid display name: at most ${HOOK_LIMITS.displayNameBytes} bytes.`);
  if (byteLength(h.description) > HOOK_LIMITS.descriptionBytes) throw bad('description', `Invalid description: at most ${HOOK_LIMITS.descriptionBytes} bytes.`);
  if (byteLength(h.icon_url) > HOOK_LIMITS.iconUrlBytes) throw bad('icon_url', `Invalid icon URL: at most ${HOOK_LIMITS.iconUrlBytes} bytes.`);
  if (h.username && (byteLength(h.username) > HOOK_LIMITS.username || !isValidUsername(h.username))) {
    throw AppError.badRequest('api.incoming_webhook.invalid_username.app_error', 'Invalid username.');
  }
}

/** Incoming webhook management (the /api/v4/hooks/incoming operations); executing a hook is in hook-execution.ts. */
export class HooksService {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    /** Updates and deletions drop the hook from the execution path's cache at once (other processes re-check it). */
    private readonly cache: WebhookCache,
  ) {
    this.authz = new Authz(deps);
  }

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
      // Signs the calls of interactive actions on the hook's posts (post-actions.ts); its own secret, not the URL key.
      signing_secret: newId(),
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

  async update(hookId: string, input: HookUpdate, session: Session): Promise<IncomingWebhook> {
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

  /** RegenIncomingHookSigningSecret: a new signing secret at once (the old one signs nothing more). */
  async regenSigningSecret(hookId: string, session: Session): Promise<IncomingWebhook> {
    const { hook } = await this.loadManaged(hookId, session);
    const updated: IncomingWebhook = { ...hook, signing_secret: newId(), update_at: Math.max(this.deps.now(), hook.update_at + 1) };
    await this.deps.stores.webhooks.update(updated);
    this.cache.forgetHook(hookId);
    return updated;
  }

  async delete(hookId: string, session: Session): Promise<void> {
    await this.loadManaged(hookId, session);
    await this.deps.stores.webhooks.softDelete(hookId, this.deps.now());
    this.cache.forgetHook(hookId);
  }
}
