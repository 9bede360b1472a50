// The built-in slash commands (Mattermost's app/slashcommands), each done through the app service that owns the
// change (channels, status, posts, search), so a command obeys exactly the rules of the API it stands for. Each
// answers a CommandResponse; failures are ephemeral texts to the user, as in Mattermost, never request errors.
import { AppError, COMMAND_LIMITS, type Channel, type CommandResponse, type Session, type Team, type UserRecord } from '../model';
import { Authz } from './authz';
import { BUILTIN_COMMANDS } from './builtin-list';
import type { ChannelsService } from './channels';
import type { Deps } from './deps';
import type { PostsService } from './posts';
import { directChannelName } from './rules';
import type { SearchService } from './search';
import type { StatusService } from './status';

/** What a built-in command runs with. */
export interface BuiltinArgs {
  session: Session;
  channel: Channel;
  /** The channel's team, or the team the client named for a direct or group channel ('' when none). */
  teamId: string;
  rootId: string;
  /** The text after the trigger. */
  message: string;
}

type Builtin = (a: BuiltinArgs) => Promise<CommandResponse>;

const ephemeral = (text: string): CommandResponse => ({ response_type: 'ephemeral', text });
const nothing = (): CommandResponse => ({});
const SHRUG = '¯\\\\\\_(ツ)\\_/¯';

/** /echo: delayed echoes waiting now (Mattermost's echoSem, per process). */
let pendingEchoes = 0;

export class BuiltinCommands {
  private readonly authz: Authz;
  private readonly table: Record<string, Builtin>;

  constructor(
    private readonly deps: Deps,
    private readonly channels: ChannelsService,
    private readonly posts: PostsService,
    private readonly status: StatusService,
    private readonly search: SearchService,
  ) {
    this.authz = new Authz(deps);
    const remove: Builtin = (a) => this.remove(a);
    this.table = {
      away: (a) => this.setStatus(a, 'away', 'You are now away'),
      online: (a) => this.setStatus(a, 'online', 'You are now online'),
      offline: (a) => this.setStatus(a, 'offline', 'You are now offline'),
      dnd: (a) =>
        this.setStatus(a, 'dnd', 'Do Not Disturb is enabled. You will not receive desktop or mobile push notifications until Do Not Disturb is turned off.'),
      me: async (a) => ({ response_type: 'in_channel', type: 'me', text: `*${a.message}*` }),
      shrug: async (a) => ({ response_type: 'in_channel', text: a.message === '' ? SHRUG : `${a.message} ${SHRUG}` }),
      code: (a) => this.code(a),
      echo: (a) => this.echo(a),
      join: (a) => this.join(a),
      leave: (a) => this.leave(a),
      msg: (a) => this.msg(a),
      invite: (a) => this.invite(a),
      kick: remove,
      remove,
      header: (a) => this.patch(a, 'header'),
      purpose: (a) => this.patch(a, 'purpose'),
      rename: (a) => this.patch(a, 'display_name'),
      search: (a) => this.searchPosts(a),
      help: (a) => this.help(a),
    };
  }

  has(trigger: string): boolean {
    return Object.hasOwn(this.table, trigger);
  }

  run(trigger: string, args: BuiltinArgs): Promise<CommandResponse> {
    return this.table[trigger](args);
  }

  private siteUrl(): string {
    return this.deps.config.get().ServiceSettings.SiteURL.replace(/\/+$/, '');
  }

  private async team(teamId: string): Promise<Team | undefined> {
    return teamId ? this.deps.stores.teams.get(teamId) : undefined;
  }

  private async setStatus(a: BuiltinArgs, status: 'away' | 'online' | 'offline' | 'dnd', text: string): Promise<CommandResponse> {
    await this.status.update(a.session.userId, { status }, a.session);
    return ephemeral(text);
  }

  private async code(a: BuiltinArgs): Promise<CommandResponse> {
    if (a.message === '') return ephemeral('A message must be provided with the /code command.');
    return { response_type: 'in_channel', text: `    ${a.message.split('\n').join('\n    ')}`, skip_slack_parsing: true };
  }

