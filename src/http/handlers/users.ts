import { AppError, versioned } from '../../model';
import { clearedCookies, sessionCookies } from '../cookies';
import { authed, conditional, created, ok, paging, statusOk, type Handler } from '../operation';
import { nullItemsAsEmpty, withoutNulls } from '../nulls';
import { TeamInvitesService } from '../../app/team-invites';
import type { UploadPart } from '../../app/files';
import { readUploadForm, uploadRequestLimit } from '../upload-form';

/** A team invite (`iid`) or an e-mail invitation's token (`t`, never valid here) takes its own path, as in Mattermost. */
export const CreateUser: Handler<'CreateUser'> = async ({ body, query, session, app }) => {
  if (query.t) TeamInvitesService.refuseEmailToken();
  if (query.iid) return created(await app.teamInvites.signUp(withoutNulls(body), query.iid, session));
  return created(await app.users.create(withoutNulls(body), session));
};

const secureCookies = (app: { deps: { config: { get(): { ServiceSettings: { SiteURL: string } } } } }) =>
  app.deps.config.get().ServiceSettings.SiteURL.startsWith('https://');

/**
 * The token in the Token header; the session cookies too only for a browser login, one that sends
 * `X-Requested-With: XMLHttpRequest`, as Mattermost does. A script or bot whose HTTP client keeps cookies must not
 * come back cookie-authenticated (and be held to the CSRF rule meant for pages).
 */
export const Login: Handler<'Login'> = async ({ body, headers, app }) => {
  const { user, token, csrfToken, expiresAt } = await app.sessions.login(withoutNulls(body));
  if (headers['x-requested-with'] !== 'XMLHttpRequest') return ok(user, { headers: { Token: token } });
  const cookies = sessionCookies({ token, userId: user.id, csrfToken, expiresAt, now: app.deps.now(), secure: secureCookies(app) });
  return ok(user, { headers: { Token: token, 'Set-Cookie': cookies } });
};

export const Logout: Handler<'Logout'> = async ({ token, app }) => {
  await app.sessions.logout(token);
  return { ...statusOk(), headers: { 'Set-Cookie': clearedCookies(secureCookies(app)) } };
};

export const GetUser = authed<'GetUser'>(async ({ path, headers, session, app }) => {
  const { user, etag } = await app.users.get(path.user_id, session);
  return conditional(headers, versioned(user, etag));
});

export const GetUserByUsername = authed<'GetUserByUsername'>(async ({ path, headers, session, app }) => {
  const { user, etag } = await app.users.getByUsername(path.username, session);
  return conditional(headers, versioned(user, etag));
});

export const GetUsers = authed<'GetUsers'>(async ({ query, session, app }) =>
  ok(
    await app.users.list(
      {
        inTeam: query.in_team,
        notInTeam: query.not_in_team,
        inChannel: query.in_channel,
        notInChannel: query.not_in_channel,
        // `inactive=true` is Mattermost's other spelling of `active=false`.
        active: query.inactive === true ? false : query.active,
        withoutTeam: query.without_team === 'true' || query.without_team === '1',
        role: query.role || undefined,
        sort: query.sort === 'last_activity_at' || query.sort === 'create_at' ? query.sort : 'username',
        cursorId: query.cursor_id || undefined,
        ...paging(query),
      },
      session,
    ),
  ),
);

export const GetUsersByIds = authed<'GetUsersByIds'>(async ({ body, query, session, app }) => {
  if (!Array.isArray(body) || body.length === 0) throw AppError.invalidParam('user_ids');
  return ok(await app.users.getByIds(nullItemsAsEmpty(body), query.since, session));
});

export const PatchUser = authed<'PatchUser'>(async ({ path, body, session, app }) => ok(await app.users.patch(path.user_id, withoutNulls(body), session)));

export const CreateUserAccessToken = authed<'CreateUserAccessToken'>(async ({ path, body, session, app }) =>
  ok(await app.sessions.createAccessToken(path.user_id, withoutNulls(body), session)),
);

export const UpdatePassword = authed<'UpdatePassword'>(async ({ path, body, session, app }) => {
  await app.users.updatePassword(path.user_id, withoutNulls(body), session);
  return statusOk();
});

export const UpdateUserActive = authed<'UpdateUserActive'>(async ({ path, body, session, app }) => {
  await app.users.setActive(path.user_id, body.active, session);
  return statusOk();
});

/** Mattermost's DELETE deactivates (the account and its posts stay). */
export const DeleteUser = authed<'DeleteUser'>(async ({ path, session, app }) => {
  await app.users.setActive(path.user_id, false, session, 'edit_other_users');
  return statusOk();
});

export const GetUsersByUsernames = authed<'GetUsersByUsernames'>(async ({ body, session, app }) => {
  if (!Array.isArray(body) || body.length === 0) throw AppError.invalidParam('usernames');
  return ok(await app.users.getByUsernames(nullItemsAsEmpty(body), session));
});

export const UpdateUserRoles = authed<'UpdateUserRoles'>(async ({ path, body, session, app }) => {
  await app.users.updateRoles(path.user_id, body.roles, session);
  return statusOk();
});

export const AutocompleteUsers = authed<'AutocompleteUsers'>(async ({ query, session, app }) =>
  ok(await app.users.autocomplete({ inTeam: query.in_team ?? '', inChannel: query.in_channel ?? '', name: query.name ?? '', limit: query.limit ?? 0 }, session)),
);

/**
 * The picture as a PNG. Kept briefly by caches (it follows the username, which can change), and revalidated
 * cheaply by its ETag.
 */
const profileImage = async (userId: string, { app, headers }: Pick<Parameters<Handler<'GetProfileImage'>>[0], 'app' | 'headers'>) => {
  const { png, etag } = await app.users.profileImage(userId);
  return conditional(headers, versioned(png, etag), { headers: { 'Content-Type': 'image/png', 'Cache-Control': 'max-age=300, private' } });
};

/** The uploaded picture (kept a day: a new one has a new URL), else the generated one. */
export const GetProfileImage = authed<'GetProfileImage'>(async ({ path, headers, app }) => {
  const { image, maxAge } = await app.profileImages.get(path.user_id);
  return conditional(headers, image, { headers: { 'Content-Type': 'image/png', 'Cache-Control': `max-age=${maxAge}, private` } });
});

/**
 * The form is opened by the app once the caller may set the picture; a declared body past FileSettings.MaxFileSize
 * is refused before a byte is read (Mattermost's check of Content-Length).
 */
export const SetProfileImage = authed<'SetProfileImage'>(async ({ path, request, session, app }) => {
  let form: AsyncIterableIterator<UploadPart> | undefined;
  const open = () => {
    const maxFileSize = app.deps.config.get().FileSettings.MaxFileSize;
    if (Number(request.headers['content-length']) > maxFileSize) {
      throw new AppError('api.user.upload_profile_user.too_large.app_error', 'Unable to upload profile image. File is too large.', 413);
    }
    form = readUploadForm(request, uploadRequestLimit(maxFileSize));
    return form;
  };
  try {
    await app.profileImages.set(path.user_id, open, session);
    return statusOk();
  } finally {
    // Refused or failed before the end of the form: stop reading it and drop the rest.
    await form?.return?.();
  }
});

export const SetDefaultProfileImage = authed<'SetDefaultProfileImage'>(async ({ path, session, app }) => {
  await app.profileImages.reset(path.user_id, session);
  return statusOk();
});

export const GetDefaultProfileImage = authed<'GetDefaultProfileImage'>(async ({ path, ...input }) => profileImage(path.user_id, input));
