import { authed, ok, paging } from '../operation';

export const GetTeamMembersForUser = authed<'GetTeamMembersForUser'>(async ({ path, session, app }) => ok(await app.memberships.teamMembers(path.user_id, session)));

export const GetChannelsForUser = authed<'GetChannelsForUser'>(async ({ path, query, session, app }) =>
  ok(await app.memberships.channels(path.user_id, query.include_deleted === true, query.last_delete_at ?? 0, session)),
);

/** page=-1 is every membership in one answer (the web app's fetchAllMyChannelMembers); per_page then does not count. */
export const GetChannelMembersWithTeamDataForUser = authed<'GetChannelMembersWithTeamDataForUser'>(async ({ path, query, session, app }) => {
  const { perPage } = paging(query);
  return ok(await app.memberships.channelMembers(path.user_id, query.page ?? 0, perPage, session));
});
