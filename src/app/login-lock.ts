import { createHash } from 'node:crypto';
import { isDatabaseError } from '../model';
import type { LoginAttempts } from '../store/users-store';
import type { Deps } from './deps';

/** The longest lock, however often a counter has been locked in a row. */
export const LOCK_CAP_MS = 24 * 60 * 60 * 1000;
/** A counter with no lock in force and no failure for this long is forgotten (and purged): a fresh start. */
export const FORGET_AFTER_MS = 24 * 60 * 60 * 1000;
/** Compare-and-set rounds one attempt may lose to parallel ones before it is refused as if locked. */
const MAX_ROUNDS = 100;

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Counter keys. An account is counted under its id whatever login id named it (username, email, id); a login id that
 * names no account under the id itself, in the same table with the same statements, so that nothing (answers, their
 * timing, a restart, another process) tells the two apart. A password check made inside a session (changing your
 * password or email) is counted per session: a stranger's failed logins cannot lock its owner out of those, and a
 * stolen session still gets only MaximumLoginAttempts guesses per lock.
 */
export const accountKey = (userId: string) => digest(`account:${userId}`);
export const loginIdKey = (loginId: string) => digest(`login:${loginId.toLowerCase()}`);
export const sessionKey = (sessionId: string) => digest(`session:${sessionId}`);

type State = Omit<LoginAttempts, 'version'>;

/** How long the lock after `lockouts` earlier locks in a row lasts: the base, doubled each time, at most a day. */
export function lockDuration(baseMinutes: number, lockouts: number): number {
  return Math.min(baseMinutes * 60 * 1000 * 2 ** Math.min(lockouts, 30), LOCK_CAP_MS);
}

/** Whether a counter is as good as absent: no lock in force and nothing for FORGET_AFTER_MS. */
export function forgotten(state: State, now: number): boolean {
  return now >= state.lockedUntil + FORGET_AFTER_MS && now >= state.lastFailureAt + FORGET_AFTER_MS;
}

/**
 * The counter after one more attempt (counted before its password is checked; a success clears it), or 'locked'
 * when a lock is in force and the attempt must be refused unchecked. The attempt that reaches `max` starts a lock;
 * after it expires the count starts again, and the next lock lasts twice as long.
 */
export function nextAttempt(current: State | undefined, now: number, max: number, baseMinutes: number): State | 'locked' {
  const state = current && !forgotten(current, now) ? current : undefined;
  if (state && state.lockedUntil > now) return 'locked';
  const lockouts = state?.lockouts ?? 0;
  const failures = (state && state.lockedUntil === 0 ? state.failures : 0) + 1;
  if (failures < max) return { failures, lockedUntil: 0, lockouts, lastFailureAt: now };
  return { failures, lockedUntil: now + lockDuration(baseMinutes, lockouts), lockouts: lockouts + 1, lastFailureAt: now };
}

/**
 * ServiceSettings.MaximumLoginAttempts, with locks that expire (LoginLockoutMinutes, doubling for each lock in a row).
 * Counters live in the database (login_attempts), written compare-and-set: parallel guesses are counted one by one,
 * so no more than the limit are ever checked, on one process or many.
 */
export class LoginLock {
  constructor(private readonly deps: Deps) {}

  /** Counts an attempt under `key` before its password is checked; false when locked (nothing counted). */
  async attempt(key: string): Promise<boolean> {
    const { stores, config } = this.deps;
    const { MaximumLoginAttempts: max, LoginLockoutMinutes: minutes } = config.get().ServiceSettings;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const current = await stores.users.getLoginAttempts(key);
      const next = nextAttempt(current, this.deps.now(), max, minutes);
      if (next === 'locked') return false;
      try {
        if (await stores.users.saveLoginAttempts(key, next, current?.version)) return true;
      } catch (err) {
        // Another attempt created the counter first: read it again.
        if (!isDatabaseError(err, 'duplicate')) throw err;
      }
    }
    return false;
  }

  /** A right password (or a new one) ends the count and any lock. */
  clear(key: string): Promise<void> {
    return this.deps.stores.users.clearLoginAttempts(key);
  }

  /** Deletes forgotten counters (housekeeping only: a forgotten counter already counts as absent). */
  purge(): Promise<number> {
    return this.deps.stores.users.purgeLoginAttempts(this.deps.now() - FORGET_AFTER_MS);
  }
}
