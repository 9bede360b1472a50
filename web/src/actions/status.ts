import { api, call } from '../api';
import { errorText } from '../error-text';
import { appStore } from '../state/app-store';
import type { StatusValue } from '../state/reactions-state';

/**
 * Presence, as Mattermost's web app keeps it: the user's own status from GetUserStatus and `status_change` (which the
 * server sends to that user only), everyone else's by GetUsersStatusesByIds for the users shown on the page, asked for
 * in one batch when they appear and again every minute (Mattermost's STATUS_INTERVAL).
 */

export const STATUS_INTERVAL_MS = 60_000;
/** At most this many users are polled (the most recently shown). */
const MAX_WATCHED = 200;

const watched = new Set<string>();
let pending = new Set<string>();
let flushQueued = false;
let poll: ReturnType<typeof setInterval> | undefined;
let sessionUser = '';

const STATUSES: readonly string[] = ['online', 'away', 'dnd', 'offline'];
const isStatus = (v: unknown): v is StatusValue => typeof v === 'string' && STATUSES.includes(v);

export function receivedStatuses(map: Record<string, unknown>): void {
  appStore.set((s) => {
    let byUser = s.statuses.byUser;
    for (const [id, value] of Object.entries(map)) {
      if (!isStatus(value) || byUser[id] === value) continue;
      if (byUser === s.statuses.byUser) byUser = { ...byUser };
      byUser[id] = value;
    }
    return byUser === s.statuses.byUser ? {} : { statuses: { ...s.statuses, byUser } };
  });
}

async function fetchStatuses(ids: string[]): Promise<void> {
  if (ids.length === 0 || !appStore.get().me) return;
  try {
    const list = await call(api.POST('/api/v4/users/status/ids', { body: ids }));
    receivedStatuses(Object.fromEntries(list.map((st) => [st.user_id, st.status])));
  } catch {
    // The next poll asks again.
  }
}

function resetForSession(meId: string): void {
  if (sessionUser === meId) return;
  sessionUser = meId;
  watched.clear();
  pending = new Set();
  if (poll) clearInterval(poll);
  poll = undefined;
}

/** The page shows these users (avatars with a status dot): their statuses are fetched in the next batch and polled. */
export function watchStatuses(ids: string[]): void {
  const me = appStore.get().me;
  if (!me) return;
  resetForSession(me.id);
  for (const id of ids) {
    if (!id || id === me.id) continue;
    if (watched.has(id)) {
      // Most recently shown last: the oldest are dropped first.
      watched.delete(id);
      watched.add(id);
      continue;
    }
    watched.add(id);
    pending.add(id);
  }
  while (watched.size > MAX_WATCHED) watched.delete(watched.values().next().value as string);
  if (pending.size && !flushQueued) {
    flushQueued = true;
    // One request for every avatar rendered in the same moment (a page of posts, the sidebar).
    setTimeout(() => {
      flushQueued = false;
      const batch = [...pending];
      pending = new Set();
      void fetchStatuses(batch);
    }, 50);
  }
  if (!poll) {
    poll = setInterval(() => {
      const current = appStore.get().me;
      if (!current || current.id !== sessionUser) return resetForSession(current?.id ?? '');
      void fetchStatuses([...watched]);
    }, STATUS_INTERVAL_MS);
  }
}

/** The user's own status (at sign-in and after a reconnect). */
export async function loadMyStatus(): Promise<void> {
  const me = appStore.get().me;
  if (!me) return;
  try {
    const st = await call(api.GET('/api/v4/users/{user_id}/status', { params: { path: { user_id: me.id } } }));
    ownStatus(st.status, st.dnd_end_time);
  } catch {
    // Shown without a status until the next change.
  }
}

function ownStatus(status: string, dndEndTime: number | undefined): void {
  const me = appStore.get().me;
  if (!me || !isStatus(status)) return;
  appStore.set((s) => ({ statuses: { byUser: { ...s.statuses.byUser, [me.id]: status }, dndEndTime: status === 'dnd' ? dndEndTime ?? s.statuses.dndEndTime : 0 } }));
}

/** status_change: the server tells the user of their own status (another tab, a dnd that ended, away after idling). */
export function statusChanged(userId: string, status: string): void {
  const me = appStore.get().me;
  if (me && userId === me.id) {
    // A status_change says nothing of the dnd end: kept while dnd, else cleared.
    ownStatus(status, undefined);
    if (status === 'dnd') void loadMyStatus();
  } else receivedStatuses({ [userId]: status });
}

/** UpdateUserStatus; `dndEndTime` in Unix seconds (0: until changed). Resolves with an error message, or undefined. */
export async function setMyStatus(status: StatusValue, dndEndTime = 0): Promise<string | undefined> {
  const me = appStore.get().me;
  if (!me) return undefined;
  try {
    const body = status === 'dnd' ? { user_id: me.id, status, dnd_end_time: dndEndTime } : { user_id: me.id, status };
    const st = await call(api.PUT('/api/v4/users/{user_id}/status', { params: { path: { user_id: me.id } }, body }));
    ownStatus(st.status, st.dnd_end_time);
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

/** The end times Mattermost's "Do not disturb" menu offers, in Unix seconds, from `now` (ms, local time). */
export function dndEndFor(choice: 'never' | '30m' | '1h' | '2h' | 'tomorrow', now = Date.now()): number {
  const at = (ms: number) => Math.floor(ms / 1000);
  switch (choice) {
    case 'never':
      return 0;
    case '30m':
      return at(now + 30 * 60_000);
    case '1h':
      return at(now + 60 * 60_000);
    case '2h':
      return at(now + 120 * 60_000);
    case 'tomorrow': {
      // Tomorrow at 9:00 local time, as Mattermost's web app.
      const d = new Date(now);
      d.setDate(d.getDate() + 1);
      d.setHours(9, 0, 0, 0);
      return at(d.getTime());
    }
  }
}
