// Running a slash command (ExecuteCommand) and its later replies through the response URL (POST /hooks/commands/{id}),
// as Mattermost's app/command.go: who may run what where, custom commands before built-in ones, the call to a custom
// command's URL, and its answer handled by command-response.ts.
import { isValidId, newId } from '../lib/ids';
import { AppError, COMMAND_LIMITS, type Channel, type Command, type CommandResponse, type Session } from '../model';
import { Authz } from './authz';
import type { BuiltinCommands } from './builtin-commands';
import { callCommand, parseCommandResponse } from './command-call';
import type { CommandPlace, CommandResponder } from './command-response';
import type { Deps } from './deps';
import type { SendOutbound } from './outbound';

export interface ExecuteInput {
  channel_id?: string;
  command?: string;
  team_id?: string;
  root_id?: string;
}

const disabled = () => AppError.notImplemented('api.command.disabled.app_error', 'Commands have been disabled by the system admin.');

/** Mattermost's possibleAtMentions and ChannelMentions patterns: linear (no nested repetition). */
const AT_MENTION = /\B@([a-z0-9][a-z0-9.\-_:]*)/gi;
const CHANNEL_MENTION = /\B~([a-z0-9\-_]+)/gi;

function distinct(matches: IterableIterator<RegExpMatchArray>, max: number): string[] {
  const out = new Set<string>();
  for (const m of matches) {
    out.add(m[1].toLowerCase());
    if (out.size >= max) break;
  }
  return [...out];
}

