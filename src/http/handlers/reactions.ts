import { authed, ok, statusOk } from '../operation';
import { nullItemsAsEmpty, withoutNulls } from '../nulls';

export const SaveReaction = authed<'SaveReaction'>(async ({ body, session, app }) => ok(await app.reactions.save(withoutNulls(body), session)));

export const DeleteReaction = authed<'DeleteReaction'>(async ({ path, session, app }) => {
  await app.reactions.remove(path.user_id, path.post_id, path.emoji_name, session);
  return statusOk();
});

export const GetReactions = authed<'GetReactions'>(async ({ path, session, app }) => ok(await app.reactions.forPost(path.post_id, session)));

export const GetBulkReactions = authed<'GetBulkReactions'>(async ({ body, session, app }) => ok(await app.reactions.forPosts(nullItemsAsEmpty(body), session)));
