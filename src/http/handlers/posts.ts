import { nullItemsAsEmpty, withoutTopLevelNulls } from '../nulls';
import { authed, conditional, created, ok, paging, statusOk } from '../operation';

export const CreatePost = authed<'CreatePost'>(async ({ body, session, app }) => created(await app.posts.create(withoutTopLevelNulls(body), session)));

export const GetPost = authed<'GetPost'>(async ({ path, query, session, app }) =>
  ok(await app.posts.get(path.post_id, query.include_deleted === true, session)),
);

/** ETag first: an unchanged channel answers 304 without reading a page of posts. */
export const GetPostsForChannel = authed<'GetPostsForChannel'>(async ({ path, query, headers, session, app }) => {
  const { page, perPage } = paging(query);
  const q = {
    page,
    perPage,
    since: query.since,
    before: query.before || undefined,
    after: query.after || undefined,
    includeDeleted: query.include_deleted === true,
    fetchThreads: query.skipFetchThreads !== true,
    collapsedThreads: query.collapsedThreads === true,
    collapsedThreadsExtended: query.collapsedThreadsExtended === true,
  };
  return conditional(headers, await app.posts.forChannel(path.channel_id, q, session));
});

export const PatchPost = authed<'PatchPost'>(async ({ path, body, session, app }) => ok(await app.posts.patch(path.post_id, withoutTopLevelNulls(body), session)));

export const DeletePost = authed<'DeletePost'>(async ({ path, session, app }) => {
  await app.posts.delete(path.post_id, session);
  return statusOk();
});

export const GetPostThread = authed<'GetPostThread'>(async ({ path, query, session, app }) =>
  ok(
    await app.posts.thread(
      path.post_id,
      {
        perPage: query.perPage ?? 0,
        fromCreateAt: query.fromCreateAt ?? 0,
        fromPost: query.fromPost ?? '',
        direction: query.direction ?? '',
        skipFetchThreads: query.skipFetchThreads === true,
        collapsedThreads: query.collapsedThreads === true,
        collapsedThreadsExtended: query.collapsedThreadsExtended === true,
      },
      session,
    ),
  ),
);

export const UpdatePost = authed<'UpdatePost'>(async ({ path, body, session, app }) => ok(await app.posts.update(path.post_id, withoutTopLevelNulls(body), session)));

export const PinPost = authed<'PinPost'>(async ({ path, session, app }) => {
  await app.posts.setPinned(path.post_id, true, session);
  return statusOk();
});

export const UnpinPost = authed<'UnpinPost'>(async ({ path, session, app }) => {
  await app.posts.setPinned(path.post_id, false, session);
  return statusOk();
});

/** ETag first, as for a channel's pages: an unchanged channel answers 304 without reading its pinned posts. */
export const GetPinnedPosts = authed<'GetPinnedPosts'>(async ({ path, headers, session, app }) => {
  const etag = await app.posts.channelEtag(path.channel_id, session, 'pinned');
  return conditional(headers, { etag, build: () => app.posts.pinned(path.channel_id, session) });
});

export const GetPostsByIds = authed<'GetPostsByIds'>(async ({ body, session, app }) =>
  ok(await app.posts.byIds(nullItemsAsEmpty(body), session), { headers: { 'First-Inaccessible-Post-Time': '0' } }),
);

export const GetFlaggedPostsForUser = authed<'GetFlaggedPostsForUser'>(async ({ path, query, session, app }) => {
  const { page, perPage } = paging(query);
  return ok(await app.preferences.flagged(path.user_id, { channelId: query.channel_id, teamId: query.team_id }, page, perPage, session));
});

/** Mattermost's limit_before/limit_after: 60 by default (and for negative values), at most 200. */
const unreadLimit = (value: number | undefined) => (value === undefined || value < 0 ? 60 : Math.min(value, 200));

/** The posts around the first unread one; when nothing is unread, the latest page with its ETag (304 when unchanged). */
export const GetPostsAroundLastUnread = authed<'GetPostsAroundLastUnread'>(async ({ path, query, headers, session, app }) => {
  const q = {
    limitBefore: unreadLimit(query.limit_before),
    limitAfter: unreadLimit(query.limit_after),
    fetchThreads: query.skipFetchThreads !== true,
    collapsedThreads: query.collapsedThreads === true,
    collapsedThreadsExtended: query.collapsedThreadsExtended === true,
  };
  return conditional(headers, await app.posts.aroundLastUnread(path.user_id, path.channel_id, q, session));
});