  /** /echo text [delay], /echo "text" delay: posts the text as the user, after the delay (seconds). */
  private async echo(a: BuiltinArgs): Promise<CommandResponse> {
    let message = a.message;
    if (message === '') return ephemeral('A message must be provided with the /echo command.');
    let delay = 0;
    const endQuote = message.lastIndexOf('"');
    if (message[0] === '"' && endQuote > 1) {
      const n = message.slice(endQuote).replace(/^[\s"]+|[\s"]+$/g, '');
      if (/^[+-]?\d{1,9}$/.test(n)) delay = Number(n);
      message = message.slice(1, endQuote);
    } else if (message.includes(' ')) {
      const at = message.lastIndexOf(' ');
      const n = message.slice(at).trim();
      if (/^[+-]?\d{1,9}$/.test(n)) {
        delay = Number(n);
        message = message.slice(0, at);
      }
    }
    if (delay > COMMAND_LIMITS.echoMaxDelaySeconds) return ephemeral(`Delays must be under ${COMMAND_LIMITS.echoMaxDelaySeconds} seconds.`);
    const post = () => this.posts.create({ channel_id: a.channel.id, message, root_id: a.rootId || undefined }, a.session);
    if (delay <= 0) {
      await post();
      return nothing();
    }
    if (pendingEchoes >= COMMAND_LIMITS.echoPending) return ephemeral('High volume, cannot process request');
    pendingEchoes++;
    setTimeout(() => {
      post()
        .catch((err: unknown) => this.deps.onBackgroundError(err, '/echo post not created'))
        .finally(() => pendingEchoes--);
    }, delay * 1000).unref();
    return nothing();
  }

  private async join(a: BuiltinArgs): Promise<CommandResponse> {
    const name = (a.message.startsWith('~') ? a.message.slice(1) : a.message).trim().toLowerCase();
    const fail = () => ephemeral('An error occurred while joining the channel.');
    const channel = name ? await this.deps.stores.channels.getByName(a.teamId, name, true) : undefined;
    if (!channel) return ephemeral('Unable to find the channel.');
    if (channel.delete_at !== 0) return fail();
    if (channel.type === 'O') {
      try {
        await this.channels.addMembers(channel.id, [a.session.userId], a.session);
      } catch (err) {
        if (err instanceof AppError) return fail();
        throw err;
      }
    } else if (channel.type !== 'P' || !(await this.authz.channel(a.session, channel, 'read_channel'))) {
      // A private channel can be "joined" only by its members (Mattermost's read_channel check): it is opened.
      return fail();
    }
    const team = await this.team(channel.team_id);
    if (!team) return fail();
    return { goto_location: `${this.siteUrl()}/${team.name}/channels/${channel.name}` };
  }

  private async leave(a: BuiltinArgs): Promise<CommandResponse> {
    const fail = () => ephemeral('An error occurred while leaving the channel.');
    const team = await this.team(a.teamId);
    if (!team) return fail();
    try {
      await this.channels.removeMember(a.channel.id, a.session.userId, a.session);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (a.channel.name === 'town-square') return ephemeral('You cannot leave the default channel town-square.');
      return fail();
    }
    if (!(await this.authz.teamMember(team.id, a.session.userId))) return { goto_location: `${this.siteUrl()}/` };
    return { goto_location: `${this.siteUrl()}/${team.name}/channels/town-square` };
  }

  /** /msg @user [text]: opens (creates if needed) the direct channel, and posts the text there. */
  private async msg(a: BuiltinArgs): Promise<CommandResponse> {
    const [first, ...rest] = a.message.split(' ');
    const text = rest.join(' ');
    const username = first.replace(/^@/, '').toLowerCase();
    const missing = () => ephemeral('We could not find the user.');
    const target = username ? await this.deps.stores.users.getByUsername(username) : undefined;
    if (!target || target.delete_at !== 0 || target.id === a.session.userId) return missing();
    const name = directChannelName(a.session.userId, target.id);
    let channel = await this.deps.stores.channels.getByName('', name, true);
    if (!channel) {
      if (!this.authz.system(a.session, 'create_direct_channel')) return ephemeral('You do not have the appropriate permissions to direct message this user.');
      channel = await this.channels.getOrCreateDirect(a.session.userId, target.id);
    }
    if (text !== '') {
      try {
        await this.posts.create({ channel_id: channel.id, message: text }, a.session);
      } catch (err) {
        if (err instanceof AppError) return ephemeral('An error occurred while messaging the user.');
        throw err;
      }
    }
    const team = await this.team(a.teamId);
    if (!team) return ephemeral('An error occurred while messaging the user.');
    return { response_type: 'ephemeral', text: '', goto_location: `${this.siteUrl()}/${team.name}/channels/${name}` };
  }

