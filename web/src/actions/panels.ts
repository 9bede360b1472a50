import { ApiError, rest } from '../api';
import { mergeThread } from '../post-store';
import { appStore } from '../state/app-store';
import { ensureUsers } from './users';

/** The right-hand panel: a thread, or a webhook post's card. */

export function openThread(rootId: string): void {
  appStore.set({ rhs: { kind: 'thread', rootId } });
  void loadThread(rootId);
}

export async function loadThread(rootId: string): Promise<void> {
  try {
    const list = await rest.thread(rootId);
    await ensureUsers(Object.values(list.posts).map((p) => p.user_id));
    appStore.set((s) => ({ posts: mergeThread(s.posts, rootId, Object.values(list.posts)) }));
  } catch (err) {
    const rhs = appStore.get().rhs;
    if (err instanceof ApiError && err.status === 404 && rhs?.kind === 'thread' && rhs.rootId === rootId) closeRhs();
  }
}

export function openCard(postId: string): void {
  appStore.set({ rhs: { kind: 'card', postId } });
}

export function closeRhs(): void {
  appStore.set({ rhs: undefined });
}
