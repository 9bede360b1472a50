import { withoutNulls } from '../nulls';
import { authed, ok, statusOk } from '../operation';

export const GetSidebarCategoriesForTeamForUser = authed<'GetSidebarCategoriesForTeamForUser'>(async ({ path, session, app }) =>
  ok(await app.sidebar.list(path.user_id, path.team_id, session)),
);

export const CreateSidebarCategoryForTeamForUser = authed<'CreateSidebarCategoryForTeamForUser'>(async ({ path, body, session, app }) =>
  ok(await app.sidebar.create(path.user_id, path.team_id, withoutNulls(body), session)),
);

export const UpdateSidebarCategoriesForTeamForUser = authed<'UpdateSidebarCategoriesForTeamForUser'>(async ({ path, body, session, app }) =>
  ok(await app.sidebar.updateMany(path.user_id, path.team_id, body.map((c) => withoutNulls(c)), session)),
);

export const GetSidebarCategoryOrderForTeamForUser = authed<'GetSidebarCategoryOrderForTeamForUser'>(async ({ path, session, app }) =>
  ok(await app.sidebar.order(path.user_id, path.team_id, session)),
);

export const UpdateSidebarCategoryOrderForTeamForUser = authed<'UpdateSidebarCategoryOrderForTeamForUser'>(async ({ path, body, session, app }) =>
  ok(await app.sidebar.setOrder(path.user_id, path.team_id, body, session)),
);

export const GetSidebarCategoryForTeamForUser = authed<'GetSidebarCategoryForTeamForUser'>(async ({ path, session, app }) =>
  ok(await app.sidebar.get(path.user_id, path.team_id, path.category_id, session)),
);

export const UpdateSidebarCategoryForTeamForUser = authed<'UpdateSidebarCategoryForTeamForUser'>(async ({ path, body, session, app }) =>
  ok(await app.sidebar.update(path.user_id, path.team_id, path.category_id, withoutNulls(body), session)),
);

export const RemoveSidebarCategoryForTeamForUser = authed<'RemoveSidebarCategoryForTeamForUser'>(async ({ path, session, app }) => {
  await app.sidebar.remove(path.user_id, path.team_id, path.category_id, session);
  return statusOk();
});
