import { authed, ok, paging, statusOk } from '../operation';

export const GetSessions = authed<'GetSessions'>(async ({ path, session, app }) => ok(await app.sessions.list(path.user_id, session)));

export const RevokeSession = authed<'RevokeSession'>(async ({ path, body, session, app }) => {
  await app.sessions.revoke(path.user_id, body.session_id, session);
  return statusOk();
});

export const RevokeAllSessionsForUser = authed<'RevokeAllSessionsForUser'>(async ({ path, session, app }) => {
  await app.sessions.revokeAll(path.user_id, session);
  return statusOk();
});

export const GetUserAccessTokensForUser = authed<'GetUserAccessTokensForUser'>(async ({ path, query, session, app }) => {
  const { page, perPage } = paging(query);
  return ok(await app.sessions.listAccessTokens(path.user_id, page, perPage, session));
});

export const GetUserAccessToken = authed<'GetUserAccessToken'>(async ({ path, session, app }) => ok(await app.sessions.getAccessToken(path.token_id, session)));

export const RevokeUserAccessToken = authed<'RevokeUserAccessToken'>(async ({ body, session, app }) => {
  await app.sessions.revokeAccessToken(body.token_id, session);
  return statusOk();
});

export const DisableUserAccessToken = authed<'DisableUserAccessToken'>(async ({ body, session, app }) => {
  await app.sessions.setAccessTokenActive(body.token_id, false, session);
  return statusOk();
});

export const EnableUserAccessToken = authed<'EnableUserAccessToken'>(async ({ body, session, app }) => {
  await app.sessions.setAccessTokenActive(body.token_id, true, session);
  return statusOk();
});
