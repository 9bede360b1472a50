import { nullItemsAsEmptyObjects } from '../nulls';
import { authed, ok, statusOk } from '../operation';

export const GetPreferences = authed<'GetPreferences'>(async ({ path, session, app }) => ok(await app.preferences.all(path.user_id, session)));

export const UpdatePreferences = authed<'UpdatePreferences'>(async ({ path, body, session, app }) => {
  await app.preferences.save(path.user_id, nullItemsAsEmptyObjects(body), session);
  return statusOk();
});

export const DeletePreferences = authed<'DeletePreferences'>(async ({ path, body, session, app }) => {
  await app.preferences.delete(path.user_id, nullItemsAsEmptyObjects(body), session);
  return statusOk();
});

export const GetPreferencesByCategory = authed<'GetPreferencesByCategory'>(async ({ path, session, app }) =>
  ok(await app.preferences.category(path.user_id, path.category, session)),
);

export const GetPreferencesByCategoryByName = authed<'GetPreferencesByCategoryByName'>(async ({ path, session, app }) =>
  ok(await app.preferences.get(path.user_id, path.category, path.preference_name, session)),
);
