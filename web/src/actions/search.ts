import { errorText } from '../error-text';
import { postRest } from '../post-api';
import { appStore } from '../state/app-store';
import { ensureUsers } from './users';

/**
 * Searching the team's posts (SearchPosts: the server parses Mattermost's syntax), the results shown in the
 * right-hand panel. A newer search replaces an older one still running.
 */

const PER_PAGE = 20;
let generation = 0;

/** The caller's time zone in seconds east of UTC, for the days of `on:`/`before:`/`after:`. */
function timeZoneOffset(): number {
  return -new Date().getTimezoneOffset() * 60;
}

export async function search(terms: string): Promise<void> {
  const state = appStore.get();
  const teamId = state.currentTeamId;
  const trimmed = terms.trim();
  if (!teamId || !trimmed) return;
  const mine = ++generation;
  appStore.set({ rhs: { kind: 'search' }, search: { terms: trimmed, teamId, status: 'loading', order: [], posts: {}, hasNext: false, page: 0 } });
  try {
    const found = await postRest.search(teamId, trimmed, timeZoneOffset(), 0, PER_PAGE);
    await ensureUsers(Object.values(found.posts).map((p) => p.user_id));
    if (mine !== generation) return;
    appStore.set({ search: { terms: trimmed, teamId, status: 'done', order: found.order, posts: found.posts, hasNext: found.has_next === true, page: 0 } });
  } catch (err) {
    if (mine !== generation) return;
    appStore.set({ search: { terms: trimmed, teamId, status: 'error', error: errorText(err), order: [], posts: {}, hasNext: false, page: 0 } });
  }
}

export async function searchMore(): Promise<void> {
  const current = appStore.get().search;
  if (!current || current.status !== 'done' || !current.hasNext || current.loadingMore) return;
  const mine = generation;
  appStore.set({ search: { ...current, loadingMore: true } });
  try {
    const found = await postRest.search(current.teamId, current.terms, timeZoneOffset(), current.page + 1, PER_PAGE);
    await ensureUsers(Object.values(found.posts).map((p) => p.user_id));
    if (mine !== generation) return;
    const s = appStore.get().search ?? current;
    const order = [...s.order, ...found.order.filter((id) => !s.posts[id])];
    appStore.set({ search: { ...s, order, posts: { ...s.posts, ...found.posts }, hasNext: found.has_next === true, page: s.page + 1, loadingMore: false } });
  } catch (err) {
    if (mine !== generation) return;
    const s = appStore.get().search ?? current;
    appStore.set({ search: { ...s, loadingMore: false, error: errorText(err) } });
  }
}
