import { api, ApiError, call, rest } from '../api';
import { appStore } from '../state/app-store';
import type { ConfigObject } from '../console-settings';
import { errorText } from '../error-text';

/** The system console's calls: the server's config (GetConfig), and a page's changes (PatchConfig). */

export type ConsoleResult = { ok: true; config: ConfigObject } | { ok: false; id: string; message: string; status: number };

function failure(err: unknown): ConsoleResult {
  return err instanceof ApiError ? { ok: false, id: err.id, message: err.message, status: err.status } : { ok: false, id: '', message: errorText(err), status: 0 };
}

export async function loadConfig(): Promise<ConsoleResult> {
  try {
    return { ok: true, config: (await call(api.GET('/api/v4/config'))) as unknown as ConfigObject };
  } catch (err) {
    return failure(err);
  }
}

export async function saveConfig(patch: ConfigObject): Promise<ConsoleResult> {
  try {
    // The body is typed as the spec's Config; a value typed into a number field that is not a number goes as typed,
    // for the server's validation to answer.
    const body = patch as never;
    const config = (await call(api.PUT('/api/v4/config/patch', { body }))) as unknown as ConfigObject;
    // What the page itself shows (site name in titles, sign-up options) follows at once; config_changed follows too.
    void rest.clientConfig().then((c) => appStore.set({ config: c }), () => undefined);
    return { ok: true, config };
  } catch (err) {
    return failure(err);
  }
}
