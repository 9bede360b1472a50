import { isValidId } from '../lib/ids';
import { AppError, type Session, type Status, type StatusRecord, type StatusValue } from '../model';
import type { ActivityWrites } from './activity-writes';
import { Authz } from './authz';
import type { Deps } from './deps';
import { broadcast } from './events';

/** Activity updates last_activity_at in the database at most this often (Mattermost's StatusMinUpdateTime). */
const ACTIVITY_WRITE_INTERVAL_MS = 120_000;
const GET_STATUSES_LIMIT = 10_000;

const offline = (userId: string): StatusRecord => ({ user_id: userId, status: 'offline', manual: false, last_activity_at: 0, dnd_end_time: 0, prev_status: '' });
const shown = ({ prev_status: _p, ...s }: StatusRecord): Status => s;

/**
 * Presence, as Mattermost keeps it: set online by activity, away after a quiet spell, offline when the last socket
 * closes; a status the user chose (manual) is kept until they change it. Away and the end of a timed dnd are worked
 * out when a status is read, from the stored times (no timer per user).
 */
export class StatusService {
  private readonly authz: Authz;
  /**
   * When each user was last written or found online by this process: activity within the interval after that
   * changes nothing (the user is online; away is worked out from last_activity_at), so it costs no query at all.
   */
  private readonly written = new Map<string, number>();
  /** Per user, the tail of their status changes in flight (see serial). */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly deps: Deps,
    /** Every status write goes through it, in order (see ActivityWrites). */
    readonly writes: ActivityWrites,
  ) {
    this.authz = new Authz(deps);
  }

  /**
   * One user's status changes run one at a time, in the order asked, each reading what the one before wrote: a socket
   * closing (offline) and another opening (online) at the same moment must end online, not with the older write last.
   */
  private serial<T>(userId: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.queues.get(userId) ?? Promise.resolve()).then(fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(userId, tail);
    void tail.then(() => {
      if (this.queues.get(userId) === tail) this.queues.delete(userId);
    });
    return run;
  }

  private save(status: StatusRecord): Promise<void> {
    return this.writes.write({ kind: 'status', status });
  }

  /** The status as it stands now: a quiet `online` reads as `away`, a `dnd` past its end as what it replaced. */
  private current(s: StatusRecord): StatusRecord {
    const now = this.deps.now();
    if (s.status === 'dnd' && s.dnd_end_time > 0 && now / 1000 >= s.dnd_end_time) {
      return { ...s, status: s.prev_status || 'offline', manual: s.prev_status !== '' && s.prev_status !== 'online', dnd_end_time: 0, prev_status: '' };
    }
    const awayAfter = this.deps.config.get().TeamSettings.UserStatusAwayTimeout * 1000;
    if (s.status === 'online' && !s.manual && now - s.last_activity_at >= awayAfter) return { ...s, status: 'away' };
    return s;
  }

  async get(userId: string): Promise<Status> {
    return shown(this.current((await this.deps.stores.status.get(userId)) ?? offline(userId)));
  }

  async getMany(userIds: string[]): Promise<Status[]> {
    if (userIds.length === 0 || !userIds.every(isValidId)) throw AppError.invalidParam('user_ids');
    const ids = [...new Set(userIds)];
    const found = new Map((await this.deps.stores.status.getMany(ids)).map((s) => [s.user_id, s]));
    return ids.map((id) => shown(this.current(found.get(id) ?? offline(id))));
  }

  /** user id → status: of the given users (offline included), or of everyone not offline (get_statuses). */
  async statuses(userIds: string[] | undefined): Promise<Record<string, StatusValue>> {
    const list = userIds ? await this.getMany(userIds) : (await this.deps.stores.status.notOffline(GET_STATUSES_LIMIT)).map((s) => this.current(s)).filter((s) => s.status !== 'offline');
    return Object.fromEntries(list.map((s) => [s.user_id, s.status]));
  }

  /** UpdateUserStatus: the user (or a user manager) chooses a status; it stays until changed (or the dnd ends). */
  async update(userId: string, input: { user_id?: string; status: string; dnd_end_time?: number }, session: Session): Promise<Status> {
    if (input.user_id !== undefined && input.user_id !== userId) throw AppError.invalidParam('user_id');
    if (userId !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
    if (!(await this.deps.stores.users.get(userId))) throw AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');
    return this.serial(userId, () => this.choose(userId, input));
  }

  private async choose(userId: string, input: { status: string; dnd_end_time?: number }): Promise<Status> {
    const before = this.current((await this.deps.stores.status.get(userId)) ?? offline(userId));
    const now = this.deps.now();
    let next: StatusRecord;
    switch (input.status) {
      // Online is never "manual" (Mattermost): activity keeps it, a quiet spell makes it away.
      case 'online':
        next = { user_id: userId, status: 'online', manual: false, last_activity_at: now, dnd_end_time: 0, prev_status: '' };
        break;
      case 'away':
      case 'offline':
        next = { user_id: userId, status: input.status, manual: true, last_activity_at: now, dnd_end_time: 0, prev_status: '' };
        break;
      case 'dnd': {
        const end = input.dnd_end_time ?? 0;
        if (!Number.isInteger(end) || end < 0) throw AppError.invalidParam('dnd_end_time');
        next = { user_id: userId, status: 'dnd', manual: true, last_activity_at: now, dnd_end_time: end, prev_status: before.status === 'dnd' ? before.prev_status : before.status };
        break;
      }
      default:
        throw AppError.invalidParam('status');
    }
    await this.save(next);
    if (next.status === 'online') this.written.set(userId, now);
    else this.written.delete(userId);
    this.announce(userId, next.status);
    return shown(next);
  }

  /**
   * Activity of the user (a socket opened, a post, a channel viewed, the web app reporting the user active): online
   * unless they chose a status; inactivity reported by the web app makes them away. Cheap when nothing changes.
   */
  async activity(userId: string, active: boolean, manualReport = false): Promise<void> {
    if (active && this.deps.now() - (this.written.get(userId) ?? -Infinity) < ACTIVITY_WRITE_INTERVAL_MS) return;
    return this.serial(userId, () => this.record(userId, active, manualReport));
  }

  private async record(userId: string, active: boolean, manualReport: boolean): Promise<void> {
    const stored = (await this.deps.stores.status.get(userId)) ?? offline(userId);
    const s = this.current(stored);
    const now = this.deps.now();
    if (s.manual && s.status !== 'online') return;
    if (!active) {
      this.written.delete(userId);
      if (s.status === 'online') {
        // The web app says the user went idle: away (kept as chosen when the user asked for it).
        await this.save({ ...s, status: 'away', manual: manualReport });
        this.announce(userId, 'away');
      }
      return;
    }
    if (s.status !== 'online' || stored.status !== 'online') {
      await this.save({ user_id: userId, status: 'online', manual: false, last_activity_at: now, dnd_end_time: 0, prev_status: '' });
      this.written.set(userId, now);
      this.announce(userId, 'online');
      return;
    }
    this.written.set(userId, now);
    await this.writes.write({ kind: 'status-activity', userId, at: now });
    if (this.written.size > 100_000) this.written.delete(this.written.keys().next().value as string);
  }

  /** The user's last socket on this process closed: offline, unless they chose a status. */
  async disconnected(userId: string): Promise<void> {
    this.written.delete(userId);
    return this.serial(userId, async () => {
      const s = this.current((await this.deps.stores.status.get(userId)) ?? offline(userId));
      if (s.status === 'offline' || (s.manual && s.status !== 'online')) return;
      await this.save({ ...s, status: 'offline', manual: false, prev_status: '' });
      this.announce(userId, 'offline');
    });
  }

  /** `status_change` goes to the user themselves only, as in Mattermost (others ask with get_statuses). */
  private announce(userId: string, status: StatusValue): void {
    if (!this.deps.events.listening()) return;
    this.deps.events.publish({ event: 'status_change', data: { status, user_id: userId }, broadcast: broadcast({ user_id: userId }), audience: { kind: 'users', userIds: [userId] } });
  }
}
