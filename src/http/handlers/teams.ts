import { AppError } from '../../model';
import { authed, created, ok, paging, statusOk, type Handler } from '../operation';
import { withoutNulls } from '../nulls';

export const CreateTeam = authed<'CreateTeam'>(async ({ body, session, app }) => created(await app.teams.create(withoutNulls(body), session)));

export const GetAllTeams = authed<'GetAllTeams'>(async ({ query, session, app }) =>
  ok(await app.teams.list({ ...paging(query), includeTotal: query.include_total_count === true }, session)),
);

export const GetTeam = authed<'GetTeam'>(async ({ path, session, app }) => ok(await app.teams.get(path.team_id, session)));

export const GetTeamByName = authed<'GetTeamByName'>(async ({ path, session, app }) => ok(await app.teams.getByName(path.team_name, session)));

export const GetTeamsForUser = authed<'GetTeamsForUser'>(async ({ path, session, app }) => ok(await app.teams.listForUser(path.user_id, session)));

export const AddTeamMember = authed<'AddTeamMember'>(async ({ path, body, session, app }) => {
  // As in Mattermost: a body naming another team is a client error, never a silent add to the path's team.
  if (body.team_id !== path.team_id) throw AppError.invalidParam('team_id');
  return created(await app.teams.addMember(path.team_id, body.user_id, session));
});

export const GetTeamMembers = authed<'GetTeamMembers'>(async ({ path, query, session, app }) =>
  ok(
    await app.teams.members(
      path.team_id,
      { ...paging(query), sort: query.sort ?? '', excludeDeletedUsers: query.exclude_deleted_users === true },
      session,
    ),
  ),
);

export const PatchTeam = authed<'PatchTeam'>(async ({ path, body, session, app }) => ok(await app.teams.patch(path.team_id, withoutNulls(body), session)));

/** Leaving a team (`me`) or removing someone from it. */
export const RemoveTeamMember = authed<'RemoveTeamMember'>(async ({ path, session, app }) => {
  await app.teams.removeMember(path.team_id, path.user_id, session);
  return statusOk();
});

export const GetTeamStats = authed<'GetTeamStats'>(async ({ path, session, app }) => ok(await app.teams.stats(path.team_id, session)));

export const GetTeamUnread = authed<'GetTeamUnread'>(async ({ path, session, app }) => ok(await app.teams.unread(path.user_id, path.team_id, session)));

export const GetTeamsUnreadForUser = authed<'GetTeamsUnreadForUser'>(async ({ path, query, session, app }) =>
  ok(await app.teams.unreads(path.user_id, query.exclude_team ?? '', session, query.include_collapsed_threads === true)),
);

/** No session needed: the invite id is the credential. */
export const GetTeamInviteInfo: Handler<'GetTeamInviteInfo'> = async ({ path, app }) => ok(await app.teamInvites.info(path.invite_id));

export const AddTeamMemberFromInvite = authed<'AddTeamMemberFromInvite'>(async ({ query, session, app }) =>
  created(await app.teamInvites.join(query.invite_id ?? '', query.token ?? '', session)),
);

export const RegenerateTeamInviteId = authed<'RegenerateTeamInviteId'>(async ({ path, session, app }) => ok(await app.teamInvites.regenerate(path.team_id, session)));

export const UpdateTeamMemberRoles = authed<'UpdateTeamMemberRoles'>(async ({ path, body, session, app }) => {
  await app.teams.updateMemberRoles(path.team_id, path.user_id, body.roles, session);
  return statusOk();
});
