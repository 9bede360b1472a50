import { authed, ok } from '../operation';

export const GetRole = authed<'GetRole'>(async ({ path, app }) => ok(app.roles.byId(path.role_id)));

export const GetRoleByName = authed<'GetRoleByName'>(async ({ path, app }) => ok(app.roles.byName(path.role_name)));

export const GetRolesByNames = authed<'GetRolesByNames'>(async ({ body, app }) => ok(app.roles.byNames(body)));
