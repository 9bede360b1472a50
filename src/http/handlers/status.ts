import { authed, ok } from '../operation';
import { withoutNulls } from '../nulls';

export const GetUserStatus = authed<'GetUserStatus'>(async ({ path, app }) => ok(await app.status.get(path.user_id)));

export const GetUsersStatusesByIds = authed<'GetUsersStatusesByIds'>(async ({ body, app }) => ok(await app.status.getMany(body)));

export const UpdateUserStatus = authed<'UpdateUserStatus'>(async ({ path, body, session, app }) => ok(await app.status.update(path.user_id, withoutNulls(body), session)));
