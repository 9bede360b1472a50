import { AppError } from '../../model';
import { authed, created, ok, paging, statusOk, type Handler } from '../operation';
import { withoutNulls } from '../nulls';

export const CreateIncomingWebhook = authed<'CreateIncomingWebhook'>(async ({ body, session, app }) =>
  created(await app.hooks.create(withoutNulls(body), session)),
);

export const GetIncomingWebhooks = authed<'GetIncomingWebhooks'>(async ({ query, session, app }) =>
  ok(await app.hooks.list({ teamId: query.team_id || undefined, ...paging(query), includeTotal: query.include_total_count === true }, session)),
);

export const GetIncomingWebhook = authed<'GetIncomingWebhook'>(async ({ path, session, app }) => ok(await app.hooks.get(path.hook_id, session)));

export const UpdateIncomingWebhook = authed<'UpdateIncomingWebhook'>(async ({ path, body, session, app }) =>
  ok(await app.hooks.update(path.hook_id, withoutNulls(body), session)),
);

export const RegenIncomingHookSigningSecret = authed<'RegenIncomingHookSigningSecret'>(async ({ path, session, app }) =>
  ok(await app.hooks.regenSigningSecret(path.hook_id, session)),
);

export const DeleteIncomingWebhook = authed<'DeleteIncomingWebhook'>(async ({ path, session, app }) => {
  await app.hooks.delete(path.hook_id, session);
  return statusOk();
});

/**
 * POST /hooks/{hook_id} is served by the dedicated endpoint in ../webhook-endpoint.ts (it decodes three body
 * encodings before validating, and is the hot path). The router never reaches this entry; it exists so the
 * operation map stays complete.
 */
export const ExecuteIncomingWebhook: Handler<'ExecuteIncomingWebhook'> = async () => {
  throw new AppError('api.context.internal.app_error', 'Webhook requests are served by the webhook endpoint.', 500);
};
