import { AppError } from '../../model';
import { withoutNulls } from '../nulls';
import { authed, created, ok, statusOk, type Handler } from '../operation';

export const CreateCommand = authed<'CreateCommand'>(async ({ body, session, app }) => created(await app.commands.create(withoutNulls(body), session)));

export const ListCommands = authed<'ListCommands'>(async ({ query, session, app }) => ok(await app.commands.list(query.team_id, query.custom_only === true, session)));

export const GetCommandById = authed<'GetCommandById'>(async ({ path, session, app }) => ok(await app.commands.get(path.command_id, session)));

export const UpdateCommand = authed<'UpdateCommand'>(async ({ path, body, session, app }) => ok(await app.commands.update(path.command_id, withoutNulls(body), session)));

export const MoveCommand = authed<'MoveCommand'>(async ({ path, body, session, app }) => {
  await app.commands.move(path.command_id, body.team_id ?? '', session);
  return statusOk();
});

export const DeleteCommand = authed<'DeleteCommand'>(async ({ path, session, app }) => {
  await app.commands.delete(path.command_id, session);
  return statusOk();
});

export const RegenCommandToken = authed<'RegenCommandToken'>(async ({ path, session, app }) => ok({ token: await app.commands.regenToken(path.command_id, session) }));

export const GetCommandDeliveries = authed<'GetCommandDeliveries'>(async ({ path, session, app }) => ok(await app.commands.deliveries(path.command_id, session)));

export const ExecuteCommand = authed<'ExecuteCommand'>(async ({ body, session, app }) => ok(await app.commandExecution.execute(withoutNulls(body), session)));

export const ListAutocompleteCommands = authed<'ListAutocompleteCommands'>(async ({ path, session, app }) => ok(await app.commands.autocomplete(path.team_id, session)));

export const ListCommandAutocompleteSuggestions = authed<'ListCommandAutocompleteSuggestions'>(async ({ path, query, session, app }) =>
  ok(await app.commands.suggestions(path.team_id, query.user_input, session)),
);

/**
 * POST /hooks/commands/{hook_id} is served beside the API by ../command-webhook-endpoint.ts (its body is JSON or plain
 * text, which the API stage does not take). The router never reaches this entry; it keeps the operation map complete.
 */
export const ExecuteCommandWebhook: Handler<'ExecuteCommandWebhook'> = async () => {
  throw new AppError('api.context.internal.app_error', 'Command responses are served by the command webhook endpoint.', 500);
};
