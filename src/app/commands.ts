// Custom slash commands: creating, listing, changing, moving and deleting them (the /api/v4/commands operations), the
// autocomplete list and suggestions, and the delivery log. Running a command is in command-execution.ts.
import { isValidId, newId } from '../lib/ids';
import { AppError, COMMAND_LIMITS, type AutocompleteSuggestion, type Command, type CommandInput, type IntegrationDelivery, type Session } from '../model';
import { Authz } from './authz';
import { BUILTIN_COMMANDS } from './builtin-list';
import type { Deps } from './deps';

const disabled = () => AppError.notImplemented('api.command.disabled.app_error', 'Commands have been disabled by the system admin.');
/** Mattermost's SetCommandNotFoundError: also what a caller who may not manage the command gets, so ids leak nothing. */
const notFound = () => AppError.notFound('store.sql_command.save.get.app_error', 'We could not get the command.');
const invalid = (field: string, message: string) => AppError.badRequest(`model.command.is_valid.${field}.app_error`, message);
const duplicate = () => AppError.badRequest('api.command.duplicate_trigger.app_error', 'This trigger word is already in use. Please choose another word.');

/** Mattermost measures these with Go's len: UTF-8 bytes. */
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const chars = (s: string) => [...s].length;

function isHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** Mattermost's Command.IsValid, in its order (the first broken rule names itself), plus the columns' own bounds. */
export function checkCommand(c: Command): void {
  if (!isValidId(c.team_id)) throw invalid('team_id', 'Invalid team id.');
  const t = c.trigger;
  if (bytes(t) < COMMAND_LIMITS.triggerMin || bytes(t) > COMMAND_LIMITS.triggerMax || t.startsWith('/') || t.includes(' ')) {
    throw invalid('trigger', `Invalid trigger: 1 to ${COMMAND_LIMITS.triggerMax} characters, no leading slash and no space.`);
  }
  if (c.url === '' || bytes(c.url) > COMMAND_LIMITS.urlChars) throw invalid('url', 'Invalid URL.');
  if (!isHttpUrl(c.url)) throw invalid('url_http', 'Invalid URL: it must start with http:// or https://.');
  if (c.method !== 'P' && c.method !== 'G') throw invalid('method', 'Invalid method: "P" or "G".');
  if (bytes(c.display_name) > COMMAND_LIMITS.displayName) throw invalid('display_name', `Invalid display name: at most ${COMMAND_LIMITS.displayName} bytes.`);
  if (bytes(c.description) > COMMAND_LIMITS.description) throw invalid('description', `Invalid description: at most ${COMMAND_LIMITS.description} bytes.`);
  // Not in Mattermost's IsValid, but its columns refuse longer values (500 there): a clear 400 here.
  if (chars(c.username) > 64) throw invalid('username', 'Invalid username: at most 64 characters.');
  if (c.icon_url.length > 1024) throw invalid('icon_url', 'Invalid icon URL: at most 1024 characters.');
  if (chars(c.auto_complete_desc) > 1024) throw invalid('auto_complete_desc', 'Invalid autocomplete description: at most 1024 characters.');
  if (chars(c.auto_complete_hint) > 1024) throw invalid('auto_complete_hint', 'Invalid autocomplete hint: at most 1024 characters.');
}

/** Mattermost's Command.Sanitize: what lists show to people who may run a command but not manage it. */
export function sanitizeCommand(c: Command): Command {
  return { ...c, token: '', creator_id: '', method: '', url: '', username: '', icon_url: '' };
}

/** A built-in command as lists show it: sanitized, no id or team. */
function builtinRecord(trigger: string): Command {
  const b = BUILTIN_COMMANDS[trigger];
  return {
    id: '',
    token: '',
    create_at: 0,
    update_at: 0,
    delete_at: 0,
    creator_id: '',
    team_id: '',
    trigger,
    method: '',
    username: '',
    icon_url: '',
    auto_complete: true,
    auto_complete_desc: b.description,
    auto_complete_hint: b.hint,
    display_name: b.name,
    description: '',
    url: '',
    plugin_id: '',
  };
}

const builtinRecords = (): Command[] => Object.keys(BUILTIN_COMMANDS).map(builtinRecord);

export class CommandsService {
  private readonly authz: Authz;

  constructor(private readonly deps: Deps) {
    this.authz = new Authz(deps);
  }

  private enabled(): boolean {
    return this.deps.config.get().ServiceSettings.EnableCommands;
  }

  private requireEnabled(): void {
    if (!this.enabled()) throw disabled();
  }

