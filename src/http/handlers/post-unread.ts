import { authed, ok } from '../operation';

export const SetPostUnread = authed<'SetPostUnread'>(async ({ path, session, app }) => ok(await app.postUnread.setUnread(path.user_id, path.post_id, session)));
