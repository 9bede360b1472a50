import { authed, created, notModified, ok, paging, statusOk } from '../operation';

export const CreatePost = authed<'CreatePost'>(async ({ body, session, app }) => created(await app.posts.create(body, session)));

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
  };
  const useEtag = q.since === undefined;
  const etag = useEtag ? await app.posts.channelEtag(path.channel_id, session, JSON.stringify(q)) : undefined;
  if (etag && headers['if-none-match'] === etag) return notModified(etag);
  return ok(await app.posts.forChannel(path.channel_id, q, session), { etag });
});

export const PatchPost = authed<'PatchPost'>(async ({ path, body, session, app }) => ok(await app.posts.patch(path.post_id, body, session)));

export const DeletePost = authed<'DeletePost'>(async ({ path, session, app }) => {
  await app.posts.delete(path.post_id, session);
  return statusOk();
});

export const GetPostThread = authed<'GetPostThread'>(async ({ path, query, session, app }) =>
  ok(
    await app.posts.thread(
      path.post_id,
      { perPage: query.perPage ?? 0, fromCreateAt: query.fromCreateAt ?? 0, fromPost: query.fromPost ?? '', direction: query.direction ?? '' },
      session,
    ),
  ),
);
