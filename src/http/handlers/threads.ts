import { authed, ok, statusOk } from '../operation';

export const GetUserThreads = authed<'GetUserThreads'>(async ({ path, query, session, app }) =>
  ok(
    await app.threads.list(
      path.user_id,
      path.team_id,
      {
        before: query.before,
        after: query.after,
        perPage: query.per_page,
        extended: query.extended,
        deleted: query.deleted,
        unread: query.unread,
        since: query.since,
        totalsOnly: query.totalsOnly,
        threadsOnly: query.threadsOnly,
      },
      session,
    ),
  ),
);

export const GetUserThread = authed<'GetUserThread'>(async ({ path, query, session, app }) =>
  ok(await app.threads.get(path.user_id, path.thread_id, query.extended === true, session)),
);

export const StartFollowingThread = authed<'StartFollowingThread'>(async ({ path, session, app }) => {
  await app.threads.setFollowing(path.user_id, path.team_id, path.thread_id, true, session);
  return statusOk();
});

export const StopFollowingThread = authed<'StopFollowingThread'>(async ({ path, session, app }) => {
  await app.threads.setFollowing(path.user_id, path.team_id, path.thread_id, false, session);
  return statusOk();
});

export const UpdateThreadReadForUser = authed<'UpdateThreadReadForUser'>(async ({ path, session, app }) =>
  ok(await app.threads.readUntil(path.user_id, path.team_id, path.thread_id, path.timestamp, session)),
);

export const SetThreadUnreadByPostId = authed<'SetThreadUnreadByPostId'>(async ({ path, session, app }) =>
  ok(await app.threads.unreadFrom(path.user_id, path.team_id, path.thread_id, path.post_id, session)),
);

export const UpdateThreadsReadForUser = authed<'UpdateThreadsReadForUser'>(async ({ path, session, app }) => {
  await app.threads.readAll(path.user_id, path.team_id, session);
  return statusOk();
});
