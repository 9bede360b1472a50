import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app';
import { readBody } from './body';
import { scrubSecret } from './logger';
import { writeOk } from './webhook-endpoint';
import { writeError } from './writer';

/** The response URL's id of a `/hooks/commands/{hook_id}` request URL. */
export function commandHookIdFromUrl(url: string): string {
  const id = url.slice('/hooks/commands/'.length).split('?')[0];
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}

/**
 * POST /hooks/commands/{hook_id}: a slash command's later reply (its response_url), served beside the API as
 * Mattermost serves it: a JSON CommandResponse or, for any other media type, the reply's text. "ok" once handled.
 */
export function createCommandWebhookEndpoint(app: App) {
  return async (req: IncomingMessage, res: ServerResponse, hookId: string, requestId: string): Promise<number> => {
    try {
      const body = await readBody(req, app.deps.config.get().ServiceSettings.MaximumPayloadSizeBytes);
      await app.commandExecution.delayed(hookId, req.headers['content-type'] ?? '', body);
      writeOk(res);
      return 200;
    } catch (err) {
      return writeError(res, scrubSecret(err, hookId), requestId, app.deps.config.get().ServiceSettings.EnableDeveloper).status_code;
    }
  };
}
