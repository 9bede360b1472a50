import { AppError } from '../../model';
import { authed, created, ok, paging } from '../operation';

export const CreateTeam = authed<'CreateTeam'>(async ({ body, session, app }) => created(await app.teams.create(body, session)));

export const GetAllTeams = authed<'GetAllTeams'>(async ({ query, session, app }) =>
  ok(await app.teams.list({ ...paging(query), includeTotal: query.include_total_count === true }, session)),
);

export const GetTeam = authed<'GetTeam'>(async ({ path, session, app }) => ok(await app.teams.get(path.team_id, session)));

export const GetTeamByName = authed<'GetTeamByName'>(async ({ path, session, app }) => ok(await app.teams.getByName(path.name, session)));

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