  /** Mattermost's GetCommand: 501 when disabled, then 404 for a missing (or deleted) command. */
  private async load(commandId: string): Promise<Command> {
    this.requireEnabled();
    const command = await this.deps.stores.commands.get(commandId);
    if (!command) throw notFound();
    return command;
  }

  /**
   * The checks on a command someone means to change: manage_own_slash_commands on its team (without it the command
   * is as good as missing: 404), and manage_others_slash_commands for someone else's (403).
   */
  private async requireManage(command: Command, session: Session): Promise<void> {
    if (!(await this.authz.team(session, command.team_id, 'manage_own_slash_commands'))) throw notFound();
    if (command.creator_id !== session.userId) await this.authz.requireTeam(session, command.team_id, 'manage_others_slash_commands');
  }

  /** Whether a trigger is free on a team: no built-in command and no other command of the team has it. */
  private async checkUnique(teamId: string, trigger: string, exceptId: string): Promise<void> {
    const t = trigger.toLowerCase();
    if (Object.hasOwn(BUILTIN_COMMANDS, t)) throw duplicate();
    const commands = await this.deps.stores.commands.forTeam(teamId);
    if (commands.some((c) => c.id !== exceptId && c.trigger.toLowerCase() === t)) throw duplicate();
  }

  async create(input: CommandInput, session: Session): Promise<Command> {
    const { stores } = this.deps;
    const teamId = input.team_id ?? '';
    await this.authz.requireTeam(session, teamId, 'manage_own_slash_commands');
    let creatorId = session.userId;
    if (input.creator_id && input.creator_id !== session.userId) {
      await this.authz.requireTeam(session, teamId, 'manage_others_slash_commands');
      const creator = isValidId(input.creator_id) ? await stores.users.get(input.creator_id) : undefined;
      if (!creator) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
      creatorId = creator.id;
    }
    this.requireEnabled();
    const now = this.deps.now();
    const command: Command = {
      id: newId(),
      // Always the server's: a token chosen by the creator would be a weaker secret (Mattermost keeps a given one).
      token: newId(),
      create_at: now,
      update_at: now,
      delete_at: 0,
      creator_id: creatorId,
      team_id: teamId,
      ...editable(input),
      plugin_id: '',
    };
    checkCommand(command);
    await this.checkUnique(teamId, command.trigger, '');
    await stores.commands.insert(command);
    return command;
  }

  async get(commandId: string, session: Session): Promise<Command> {
    const command = await this.load(commandId);
    if (!(await this.authz.team(session, command.team_id, 'view_team'))) throw notFound();
    if (!(await this.authz.team(session, command.team_id, 'manage_own_slash_commands'))) throw notFound();
    if (command.creator_id !== session.userId && !(await this.authz.team(session, command.team_id, 'manage_others_slash_commands'))) throw notFound();
    return command;
  }

  async update(commandId: string, input: CommandInput, session: Session): Promise<Command> {
    if (input.id !== commandId) throw AppError.invalidParam('command');
    const old = await this.load(commandId);
    if ((input.team_id ?? '') !== old.team_id) throw AppError.badRequest('api.command.team_mismatch.app_error', 'Unable to update command across teams.');
    await this.requireManage(old, session);
    const command: Command = { ...old, ...editable(input), update_at: this.deps.now() };
    checkCommand(command);
    await this.checkUnique(command.team_id, command.trigger, command.id);
    await this.deps.stores.commands.update(command);
    return command;
  }

  async move(commandId: string, teamId: string, session: Session): Promise<void> {
    const { stores } = this.deps;
    const team = isValidId(teamId) ? await stores.teams.get(teamId) : undefined;
    if (!team || team.delete_at !== 0) throw AppError.notFound('app.team.get.find.app_error', 'Unable to find the existing team.');
    await this.authz.requireTeam(session, team.id, 'manage_own_slash_commands');
    const command = await this.load(commandId);
    await this.requireManage(command, session);
    // The creator must be able to manage it there too, or the command would be theirs in a team closed to them.
    const creator = await stores.users.get(command.creator_id);
    const creatorSession = creator ? ({ id: '', userId: creator.id, roles: creator.roles, isAccessToken: false, csrfToken: '' } satisfies Session) : undefined;
    if (!creatorSession || !(await this.authz.team(creatorSession, team.id, 'manage_own_slash_commands'))) {
      throw AppError.badRequest('api.command.move_command.creator_no_permission.app_error', "The command's creator does not have permission to manage commands in the destination team.");
    }
    await this.checkUnique(team.id, command.trigger, command.id);
    await stores.commands.update({ ...command, team_id: team.id, update_at: this.deps.now() });
  }

  async delete(commandId: string, session: Session): Promise<void> {
    const command = await this.load(commandId);
    await this.requireManage(command, session);
    await this.deps.stores.commands.softDelete(command.id, this.deps.now());
  }

