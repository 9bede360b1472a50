import type { AppState } from './app-state';

/**
 * A holder of one AppState value: read it, replace parts of it, hear of changes. Listeners are told once per
 * microtask however many changes were made in it (a burst of WebSocket events re-renders once).
 */
export interface Store {
  get(): AppState;
  set(patch: Partial<AppState> | ((s: AppState) => Partial<AppState>)): void;
  /** Replaces the whole value (sign-out). */
  replace(next: AppState): void;
  subscribe(listener: () => void): () => void;
}

export function createStore(initial: AppState): Store {
  let state = initial;
  const listeners = new Set<() => void>();
  let notifyQueued = false;
  const notify = () => {
    if (notifyQueued) return;
    notifyQueued = true;
    queueMicrotask(() => {
      notifyQueued = false;
      for (const l of [...listeners]) l();
    });
  };
  return {
    get: () => state,
    set(patch) {
      state = { ...state, ...(typeof patch === 'function' ? patch(state) : patch) };
      notify();
    },
    replace(next) {
      state = next;
      notify();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
