import { rest } from '../api';
import { appStore } from '../state/app-store';

/** Users the client has asked the server for; a failed batch is forgotten so the next need asks again. */
const requestedUsers = new Set<string>();
let userBatch: string[] = [];
let userBatchPromise: Promise<void> | null = null;

/** Loads the users not held yet, in one request per tick; resolves when they are there (or failed). */
export function ensureUsers(ids: Iterable<string>): Promise<void> {
  const held = appStore.get().users;
  const missing = [...new Set(ids)].filter((id) => id && !held[id] && !requestedUsers.has(id));
  if (missing.length === 0) return userBatchPromise ?? Promise.resolve();
  for (const id of missing) requestedUsers.add(id);
  userBatch.push(...missing);
  if (!userBatchPromise) {
    userBatchPromise = Promise.resolve().then(async () => {
      const batch = userBatch;
      userBatch = [];
      userBatchPromise = null;
      try {
        const users = await rest.usersByIds(batch);
        appStore.set((s) => {
          const all = { ...s.users };
          for (const u of users) all[u.id] = u;
          return { users: all };
        });
      } catch {
        for (const id of batch) requestedUsers.delete(id);
      }
    });
  }
  return userBatchPromise;
}

/** Sign-out: the next account asks for everyone afresh. */
export function forgetRequestedUsers(): void {
  requestedUsers.clear();
}
