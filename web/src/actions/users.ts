import { rest } from '../api';
import { appStore } from '../state/app-store';

/** Users the client has asked the server for; a failed batch is forgotten so the next need asks again. */
const requestedUsers = new Set<string>();
/** Ids of a batch not answered yet → that batch: a second caller needing them waits for it too. */
const usersInFlight = new Map<string, Promise<void>>();
let userBatch: string[] = [];
let userBatchPromise: Promise<void> | null = null;

/** Loads the users not held yet, in one request per tick; resolves when they are there (or failed). */
export function ensureUsers(ids: Iterable<string>): Promise<void> {
  const held = appStore.get().users;
  const wanted = [...new Set(ids)].filter((id) => id && !held[id]);
  const missing = wanted.filter((id) => !requestedUsers.has(id));
  for (const id of missing) requestedUsers.add(id);
  userBatch.push(...missing);
  if (missing.length && !userBatchPromise) {
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
      } finally {
        for (const id of batch) usersInFlight.delete(id);
      }
    });
  }
  if (userBatchPromise) for (const id of missing) usersInFlight.set(id, userBatchPromise);
  const waits = new Set(wanted.map((id) => usersInFlight.get(id)).filter((p): p is Promise<void> => p !== undefined));
  return Promise.all(waits).then(() => undefined);
}

/** Sign-out: the next account asks for everyone afresh. */
export function forgetRequestedUsers(): void {
  requestedUsers.clear();
}
