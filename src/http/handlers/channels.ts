import { AppError } from '../../model';
import { authed, created, ok, paging, statusOk } from '../operation';

export const CreateChannel = authed<'CreateChannel'>(async ({ body, session, app }) => created(await app.channels.create(body, session)));

export const CreateDirectChannel = authed<'CreateDirectChannel'>(async ({ body, session, app }) =>
  created(await app.channels.createDirect(body, session)),
);

export const GetChannel = authed<'GetChannel'>(async ({ path, session, app }) => ok(await app.channels.get(path.channel_id, session)));

export const GetChannelByName = authed<'GetChannelByName'>(async ({ path, query, session, app }) =>
  ok(await app.channels.getByName(path.team_id, path.channel_name, query.include_deleted === true, session)),
);

export const GetPublicChannelsForTeam = authed<'GetPublicChannelsForTeam'>(async ({ path, query, session, app }) => {
  const { page, perPage } = paging(query);
  return ok(await app.channels.listPublic(path.team_id, page, perPage, session));
});

export const GetChannelsForTeamForUser = authed<'GetChannelsForTeamForUser'>(async ({ path, query, session, app }) =>
  ok(await app.channels.listForUser(path.user_id, path.team_id, query.include_deleted === true, query.last_delete_at ?? 0, session)),
);

/** One user answers one member; `user_ids` answers the list, as Mattermost does for bulk adds. */
export const AddChannelMember = authed<'AddChannelMember'>(async ({ path, body, session, app }) => {
  const single = body.user_id;
  const many = body.user_ids;
  if ((single && many) || (!single && (!many || many.length === 0))) throw AppError.invalidParam('user_id');
  const members = await app.channels.addMembers(path.channel_id, single ? [single] : (many as string[]), session);
  return created(single ? members[0] : members);
});

export const GetChannelMembers = authed<'GetChannelMembers'>(async ({ path, query, session, app }) => {
  const { page, perPage } = paging(query);
  return ok(await app.channels.members(path.channel_id, page, perPage, session));
});

export const GetChannelMember = authed<'GetChannelMember'>(async ({ path, session, app }) =>
  ok(await app.channels.member(path.channel_id, path.user_id, session)),
);

export const RemoveUserFromChannel = authed<'RemoveUserFromChannel'>(async ({ path, session, app }) => {
  await app.channels.removeMember(path.channel_id, path.user_id, session);
  return statusOk();
});

export const ViewChannel = authed<'ViewChannel'>(async ({ path, body, session, app }) =>
  ok({ status: 'OK', last_viewed_at_times: await app.channels.view(path.user_id, body.channel_id, body.prev_channel_id ?? '', session) }),
);
