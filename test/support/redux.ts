// mattermost-redux, the data layer of Mattermost's own web app, driven from Node against a running server: its real
// store, reducers, thunks and Client4, unchanged. Client4 there is a module singleton, so one signed-in user at a
// time per test file. Every request it makes is recorded on the way through the global fetch (the call still goes
// to the real server), so a suite can assert that nothing was answered 404 or 5xx.
import { Client4 } from 'mattermost-redux/client';
import configureStore from 'mattermost-redux/store';
import type { Store } from 'redux';

export interface RecordedRequest {
  method: string;
  path: string;
  status: number;
}

export interface ReduxClient {
  store: Store;
  /** Dispatches a mattermost-redux action (thunks included) and returns what it resolves to. */
  dispatch<T = any>(action: unknown): Promise<T>;
  state(): any;
  requests: RecordedRequest[];
  /** Every recorded request answered 404 or 5xx: what the web app would miss. */
  failures(): RecordedRequest[];
  /**
   * Waits (at most 5 s) for an answer to `method` on a path starting with `pathStart`: several actions update the
   * store at once and call the server without awaiting it (createPost, savePreferences), as the web app expects.
   */
  answered(method: string, pathStart: string): Promise<RecordedRequest>;
  close(): void;
}

/** Signs `loginId` in the way the web app does (Client4.login, then the session token on every request). */
export async function reduxClientFor(server: { url: string }, loginId: string, password: string): Promise<ReduxClient> {
  const requests: RecordedRequest[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (input: any, init?: any) => {
    const response = await realFetch(input, init);
    const url = new URL(typeof input === 'string' ? input : input.url);
    requests.push({ method: (init?.method ?? 'GET').toUpperCase(), path: url.pathname + url.search, status: response.status });
    return response;
  }) as typeof fetch;

  Client4.setUrl(server.url);
  Client4.setToken('');
  // Node has no cookie jar; the web app in a browser would also send the cookies a browser login sets.
  Client4.setIncludeCookies(false);
  await Client4.login(loginId, password);

  const store = configureStore({ appReducers: {}, getAppReducers: () => ({}), preloadedState: {} });
  return {
    store,
    dispatch: async (action) => (store.dispatch as any)(action),
    state: () => store.getState(),
    requests,
    failures: () => requests.filter((r) => r.status === 404 || r.status >= 500),
    answered: async (method, pathStart) => {
      for (let i = 0; ; i++) {
        const found = requests.find((r) => r.method === method && r.path.startsWith(pathStart));
        if (found) return found;
        if (i >= 500) throw new Error(`no answer to ${method} ${pathStart} within 5 s`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: () => {
      globalThis.fetch = realFetch;
    },
  };
}
