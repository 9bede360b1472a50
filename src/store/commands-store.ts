import type { Command, CommandWebhook } from '../model';
import { Executor, Row, bool, num, str } from './rows';

const TABLE = 'commands';
const WEBHOOKS = 'command_webhooks';

function mapRow(r: Row): Command {
  return {
    id: str(r.id),
    token: str(r.token),
    create_at: num(r.create_at),
    update_at: num(r.update_at),
    delete_at: num(r.delete_at),
    creator_id: str(r.creator_id),
    team_id: str(r.team_id),
    trigger: str(r.trigger),
    method: str(r.method) as Command['method'],
    username: str(r.username),
    icon_url: str(r.icon_url),
    auto_complete: bool(r.auto_complete),
    auto_complete_desc: str(r.auto_complete_desc),
    auto_complete_hint: str(r.auto_complete_hint),
    display_name: str(r.display_name),
    description: str(r.description),
    url: str(r.url),
    plugin_id: str(r.plugin_id),
  };
}

function mapWebhook(r: Row): CommandWebhook {
  return {
    id: str(r.id),
    create_at: num(r.create_at),
    command_id: str(r.command_id),
    user_id: str(r.user_id),
    channel_id: str(r.channel_id),
    root_id: str(r.root_id),
    use_count: num(r.use_count),
  };
}

/** A command's fields are its columns (the drivers write booleans as 0/1). */
function toRow(c: Command): Row {
  return { ...c };
}

/** Custom slash commands, and their response URLs (Mattermost's Commands and CommandWebhooks). */
export class CommandsStore {
  constructor(private readonly db: Executor) {}

  async insert(c: Command): Promise<void> {
    await this.db(TABLE).insert(toRow(c));
  }

  /** Live commands only: a deleted command is indistinguishable from one that never existed. */
  async get(id: string): Promise<Command | undefined> {
    const r = (await this.db(TABLE).where({ id, delete_at: 0 }).first()) as Row | undefined;
    return r ? mapRow(r) : undefined;
  }

  /** A team's live commands, in creation order (a team has few; Mattermost lists them all). */
  async forTeam(teamId: string): Promise<Command[]> {
    const rows = (await this.db(TABLE).where({ team_id: teamId, delete_at: 0 }).orderBy('create_at').orderBy('id')) as Row[];
    return rows.map(mapRow);
  }

  /** Replaces a live command's fields; a command deleted since the caller read it stays deleted. */
  async update(c: Command): Promise<void> {
    const { id, ...rest } = toRow(c);
    await this.db(TABLE).where({ id, delete_at: 0 }).update(rest);
  }

  async softDelete(id: string, now: number): Promise<void> {
    await this.db(TABLE).where({ id, delete_at: 0 }).update({ delete_at: now, update_at: now });
  }

  async insertWebhook(h: CommandWebhook): Promise<void> {
    await this.db(WEBHOOKS).insert(h);
  }

  /** A response URL made after `since` (older ones have expired). */
  async getWebhook(id: string, since: number): Promise<CommandWebhook | undefined> {
    const r = (await this.db(WEBHOOKS).where({ id }).where('create_at', '>', since).first()) as Row | undefined;
    return r ? mapWebhook(r) : undefined;
  }

  /**
   * Counts one use of a response URL, if it has uses left: one conditional UPDATE, so two replies racing for the last
   * use (on any process) cannot both get it. Returns whether this call got a use.
   */
  async tryUseWebhook(id: string, maxUses: number): Promise<boolean> {
    const n = await this.db(WEBHOOKS).where({ id }).where('use_count', '<', maxUses).increment('use_count', 1);
    return Number(n) > 0;
  }

  /** Forgets the response URLs made before `before` (expired: they can no longer be used). */
  async deleteWebhooksBefore(before: number): Promise<number> {
    return this.db(WEBHOOKS).where('create_at', '<', before).delete();
  }
}
