import { api, call, rest, type Channel } from '../api';
import { errorText } from '../error-text';
import { fieldOfError, type FieldErrors } from '../integrations-errors';
import type { IntegrationSection, IntegrationsView } from '../integrations-routes';
import { appStore } from '../state/app-store';
import type { Bot, Command, IncomingWebhook, IntegrationDelivery, IntegrationsState, OutgoingWebhook, UserAccessToken } from '../state/integrations-state';
import { isSystemAdmin } from '../state/selectors';
import { ensureTeamChannels } from './channels';
import { ensureUsers } from './users';

/**
 * The integrations page's actions: who may see it, loading a team's incoming and outgoing webhooks, slash commands
 * and the bots, creating, changing and deleting them, their tokens and the delivery logs. Every call is one of the
 * published operations (Mattermost's, plus Parley's delivery log and signing secret); the lists in the state are
 * replaced by what the server answers, never guessed.
 */

const PER_PAGE = 200;

function setIntegrations(patch: Partial<IntegrationsState> | ((i: IntegrationsState) => Partial<IntegrationsState>)): void {
  appStore.set((s) => ({ integrations: { ...s.integrations, ...(typeof patch === 'function' ? patch(s.integrations) : patch) } }));
}

/** The outcome of a form: done, or the server's words, beside the field they are about when one is named. */
export type FormResult<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

async function attempt<T>(section: IntegrationSection, job: () => Promise<T>): Promise<FormResult<T>> {
  try {
    return { ok: true, value: await job() };
  } catch (err) {
    const message = errorText(err);
    const id = (err as { id?: string }).id ?? '';
    return { ok: false, errors: { [fieldOfError(section, id, message)]: message } };
  }
}

/** Whether the viewer may manage the team's integrations: system admins, and the team's admins (as Mattermost's defaults). */
export async function ensureIntegrationRights(teamId: string, opts: { refresh?: boolean } = {}): Promise<boolean> {
  const s = appStore.get();
  if (isSystemAdmin(s)) {
    if (s.integrations.canManage[teamId] !== true) setIntegrations((i) => ({ canManage: { ...i.canManage, [teamId]: true } }));
    return true;
  }
  const known = s.integrations.canManage[teamId];
  if (known !== undefined && !opts.refresh) return known;
  let allowed = false;
  try {
    const members = await rest.myTeamMembers();
    const canManage: Record<string, boolean> = {};
    for (const m of members) canManage[m.team_id] = (m.roles ?? '').split(' ').includes('team_admin') || m.scheme_admin === true;
    allowed = canManage[teamId] ?? false;
    setIntegrations((i) => ({ canManage: { ...i.canManage, ...canManage, [teamId]: allowed } }));
  } catch {
    // Unknown: asked again next time.
  }
  return allowed;
}

/** Opens a view of the integrations page: the team's channels for the pickers, and the lists it shows. */
export async function openIntegrations(teamId: string, view: IntegrationsView): Promise<void> {
  if (appStore.get().integrations.teamId !== teamId) {
    setIntegrations({ teamId, incoming: undefined, outgoing: undefined, commands: undefined, errors: {}, deliveries: {} });
  }
  void ensureTeamChannels(teamId).catch(() => undefined);
  if (!(await ensureIntegrationRights(teamId))) return;
  const section = view.page === 'home' ? undefined : view.section;
  if (section) await loadSection(teamId, section);
  if (view.page === 'deliveries') await loadDeliveries(view.section, view.id);
}

/** The channels a hook may name that the page does not hold (someone else's hook in a channel the viewer is not in). */
async function ensureChannels(ids: string[]): Promise<void> {
  const held = appStore.get().channels;
  const missing = [...new Set(ids)].filter((id) => id && !held[id]);
  const found: Channel[] = [];
  await Promise.all(
    missing.map(async (id) => {
      try {
        found.push(await rest.channel(id));
      } catch {
        // Not readable: the list says so.
      }
    }),
  );
  if (found.length) appStore.set((s) => ({ channels: { ...s.channels, ...Object.fromEntries(found.map((c) => [c.id, c])) } }));
}

