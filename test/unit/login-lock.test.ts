// The login lock's rule (counts, expiring and doubling locks, forgetting) and the rate limiter's forwarded address:
// table-driven, exact expected values.
import { FORGET_AFTER_MS, LOCK_CAP_MS, accountKey, forgotten, lockDuration, loginIdKey, nextAttempt, sessionKey } from '../../src/app/login-lock';
import { forwardedFor } from '../../src/http/rate-limits';

const MIN = 60 * 1000;
const T = 1_700_000_000_000;
const state = (failures: number, lockedUntil = 0, lockouts = 0, lastFailureAt = T) => ({ failures, lockedUntil, lockouts, lastFailureAt });

describe('nextAttempt (max 3, 15 minutes)', () => {
  test.each<[string, ReturnType<typeof state> | undefined, number, ReturnType<typeof nextAttempt>]>([
    ['no counter: the first failure', undefined, T, state(1, 0, 0, T)],
    ['counted', state(1), T + 1, state(2, 0, 0, T + 1)],
    ['the attempt that reaches the limit is checked and starts a 15 minute lock', state(2), T + 1, state(3, T + 1 + 15 * MIN, 1, T + 1)],
    ['locked: refused, nothing counted', state(3, T + 15 * MIN, 1), T + 15 * MIN - 1, 'locked'],
    ['lock over: a new count, the lock count kept', state(3, T + 15 * MIN, 1), T + 15 * MIN, state(1, 0, 1, T + 15 * MIN)],
    ['the next lock lasts twice as long', state(2, 0, 1), T, state(3, T + 30 * MIN, 2, T)],
    ['the fourth in a row: 2 hours', state(2, 0, 3), T, state(3, T + 120 * MIN, 4, T)],
    ['never more than a day', state(2, 0, 40), T, state(3, T + LOCK_CAP_MS, 41, T)],
    ['a day without failures or lock: forgotten, a fresh start', state(2, 0, 5, T), T + FORGET_AFTER_MS, state(1, 0, 0, T + FORGET_AFTER_MS)],
    ['a day after the lock ended (not after the failure): forgotten', state(3, T + 2 * MIN, 1, T), T + 2 * MIN + FORGET_AFTER_MS, state(1, 0, 0, T + 2 * MIN + FORGET_AFTER_MS)],
    ['just under a day after the lock: remembered', state(3, T + 2 * MIN, 1, T), T + 2 * MIN + FORGET_AFTER_MS - 1, state(1, 0, 1, T + 2 * MIN + FORGET_AFTER_MS - 1)],
  ])('%s', (_name, current, now, want) => {
    expect(nextAttempt(current, now, 3, 15)).toEqual(want);
  });

  test('a limit lowered below the count locks at the next attempt, which is still checked', () => {
    expect(nextAttempt(state(5), T, 3, 15)).toEqual(state(6, T + 15 * MIN, 1, T));
  });
});

describe('lockDuration and forgotten', () => {
  test.each<[number, number, number]>([
    [15, 0, 15 * MIN],
    [15, 1, 30 * MIN],
    [15, 6, 960 * MIN],
    [15, 7, LOCK_CAP_MS],
    [1440, 0, LOCK_CAP_MS],
    [1, 1000, LOCK_CAP_MS],
  ])('%i minutes after %i locks: %i ms', (minutes, lockouts, want) => {
    expect(lockDuration(minutes, lockouts)).toBe(want);
  });

  test('a counter is forgotten a day after its last failure and the end of its lock, whichever is later', () => {
    expect(forgotten(state(2, 0, 0, T), T + FORGET_AFTER_MS - 1)).toBe(false);
    expect(forgotten(state(2, 0, 0, T), T + FORGET_AFTER_MS)).toBe(true);
    expect(forgotten(state(3, T + LOCK_CAP_MS, 8, T), T + FORGET_AFTER_MS)).toBe(false);
  });
});

describe('counter keys', () => {
  test('an account, a login id and a session never share a key; login ids ignore letter case', () => {
    const id = 'abcdefghijklmnopqrstuvwxyz';
    expect(new Set([accountKey(id), loginIdKey(id), sessionKey(id)]).size).toBe(3);
    expect(loginIdKey('Ghost@Corp.Example')).toBe(loginIdKey('ghost@corp.example'));
    expect(accountKey(id)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('forwardedFor', () => {
  test.each<[string, number, string]>([
    ['', 1, ''],
    ['203.0.113.9', 1, '203.0.113.9'],
    ['10.9.9.1, 192.0.2.1', 1, '192.0.2.1'],
    ['10.9.9.1,192.0.2.1', 1, '192.0.2.1'],
    ['spoof, 198.51.100.7, 10.0.0.1', 2, '198.51.100.7'],
    ['only-one', 3, 'only-one'],
    ['a, b, c', 3, 'a'],
  ])('%j with %i trusted hops: %j', (header, hops, want) => {
    expect(forwardedFor(header, hops)).toBe(want);
  });
});
