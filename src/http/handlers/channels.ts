import { AppError } from '../../model';
import { authed, created, ok, paging, statusOk } from '../operation';
import { withoutNulls } from '../nulls';

export const CreateChannel = authed<'CreateChannel'>(async ({ body, session, app }) => created(await app.channels.create(withoutNulls(body), session)));

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

export const GetDeletedChannelsForTeam = authed<'GetDeletedChannelsForTeam'>(async ({ path, query, session, app }) => {
  const { page, perPage } = paging(query);
  return ok(await app.archivedChannels.list(path.team_id, page, perPage, session));
});

export const GetChannelsForTeamForUser = authed<'GetChannelsForTeamForUser'>(async ({ path, query, session, app }) =>
  ok(await app.channels.listForUser(path.user_id, path.team_id, query.include_deleted === true, query.last_delete_at ?? 0, session)),
);

/** One user answers one member; `user_ids` answers the list, as Mattermost does for bulk adds. */
export const AddChannelMember = authed<'AddChannelMember'>(async ({ path, body, session, app }) => {
  const { user_id: single, user_ids: many } = withoutNulls(body);
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

/** A null channel_id is "" (Mattermost's zero value): no channel has focus any more. */
export const ViewChannel = authed<'ViewChannel'>(async ({ path, body, session, app }) => {
  const view = withoutNulls(body);
  return ok({ status: 'OK', last_viewed_at_times: await app.channels.view(path.user_id, view.channel_id ?? '', view.prev_channel_id ?? '', session) });
});

export const PatchChannel = authed<'PatchChannel'>(async ({ path, body, session, app }) => ok(await app.channels.patch(path.channel_id, withoutNulls(body), session)));

export const UpdateChannel = authed<'UpdateChannel'>(async ({ path, body, session, app }) => ok(await app.channels.update(path.channel_id, withoutNulls(body), session)));

/** Archives (Mattermost's DELETE keeps the channel and its posts). */
export const DeleteChannel = authed<'DeleteChannel'>(async ({ path, query, session, app }) => {
  await app.channels.archive(path.channel_id, query.permanent === true, session);
  return statusOk();
});

export const RestoreChannel = authed<'RestoreChannel'>(async ({ path, session, app }) => ok(await app.channels.restore(path.channel_id, session)));

export const GetChannelByNameForTeamName = authed<'GetChannelByNameForTeamName'>(async ({ path, query, session, app }) =>
  ok(await app.channels.getByTeamName(path.team_name, path.channel_name, query.include_deleted === true, session)),
);

export const GetChannelMembersForUser = authed<'GetChannelMembersForUser'>(async ({ path, session, app }) =>
  ok(await app.channels.membersForUser(path.user_id, path.team_id, session)),
);

export const GetChannelStats = authed<'GetChannelStats'>(async ({ path, query, session, app }) =>
  ok(await app.channels.stats(path.channel_id, query.exclude_files_count === true, session)),
);

export const UpdateChannelRoles = authed<'UpdateChannelRoles'>(async ({ path, body, session, app }) => {
  await app.channels.updateMemberRoles(path.channel_id, path.user_id, body.roles, session);
  return statusOk();
});

export const UpdateChannelNotifyProps = authed<'UpdateChannelNotifyProps'>(async ({ path, body, session, app }) => {
  await app.channels.updateMemberNotifyProps(path.channel_id, path.user_id, body, session);
  return statusOk();
});

export const AutocompleteChannelsForTeam = authed<'AutocompleteChannelsForTeam'>(async ({ path, query, session, app }) =>
  ok(await app.channels.autocomplete(path.team_id, query.name ?? '', session)),
);

export const AutocompleteChannelsForTeamForSearch = authed<'AutocompleteChannelsForTeamForSearch'>(async ({ path, query, session, app }) =>
  ok(await app.channels.autocompleteForSearch(path.team_id, query.name ?? '', session)),
);

/** Only `term` is read, as Mattermost's team channel search reads only it. */
export const SearchChannels = authed<'SearchChannels'>(async ({ path, body, session, app }) => ok(await app.channels.search(path.team_id, body.term ?? '', session)));
