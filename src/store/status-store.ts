import type { StatusRecord, StatusValue } from '../model/status';
import { Executor, Row, bool, num, str } from './rows';

function mapStatus(r: Row): StatusRecord {
  return {
    user_id: str(r.user_id),
    status: str(r.status) as StatusValue,
    manual: bool(r.manual),
    last_activity_at: num(r.last_activity_at),
    dnd_end_time: num(r.dnd_end_time),
    prev_status: str(r.prev_status) as StatusValue | '',
  };
}

export class StatusStore {
  constructor(private readonly db: Executor) {}

  async get(userId: string): Promise<StatusRecord | undefined> {
    const r = await this.db('status').where({ user_id: userId }).first();
    return r ? mapStatus(r) : undefined;
  }

  async getMany(userIds: string[]): Promise<StatusRecord[]> {
    if (userIds.length === 0) return [];
    return (await this.db('status').whereIn('user_id', userIds)).map(mapStatus);
  }

  /** Everyone whose stored status is not offline (get_statuses). */
  async notOffline(limit: number): Promise<StatusRecord[]> {
    return (await this.db('status').whereNot({ status: 'offline' }).limit(limit)).map(mapStatus);
  }

  /** Inserts or replaces a user's status row. */
  async save(s: StatusRecord): Promise<void> {
    const row = { user_id: s.user_id, status: s.status, manual: s.manual, last_activity_at: s.last_activity_at, dnd_end_time: s.dnd_end_time, prev_status: s.prev_status };
    await this.db('status').insert(row).onConflict('user_id').merge();
  }

  async touch(userId: string, at: number): Promise<void> {
    await this.db('status').where({ user_id: userId }).update({ last_activity_at: at });
  }
}