  /** /invite @user [@user2 ...] [~channel ...]: adds the users to the channels (the current one when none is named). */
  private async invite(a: BuiltinArgs): Promise<CommandResponse> {
    const { stores } = this.deps;
    if (a.message.trim() === '') return ephemeral('Missing Username and Channel.');
    const lines: string[] = [];
    const users: UserRecord[] = [];
    const channels: Channel[] = [];
    // Bounded: each word is at most one lookup, and a command line is short (the client sends one post's worth).
    const words = a.message.split(' ').filter((w) => w !== '').slice(0, 2 * COMMAND_LIMITS.mentionsLookedUp);
    for (const [i, word] of words.entries()) {
      if (word.startsWith('@') || (!word.startsWith('~') && i === 0)) {
        const name = word.replace(/^@/, '');
        const user = await stores.users.getByUsername(name.toLowerCase());
        if (!user || user.delete_at !== 0) lines.push(`We couldn't find the user ${name}. They may have been deactivated by the System Administrator.`);
        else users.push(user);
      } else {
        const name = word.replace(/^~/, '');
        const channel = await stores.channels.getByName(a.teamId, name.toLowerCase(), false);
        if (!channel) lines.push(`Could not find the channel ${name}. Please use the channel handle to identify channels.`);
        else channels.push(channel);
      }
    }
    if (users.length === 0) return ephemeral(lines.length ? lines.join('\n') : 'Missing Username and Channel.');
    if (channels.length === 0) {
      if (lines.length) return ephemeral(lines.join('\n'));
      channels.push(a.channel);
    }
    for (const channel of channels) {
      if (channel.type !== 'O' && channel.type !== 'P') {
        lines.push("You can't add someone to a direct message channel.");
        continue;
      }
      const permission = channel.type === 'O' ? 'manage_public_channel_members' : 'manage_private_channel_members';
      if (!(await this.authz.channel(a.session, channel, permission))) {
        const member = await stores.channels.getMember(channel.id, a.session.userId);
        lines.push(
          channel.type === 'P' && !member
            ? `Could not find the channel ${channel.name}. Please use the channel handle to identify channels.`
            : `You don't have enough permissions to add ${users[0].username} in ${channel.name}.`,
        );
        continue;
      }
      for (const user of users) {
        if (await stores.channels.getMember(channel.id, user.id)) {
          lines.push(`@${user.username} is already in the channel.`);
          continue;
        }
        try {
          await this.channels.addMembers(channel.id, [user.id], a.session);
          lines.push(channel.id === a.channel.id ? `@${user.username} added to the channel.` : `@${user.username} added to ~${channel.name} channel.`);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          lines.push(err.id === 'api.channel.add_members.user_denied' ? `@${user.username} is not a member of the team.` : 'An error occurred while joining the channel.');
        }
      }
    }
    return ephemeral(lines.join('\n'));
  }

  /** /kick and /remove @user: removes the user from the current channel. */
  private async remove(a: BuiltinArgs): Promise<CommandResponse> {
    const channel = a.channel;
    if (channel.type !== 'O' && channel.type !== 'P') return ephemeral("You can't remove someone from a direct message channel.");
    const permission = channel.type === 'O' ? 'manage_public_channel_members' : 'manage_private_channel_members';
    if (!(await this.authz.channel(a.session, channel, permission))) return ephemeral("You don't have the required permissions to remove the member.");
    if (a.message.trim() === '') return ephemeral('A message must be provided with the /remove or /kick command.');
    const name = a.message.split(' ')[0].replace(/^@/, '').toLowerCase();
    const user = name ? await this.deps.stores.users.getByUsername(name) : undefined;
    if (!user || user.delete_at !== 0) return ephemeral("We couldn't find the user. They may have been deactivated by the System Administrator.");
    if (!(await this.deps.stores.channels.getMember(channel.id, user.id))) return ephemeral(`${user.username} is not a member of this channel.`);
    try {
      await this.channels.removeMember(channel.id, user.id, a.session);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return ephemeral(err.id === 'api.channel.remove.default.app_error' ? 'Unable to remove user from the default channel town-square.' : 'An error occurred while removing the user.');
    }
    return ephemeral(`@${user.username} was removed from the channel.`);
  }

