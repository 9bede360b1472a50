import { versioned } from '../../model';
import { withoutNulls } from '../nulls';
import { authed, conditional, created, ok, paging } from '../operation';

export const CreateBot = authed<'CreateBot'>(async ({ body, session, app }) => created(await app.bots.create(withoutNulls(body), session)));

export const GetBots = authed<'GetBots'>(async ({ query, headers, session, app }) => {
  const { bots, etag } = await app.bots.list({ includeDeleted: query.include_deleted === true, onlyOrphaned: query.only_orphaned === true, ...paging(query) }, session);
  return conditional(headers, versioned(bots, etag));
});

export const GetBot = authed<'GetBot'>(async ({ path, query, headers, session, app }) => {
  const { bot, etag } = await app.bots.get(path.bot_user_id, query.include_deleted === true, session);
  return conditional(headers, versioned(bot, etag));
});

export const PatchBot = authed<'PatchBot'>(async ({ path, body, session, app }) => ok(await app.bots.patch(path.bot_user_id, withoutNulls(body), session)));

export const DisableBot = authed<'DisableBot'>(async ({ path, session, app }) => ok(await app.bots.setActive(path.bot_user_id, false, session)));

export const EnableBot = authed<'EnableBot'>(async ({ path, session, app }) => ok(await app.bots.setActive(path.bot_user_id, true, session)));

export const AssignBot = authed<'AssignBot'>(async ({ path, session, app }) => ok(await app.bots.assign(path.bot_user_id, path.user_id, session)));

export const ConvertBotToUser = authed<'ConvertBotToUser'>(async ({ path, query, body, session, app }) =>
  ok(await app.bots.convertToUser(path.bot_user_id, withoutNulls(body), query.set_system_admin === true, session)),
);

export const ConvertUserToBot = authed<'ConvertUserToBot'>(async ({ path, session, app }) => ok(await app.bots.convertFromUser(path.user_id, session)));
