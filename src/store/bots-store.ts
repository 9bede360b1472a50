import type { Bot } from '../model';
import { Executor, Row, num, paged, str } from './rows';

const TABLE = 'bots';

/** A bot row joined with its user (b: bots, u: users): the name, display name and description live on the user. */
const COLUMNS = ['b.user_id', 'u.username', 'u.first_name', 'u.bot_description', 'b.owner_id', 'b.last_icon_update', 'b.create_at', 'b.update_at', 'b.delete_at'];

function mapRow(r: Row): Bot {
  return {
    user_id: str(r.user_id),
    username: str(r.username),
    display_name: str(r.first_name),
    description: str(r.bot_description),
    owner_id: str(r.owner_id),
    last_icon_update: num(r.last_icon_update),
    create_at: num(r.create_at),
    update_at: num(r.update_at),
    delete_at: num(r.delete_at),
  };
}

/** What a bot row holds of its own (the rest is its user's): already the row, so written as it is (no toRow). */
export interface BotRow {
  user_id: string;
  owner_id: string;
  last_icon_update: number;
  create_at: number;
  update_at: number;
  delete_at: number;
}

export interface BotFilter {
  /** Only this owner's bots. */
  ownerId?: string;
  includeDeleted: boolean;
  /** Only bots whose owner is deactivated (or gone). */
  onlyOrphaned: boolean;
  page: number;
  perPage: number;
}

export class BotsStore {
  constructor(private readonly db: Executor) {}

  private joined() {
    return this.db(`${TABLE} as b`).join('users as u', 'u.id', 'b.user_id').select(COLUMNS);
  }

  async insert(row: BotRow): Promise<void> {
    await this.db(TABLE).insert(row);
  }

  async update(userId: string, fields: Partial<Omit<BotRow, 'user_id'>>): Promise<void> {
    await this.db(TABLE).where({ user_id: userId }).update(fields);
  }

  /** Removes the bot record (its user stays: ConvertBotToUser). */
  async delete(userId: string): Promise<void> {
    await this.db(TABLE).where({ user_id: userId }).delete();
  }

  async get(userId: string, includeDeleted: boolean): Promise<Bot | undefined> {
    const q = this.joined().where('b.user_id', userId);
    if (!includeDeleted) q.where('b.delete_at', 0);
    const row = await q.first();
    return row ? mapRow(row) : undefined;
  }

  /** A page of bots in creation order (then username), as Mattermost lists them. */
  async list(filter: BotFilter): Promise<Bot[]> {
    const q = this.joined();
    if (!filter.includeDeleted) q.where('b.delete_at', 0);
    if (filter.ownerId) q.where('b.owner_id', filter.ownerId);
    if (filter.onlyOrphaned) {
      // An owner deactivated, or whose account no longer exists, leaves the bot without anyone to look after it.
      q.leftJoin('users as o', 'o.id', 'b.owner_id').where((w) => w.whereNull('o.id').orWhere('o.delete_at', '!=', 0));
    }
    q.orderBy('b.create_at').orderBy('u.username');
    return (await paged(q, filter.page, filter.perPage)).map(mapRow);
  }
}