  /** /header, /purpose, /rename: PatchChannel's rules (who may change what, limits), its answers as texts. */
  private async patch(a: BuiltinArgs, field: 'header' | 'purpose' | 'display_name'): Promise<CommandResponse> {
    const what = { header: 'header', purpose: 'purpose', display_name: 'name' }[field];
    const command = { header: '/header', purpose: '/purpose', display_name: '/rename' }[field];
    const direct = a.channel.type === 'D' || a.channel.type === 'G';
    if (direct && field === 'purpose') return ephemeral("You can't modify the purpose of direct message channels. Use /header to modify the header instead.");
    if (direct && field === 'display_name') return ephemeral("You can't rename direct message channels.");
    if (a.message === '') return ephemeral(`Text must be provided with the ${command} command.`);
    if (field === 'display_name' && [...a.message].length > 64) return ephemeral('Channel names must be 64 characters or fewer.');
    try {
      await this.channels.patch(a.channel.id, { [field]: a.message }, a.session);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.statusCode === 403) return ephemeral(`You don't have the appropriate permissions to edit the channel ${what}.`);
      if (err.id === `model.channel.is_valid.${field}.app_error`) return ephemeral(`The channel ${what} is too long.`);
      return ephemeral(`An error occurred while updating the channel ${what}.`);
    }
    return nothing();
  }

  /** /search terms: the first results of the same search as SearchPosts, listed in an ephemeral answer. */
  private async searchPosts(a: BuiltinArgs): Promise<CommandResponse> {
    const { stores } = this.deps;
    const terms = a.message.trim();
    if (terms === '') return ephemeral('Search terms must be provided with the /search command.');
    const team = await this.team(a.teamId);
    if (!team) return ephemeral('Search works in a team: run /search from a channel of the team to search.');
    let results;
    try {
      results = await this.search.searchPosts(team.id, { terms, is_or_search: false, page: 0, per_page: COMMAND_LIMITS.searchResults }, a.session);
    } catch (err) {
      if (err instanceof AppError && err.statusCode < 500) return ephemeral(`Search failed: ${err.message}`);
      throw err;
    }
    const posts = results.order.map((id) => results.posts[id]).filter((p) => p !== undefined);
    if (posts.length === 0) return ephemeral(`No results for "${terms}".`);
    const users = new Map((await stores.users.getMany([...new Set(posts.map((p) => p.user_id))])).map((u) => [u.id, u.username] as const));
    const channelNames = new Map<string, string>();
    for (const id of new Set(posts.map((p) => p.channel_id))) {
      const c = await stores.channels.get(id);
      if (c) channelNames.set(id, c.type === 'D' || c.type === 'G' ? 'a direct message' : `~${c.name}`);
    }
    const site = this.siteUrl();
    const lines = posts.map((p) => {
      const text = p.message.replace(/\s+/g, ' ').trim();
      const short = [...text].length > 100 ? `${[...text].slice(0, 100).join('')}…` : text;
      const link = site ? ` ([jump](${site}/${team.name}/pl/${p.id}))` : '';
      return `- @${users.get(p.user_id) ?? 'someone'} in ${channelNames.get(p.channel_id) ?? 'a channel'}: ${short}${link}`;
    });
    return ephemeral(`Search results for "${terms}" (newest first):\n${lines.join('\n')}`);
  }

  private async help(a: BuiltinArgs): Promise<CommandResponse> {
    const lines = Object.entries(BUILTIN_COMMANDS).map(([trigger, b]) => `- \`/${trigger}${b.hint ? ` ${b.hint}` : ''}\`: ${b.description}`);
    const custom = a.teamId && this.deps.config.get().ServiceSettings.EnableCommands ? await this.deps.stores.commands.forTeam(a.teamId) : [];
    for (const c of custom.filter((c) => c.auto_complete)) lines.push(`- \`/${c.trigger}${c.auto_complete_hint ? ` ${c.auto_complete_hint}` : ''}\`: ${c.auto_complete_desc}`);
    return ephemeral(`Slash commands:\n${lines.join('\n')}`);
  }
}
