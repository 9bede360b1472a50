import { withoutNulls } from '../nulls';
import { authed, created, ok, paging, statusOk } from '../operation';

export const CreateOutgoingWebhook = authed<'CreateOutgoingWebhook'>(async ({ body, session, app }) =>
  created(await app.outgoingHooks.create(withoutNulls(body), session)),
);

export const GetOutgoingWebhooks = authed<'GetOutgoingWebhooks'>(async ({ query, session, app }) =>
  ok(await app.outgoingHooks.list({ teamId: query.team_id || undefined, channelId: query.channel_id || undefined, ...paging(query) }, session)),
);

export const GetOutgoingWebhook = authed<'GetOutgoingWebhook'>(async ({ path, session, app }) => ok(await app.outgoingHooks.get(path.hook_id, session)));

export const UpdateOutgoingWebhook = authed<'UpdateOutgoingWebhook'>(async ({ path, body, session, app }) =>
  ok(await app.outgoingHooks.update(path.hook_id, withoutNulls(body), session)),
);

export const DeleteOutgoingWebhook = authed<'DeleteOutgoingWebhook'>(async ({ path, session, app }) => {
  await app.outgoingHooks.delete(path.hook_id, session);
  return statusOk();
});

export const RegenOutgoingHookToken = authed<'RegenOutgoingHookToken'>(async ({ path, session, app }) => ok(await app.outgoingHooks.regenToken(path.hook_id, session)));

export const GetOutgoingWebhookDeliveries = authed<'GetOutgoingWebhookDeliveries'>(async ({ path, session, app }) =>
  ok(await app.outgoingHooks.deliveries(path.hook_id, session)),
);

export const RedeliverOutgoingWebhook = authed<'RedeliverOutgoingWebhook'>(async ({ path, session, app }) => {
  await app.outgoingHooks.redeliver(path.hook_id, path.delivery_id, session);
  return statusOk();
});
