import type { StatusRecord, StatusValue } from '../model/status';
import { Executor, Row, bool, num, str } from './rows';

const TABLE = 'status';

function mapRow(r: Row): StatusRecord {
  return {
    user_id: str(r.user_id),
    status: str(r.status) as StatusValue,
    manual: bool(r.manual),
    last_activity_at: num(r.last_activity_at),
    dnd_end_time: num(r.dnd_end_time),
    prev_status: str(r.prev_status) as StatusValue | '',
  };
}

function toRow(s: StatusRecord): Row {
  return { user_id: s.user_id, status: s.status, manual: s.manual, last_activity_at: s.last_activity_at, dnd_end_time: s.dnd_end_time, prev_status: s.prev_status };
}

export class StatusStore {
  constructor(private readonly db: Executor) {}

  async get(userId: string): Promise<StatusRecord | undefined> {
    const r = await this.db(TABLE).where({ user_id: userId }).first();
    return r ? mapRow(r) : undefined;
  }

  async getMany(userIds: string[]): Promise<StatusRecord[]> {
    if (userIds.length === 0) return [];
    return (await this.db(TABLE).whereIn('user_id', userIds)).map(mapRow);
  }

  /** Everyone whose stored status is not offline (get_statuses). */
  async notOffline(limit: number): Promise<StatusRecord[]> {
    return (await this.db(TABLE).whereNot({ status: 'offline' }).limit(limit)).map(mapRow);
  }

  /** Inserts or replaces a user's status row. */
  async save(s: StatusRecord): Promise<void> {
    await this.db(TABLE).insert(toRow(s)).onConflict('user_id').merge();
  }

  async touch(userId: string, at: number): Promise<void> {
    await this.db(TABLE).where({ user_id: userId }).update({ last_activity_at: at });
  }
}