export async function loadSection(teamId: string, section: IntegrationSection): Promise<void> {
  try {
    if (section === 'incoming_webhooks') {
      const page = await call(api.GET('/api/v4/hooks/incoming', { params: { query: { team_id: teamId, per_page: PER_PAGE } } }));
      const incoming = (Array.isArray(page) ? page : page.incoming_webhooks) as IncomingWebhook[];
      setIntegrations({ incoming });
      void ensureUsers(incoming.map((h) => h.user_id));
      await ensureChannels(incoming.map((h) => h.channel_id));
    } else if (section === 'outgoing_webhooks') {
      const outgoing = await call(api.GET('/api/v4/hooks/outgoing', { params: { query: { team_id: teamId, per_page: PER_PAGE } } }));
      setIntegrations({ outgoing });
      void ensureUsers(outgoing.map((h) => h.creator_id));
      await ensureChannels(outgoing.map((h) => h.channel_id));
    } else if (section === 'commands') {
      const commands = await call(api.GET('/api/v4/commands', { params: { query: { team_id: teamId, custom_only: true } } }));
      setIntegrations({ commands });
      void ensureUsers(commands.map((c) => c.creator_id));
    } else {
      const bots = await call(api.GET('/api/v4/bots', { params: { query: { include_deleted: true, per_page: PER_PAGE } } }));
      setIntegrations({ bots });
      void ensureUsers(bots.map((b) => b.owner_id));
      await Promise.all(bots.map((b) => loadBotTokens(b.user_id)));
    }
    setIntegrations((i) => ({ errors: { ...i.errors, [section]: '' } }));
  } catch (err) {
    setIntegrations((i) => ({ errors: { ...i.errors, [section]: errorText(err) } }));
  }
}

function replaceIn<T>(list: T[] | undefined, item: T, key: (t: T) => string): T[] {
  const rest = (list ?? []).filter((t) => key(t) !== key(item));
  return [...rest, item];
}

// ---------- incoming webhooks ----------

export type IncomingInput = { channel_id: string; display_name: string; description: string; username: string; icon_url: string; channel_locked: boolean };

export function saveIncoming(input: IncomingInput, existing?: IncomingWebhook): Promise<FormResult<IncomingWebhook>> {
  return attempt('incoming_webhooks', async () => {
    const hook = existing
      ? await call(api.PUT('/api/v4/hooks/incoming/{hook_id}', { params: { path: { hook_id: existing.id } }, body: { ...existing, ...input } }))
      : await call(api.POST('/api/v4/hooks/incoming', { body: input }));
    setIntegrations((i) => ({ incoming: replaceIn(i.incoming, hook, (h) => h.id) }));
    return hook;
  });
}

