import { withoutNulls } from '../nulls';
import { authed, ok } from '../operation';

/** DoPostAction: the body may be absent (a button click sends `{}` or nothing). */
export const DoPostAction = authed<'DoPostAction'>(async ({ path, body, session, app }) =>
  ok(await app.postActions.doAction(path.post_id, path.action_id, withoutNulls(body ?? {}), session)),
);