  async regenToken(commandId: string, session: Session): Promise<string> {
    const command = await this.load(commandId);
    await this.requireManage(command, session);
    const token = newId();
    await this.deps.stores.commands.update({ ...command, token, update_at: this.deps.now() });
    return token;
  }

  /** ListCommands (api4's listCommands): see the spec for who sees what. */
  async list(teamId: string | undefined, customOnly: boolean, session: Session): Promise<Command[]> {
    if (!teamId) throw AppError.invalidParam('team_id');
    await this.authz.requireTeam(session, teamId, 'view_team');
    const canManage = await this.authz.team(session, teamId, 'manage_own_slash_commands');
    const onlyOwn = !(await this.authz.team(session, teamId, 'manage_others_slash_commands'));
    if (customOnly) {
      if (!canManage) throw AppError.forbidden('manage_own_slash_commands');
      this.requireEnabled();
      const commands = await this.deps.stores.commands.forTeam(teamId);
      return onlyOwn ? commands.filter((c) => c.creator_id === session.userId) : commands;
    }
    if (!canManage) return this.autocomplete(teamId, session, false);
    // Built-ins first, then custom commands whose trigger no built-in has (Mattermost's ListAllCommandsByUser).
    const out = builtinRecords();
    const seen = new Set(out.map((c) => c.trigger));
    if (this.enabled()) {
      for (const c of await this.deps.stores.commands.forTeam(teamId)) {
        if (seen.has(c.trigger) || (onlyOwn && c.creator_id !== session.userId)) continue;
        seen.add(c.trigger);
        out.push(sanitizeCommand(c));
      }
    }
    return out;
  }

  /** ListAutocompleteCommands: built-ins and the team's autocomplete commands, sanitized, one per trigger. */
  async autocomplete(teamId: string, session: Session, check = true): Promise<Command[]> {
    if (check) await this.authz.requireTeam(session, teamId, 'view_team');
    const out: Command[] = [];
    const seen = new Set<string>();
    if (this.enabled()) {
      for (const c of await this.deps.stores.commands.forTeam(teamId)) {
        if (!c.auto_complete || seen.has(c.trigger)) continue;
        seen.add(c.trigger);
        out.push(sanitizeCommand(c));
      }
    }
    for (const b of builtinRecords()) {
      if (seen.has(b.trigger)) continue;
      seen.add(b.trigger);
      out.push(b);
    }
    return out;
  }

  /**
   * ListCommandAutocompleteSuggestions, as Mattermost's GetSuggestions answers commands that declare no arguments:
   * while the input is one word, every command whose trigger starts with it; after a space, nothing more to suggest.
   */
  async suggestions(teamId: string, userInput: string | undefined, session: Session): Promise<AutocompleteSuggestion[]> {
    await this.authz.requireTeam(session, teamId, 'view_team');
    if (!userInput) throw AppError.invalidParam('userInput');
    const input = userInput.startsWith('/') ? userInput.slice(1) : userInput;
    if (input.includes(' ')) return [];
    const word = input.toLowerCase();
    const commands = (await this.autocomplete(teamId, session, false)).sort((a, b) => (a.trigger < b.trigger ? -1 : a.trigger > b.trigger ? 1 : 0));
    return commands
      .filter((c) => c.trigger.startsWith(word))
      .map((c) => ({ Complete: c.trigger, Suggestion: c.trigger, Hint: c.auto_complete_hint, Description: c.auto_complete_desc, IconData: '' }));
  }

  /** GetCommandDeliveries: the command's last calls, for whoever may manage it. */
  async deliveries(commandId: string, session: Session): Promise<IntegrationDelivery[]> {
    const command = await this.get(commandId, session);
    return this.deps.stores.deliveries.recent(command.id, COMMAND_LIMITS.deliveries);
  }
}

/** The fields a body sets (create and update alike); missing ones read as Mattermost reads them: "" or false. */
function editable(input: CommandInput): Pick<Command, 'trigger' | 'method' | 'username' | 'icon_url' | 'auto_complete' | 'auto_complete_desc' | 'auto_complete_hint' | 'display_name' | 'description' | 'url'> {
  return {
    trigger: (input.trigger ?? '').toLowerCase(),
    method: (input.method ?? '') as Command['method'],
    username: input.username ?? '',
    icon_url: input.icon_url ?? '',
    auto_complete: input.auto_complete ?? false,
    auto_complete_desc: input.auto_complete_desc ?? '',
    auto_complete_hint: input.auto_complete_hint ?? '',
    display_name: input.display_name ?? '',
    description: input.description ?? '',
    url: input.url ?? '',
  };
}