export class CommandExecution {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly responder: CommandResponder,
    private readonly builtins: BuiltinCommands,
    /** How the call to a custom command's URL is sent (the outbound adapter). */
    private readonly send: SendOutbound,
  ) {
    this.authz = new Authz(deps);
  }

  async execute(input: ExecuteInput, session: Session): Promise<CommandResponse> {
    const { stores } = this.deps;
    const text = input.command ?? '';
    const channelId = input.channel_id ?? '';
    if (text.length <= 1 || !text.startsWith('/') || !isValidId(channelId)) {
      throw AppError.badRequest('api.command.execute_command.start.app_error', 'No command trigger found.');
    }
    const channel = await stores.channels.get(channelId);
    if (!channel || !(await this.authz.channel(session, channel, 'create_post'))) throw AppError.forbidden('create_post');
    if (channel.delete_at !== 0) throw AppError.badRequest('api.command.execute_command.deleted.error', 'Cannot execute commands in an archived channel.');
    let teamId = input.team_id ?? '';
    if (channel.type === 'O' || channel.type === 'P') {
      // A team channel's own team: commands of another team cannot be run against it.
      teamId = channel.team_id;
    } else if (!(teamId && (await this.authz.teamMember(teamId, session.userId))) && !this.authz.system(session, 'create_post')) {
      // In a direct or group channel the client names the team; the caller must belong to it.
      throw AppError.forbidden('create_post');
    }

    const space = text.search(/\s/);
    const trigger = (space === -1 ? text : text.slice(0, space)).toLowerCase().slice(1);
    const message = space === -1 ? '' : text.slice(space + 1);
    const rootId = input.root_id ?? '';
    const place: CommandPlace = { userId: session.userId, channel, rootId };
    const triggerId = newId();

    // Custom commands first (they may override built-in ones), and with commands disabled nothing runs: Mattermost.
    if (!this.deps.config.get().ServiceSettings.EnableCommands) throw disabled();
    const custom = teamId ? (await stores.commands.forTeam(teamId)).find((c) => c.trigger === trigger) : undefined;
    if (custom) {
      const response = await this.runCustom(custom, channel, teamId, session, message, rootId, triggerId);
      await this.responder.handle(trigger, custom, place, response);
      return { ...response, trigger_id: triggerId };
    }
    if (this.builtins.has(trigger)) {
      const response = await this.builtins.run(trigger, { session, channel, teamId, rootId, message });
      await this.responder.handle(trigger, undefined, place, response);
      return response;
    }
    const shown = trigger.length > COMMAND_LIMITS.triggerInError ? `${trigger.slice(0, COMMAND_LIMITS.triggerInError)}...` : trigger;
    throw AppError.notFound('api.command.execute_command.not_found.app_error', `Command with a trigger of '${shown}' not found. To send a message beginning with "/", try adding an empty space at the beginning of the message.`);
  }

  /** Builds Mattermost's fields, makes the response URL, calls the integration. */
  private async runCustom(command: Command, channel: Channel, teamId: string, session: Session, message: string, rootId: string, triggerId: string): Promise<CommandResponse> {
    const { stores, config } = this.deps;
    const team = await stores.teams.get(teamId);
    if (!team) throw AppError.notFound('app.team.get.find.app_error', 'Unable to find the existing team.');
    const user = await stores.users.get(session.userId);
    if (!user) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
    // The configured SiteURL only, never the request's Host (MM-67142): the URL is where the integration posts.
    const siteUrl = config.get().ServiceSettings.SiteURL.replace(/\/+$/, '');
    if (!siteUrl) {
      throw AppError.badRequest('api.command.execute_command.site_url_required.app_error', 'SiteURL must be configured for slash commands that use response_url.');
    }
    const fields: Array<[string, string]> = [
      ['token', command.token],
      ['team_id', command.team_id],
      ['team_domain', team.name],
      ['channel_id', channel.id],
      ['channel_name', channel.name],
      ['user_id', user.id],
      ['user_name', user.username],
      ['command', `/${command.trigger}`],
      ['text', message],
      ['trigger_id', triggerId],
      ['root_id', rootId],
    ];
    for (const [name, id] of await this.userMentions(message, team.id)) fields.push(['user_mentions', name], ['user_mentions_ids', id]);
    for (const [name, id] of await this.channelMentions(message, team.id)) fields.push(['channel_mentions', name], ['channel_mentions_ids', id]);
    const hookId = newId();
    await stores.commands.insertWebhook({ id: hookId, create_at: this.deps.now(), command_id: command.id, user_id: user.id, channel_id: channel.id, root_id: rootId, use_count: 0 });
    fields.push(['response_url', `${siteUrl}/hooks/commands/${hookId}`]);
    return callCommand(this.deps, this.send, command, fields);
  }

  /** The team members @-mentioned in the text (Mattermost's MentionsToTeamMembers, trailing punctuation tried off). */
  private async userMentions(message: string, teamId: string): Promise<Array<[string, string]>> {
    if (!message.includes('@')) return [];
    // Longer than any username (64): not one, and trimming it character by character would cost its length squared.
    const names = distinct(message.matchAll(AT_MENTION), COMMAND_LIMITS.mentionsLookedUp).filter((n) => n.length <= 64);
    const candidates = new Set<string>();
    for (const n of names) for (let t = n; t !== ''; t = /[.\-_]$/.test(t) ? t.slice(0, -1) : '') candidates.add(t);
    const users = new Map((await this.deps.stores.users.getByUsernames([...candidates])).filter((u) => u.delete_at === 0).map((u) => [u.username, u] as const));
    const out: Array<[string, string]> = [];
    for (const n of names) {
      let t = n;
      while (t !== '' && !users.has(t)) t = /[.\-_]$/.test(t) ? t.slice(0, -1) : '';
      const user = users.get(t);
      if (user && (await this.authz.teamMember(teamId, user.id))) out.push([t, user.id]);
    }
    return out;
  }

  /** The team's public channels ~-mentioned in the text (Mattermost's MentionsToPublicChannels). */
  private async channelMentions(message: string, teamId: string): Promise<Array<[string, string]>> {
    if (!message.includes('~')) return [];
    const out: Array<[string, string]> = [];
    for (const name of distinct(message.matchAll(CHANNEL_MENTION), COMMAND_LIMITS.mentionsLookedUp)) {
      const channel = await this.deps.stores.channels.getByName(teamId, name, false);
      if (channel && channel.type === 'O') out.push([name, channel.id]);
    }
    return out;
  }

  /**
   * POST /hooks/commands/{id}: a later reply of the command, handled as its first one, as the user who ran it in the
   * channel and thread it ran in. `contentType` and `body` are the request's.
   */
  async delayed(hookId: string, contentType: string, body: Buffer): Promise<void> {
    const { stores } = this.deps;
    let response: CommandResponse;
    const type = contentType.split(';')[0].trim().toLowerCase();
    const parseError = () => AppError.badRequest('web.command_webhook.parse.app_error', 'Unable to parse incoming data.');
    if (type === 'application/json') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        throw parseError();
      }
      response = parseCommandResponse(parsed, parseError);
    } else {
      response = { text: body.toString('utf8') };
    }
    const now = this.deps.now();
    const hook = isValidId(hookId) ? await stores.commands.getWebhook(hookId, now - COMMAND_LIMITS.responseUrlLifetimeMs) : undefined;
    if (!hook) throw AppError.notFound('app.command_webhook.get.missing', 'Unable to find the webhook.');
    const command = await stores.commands.get(hook.command_id);
    if (!command) throw AppError.badRequest('web.command_webhook.command.app_error', 'Could not find the command.');
    if (!(await stores.commands.tryUseWebhook(hook.id, COMMAND_LIMITS.responseUrlUses))) {
      throw AppError.badRequest('app.command_webhook.try_use.invalid', 'Invalid webhook.');
    }
    const channel = await stores.channels.get(hook.channel_id);
    if (!channel) throw AppError.notFound('app.channel.get.existing.app_error', 'Unable to find the existing channel.');
    // Posting in someone's name needs them still there: a user who left the channel since gets no posts in it.
    if (response.response_type === 'in_channel' && !(await stores.channels.getMember(channel.id, hook.user_id))) {
      throw new AppError('api.command.command_post.forbidden.app_error', 'Specified user is not a member of specified channel.', 403);
    }
    await this.responder.handle(command.trigger, command, { userId: hook.user_id, channel, rootId: hook.root_id }, response);
  }

  /** Forgets expired response URLs (maintenance). */
  async purgeExpired(): Promise<void> {
    await this.deps.stores.commands.deleteWebhooksBefore(this.deps.now() - COMMAND_LIMITS.responseUrlLifetimeMs);
  }
}