export async function deleteIncoming(hookId: string): Promise<string | undefined> {
  try {
    await call(api.DELETE('/api/v4/hooks/incoming/{hook_id}', { params: { path: { hook_id: hookId } } }));
    setIntegrations((i) => ({ incoming: (i.incoming ?? []).filter((h) => h.id !== hookId) }));
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

/** One hook, read from the server (the confirmation screen after adding, a reload of an edit page). */
export async function loadIncoming(hookId: string): Promise<IncomingWebhook | undefined> {
  try {
    const hook = await call(api.GET('/api/v4/hooks/incoming/{hook_id}', { params: { path: { hook_id: hookId } } }));
    setIntegrations((i) => ({ incoming: replaceIn(i.incoming, hook, (h) => h.id) }));
    return hook;
  } catch {
    return undefined;
  }
}

export async function regenSigningSecret(hookId: string): Promise<string | undefined> {
  try {
    const hook = await call(api.POST('/api/v4/hooks/incoming/{hook_id}/regen_signing_secret', { params: { path: { hook_id: hookId } } }));
    setIntegrations((i) => ({ incoming: replaceIn(i.incoming, hook, (h) => h.id) }));
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

// ---------- outgoing webhooks ----------

export type OutgoingInput = {
  team_id: string;
  channel_id: string;
  display_name: string;
  description: string;
  trigger_words: string[];
  trigger_when: number;
  callback_urls: string[];
  content_type: string;
  username: string;
  icon_url: string;
};

export function saveOutgoing(input: OutgoingInput, existing?: OutgoingWebhook): Promise<FormResult<OutgoingWebhook>> {
  return attempt('outgoing_webhooks', async () => {
    const hook = existing
      ? await call(api.PUT('/api/v4/hooks/outgoing/{hook_id}', { params: { path: { hook_id: existing.id } }, body: { ...existing, ...input } }))
      : // The spec's allOf (the input plus `required: [team_id]`) comes out of openapi-typescript as `& Record<string, never>`.
        await call(api.POST('/api/v4/hooks/outgoing', { body: input as never }));
    setIntegrations((i) => ({ outgoing: replaceIn(i.outgoing, hook, (h) => h.id) }));
    return hook;
  });
}

export async function deleteOutgoing(hookId: string): Promise<string | undefined> {
  try {
    await call(api.DELETE('/api/v4/hooks/outgoing/{hook_id}', { params: { path: { hook_id: hookId } } }));
    setIntegrations((i) => ({ outgoing: (i.outgoing ?? []).filter((h) => h.id !== hookId) }));
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

export async function regenOutgoingToken(hookId: string): Promise<string | undefined> {
  try {
    const hook = await call(api.POST('/api/v4/hooks/outgoing/{hook_id}/regen_token', { params: { path: { hook_id: hookId } } }));
    setIntegrations((i) => ({ outgoing: replaceIn(i.outgoing, hook, (h) => h.id) }));
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

// ---------- slash commands ----------

export type CommandInput = {
  team_id: string;
  display_name: string;
  description: string;
  trigger: string;
  url: string;
  method: 'P' | 'G';
  username: string;
  icon_url: string;
  auto_complete: boolean;
  auto_complete_hint: string;
  auto_complete_desc: string;
};

export function saveCommand(input: CommandInput, existing?: Command): Promise<FormResult<Command>> {
  return attempt('commands', async () => {
    const command = existing
      ? await call(api.PUT('/api/v4/commands/{command_id}', { params: { path: { command_id: existing.id } }, body: { ...existing, ...input } }))
      : await call(api.POST('/api/v4/commands', { body: input }));
    setIntegrations((i) => ({ commands: replaceIn(i.commands, command, (c) => c.id) }));
    return command;
  });
}

export async function deleteCommand(commandId: string): Promise<string | undefined> {
  try {
    await call(api.DELETE('/api/v4/commands/{command_id}', { params: { path: { command_id: commandId } } }));
    setIntegrations((i) => ({ commands: (i.commands ?? []).filter((c) => c.id !== commandId) }));
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

export async function regenCommandToken(commandId: string): Promise<string | undefined> {
  try {
    const { token } = await call(api.PUT('/api/v4/commands/{command_id}/regen_token', { params: { path: { command_id: commandId } } }));
    setIntegrations((i) => ({ commands: (i.commands ?? []).map((c) => (c.id === commandId ? { ...c, token } : c)) }));
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

// ---------- delivery logs ----------

export const deliveryKey = (section: 'outgoing_webhooks' | 'commands', id: string): string => `${section}:${id}`;

export async function loadDeliveries(section: 'outgoing_webhooks' | 'commands', id: string): Promise<string | undefined> {
  try {
    const list: IntegrationDelivery[] =
      section === 'outgoing_webhooks'
        ? await call(api.GET('/api/v4/hooks/outgoing/{hook_id}/deliveries', { params: { path: { hook_id: id } } }))
        : await call(api.GET('/api/v4/commands/{command_id}/deliveries', { params: { path: { command_id: id } } }));
    setIntegrations((i) => ({ deliveries: { ...i.deliveries, [deliveryKey(section, id)]: list } }));
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

export async function redeliver(hookId: string, deliveryId: string): Promise<string | undefined> {
  try {
    await call(api.POST('/api/v4/hooks/outgoing/{hook_id}/deliveries/{delivery_id}/redeliver', { params: { path: { hook_id: hookId, delivery_id: deliveryId } } }));
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

// ---------- bots ----------

export type BotInput = { username: string; display_name: string; description: string };

export function saveBot(input: BotInput, existing?: Bot): Promise<FormResult<Bot>> {
  return attempt('bots', async () => {
    const bot = existing
      ? await call(api.PUT('/api/v4/bots/{bot_user_id}', { params: { path: { bot_user_id: existing.user_id } }, body: input }))
      : await call(api.POST('/api/v4/bots', { body: input }));
    setIntegrations((i) => ({ bots: replaceIn(i.bots, bot, (b) => b.user_id) }));
    return bot;
  });
}

export async function setBotEnabled(botId: string, enabled: boolean): Promise<string | undefined> {
  try {
    const path = { params: { path: { bot_user_id: botId } } };
    const bot = enabled ? await call(api.POST('/api/v4/bots/{bot_user_id}/enable', path)) : await call(api.POST('/api/v4/bots/{bot_user_id}/disable', path));
    setIntegrations((i) => ({ bots: (i.bots ?? []).map((b) => (b.user_id === botId ? bot : b)) }));
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

export async function loadBotTokens(botId: string): Promise<void> {
  try {
    const tokens = await call(api.GET('/api/v4/users/{user_id}/tokens', { params: { path: { user_id: botId }, query: { per_page: PER_PAGE } } }));
    setIntegrations((i) => ({ botTokens: { ...i.botTokens, [botId]: tokens } }));
  } catch {
    // The bot's card says it has no token it can show.
  }
}

/** A new token of the bot: its secret is in the answer only, for the screen to show once. */
export async function createBotToken(botId: string, description: string): Promise<FormResult<UserAccessToken>> {
  return attempt('bots', async () => {
    const token = await call(api.POST('/api/v4/users/{user_id}/tokens', { params: { path: { user_id: botId } }, body: { description } }));
    const { token: secret, ...listed } = token;
    setIntegrations((i) => ({ botTokens: { ...i.botTokens, [botId]: [...(i.botTokens[botId] ?? []), listed] }, newToken: { userId: botId, id: token.id, token: secret ?? '' } }));
    return token;
  });
}

export async function revokeBotToken(botId: string, tokenId: string): Promise<string | undefined> {
  try {
    await call(api.POST('/api/v4/users/tokens/revoke', { body: { token_id: tokenId } }));
    setIntegrations((i) => ({ botTokens: { ...i.botTokens, [botId]: (i.botTokens[botId] ?? []).filter((t) => t.id !== tokenId) } }));
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

/** The new token's secret was seen: it is not kept. */
export function forgetNewToken(): void {
  setIntegrations({ newToken: undefined });
}
