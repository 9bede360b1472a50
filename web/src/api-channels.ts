import type { components } from '../../generated/api';
import { api, call } from './api';

/**
 * The REST calls of browsing, creating and managing channels, direct messages and team membership (the channel and
 * team dialogs), typed by the spec as api.ts's: Mattermost's operations, as its web app calls them.
 */

export type TeamMember = components['schemas']['TeamMember'];

export const channelRest = {
  /** GetPublicChannelsForTeam: a page of the team's live public channels, by display name. */
  publicChannels: (team_id: string, page: number, per_page: number) =>
    call(api.GET('/api/v4/teams/{team_id}/channels', { params: { path: { team_id }, query: { page, per_page } } })),
  /** GetDeletedChannelsForTeam: archived public channels, and archived private ones of the caller. */
  archivedChannels: (team_id: string, page: number, per_page: number) =>
    call(api.GET('/api/v4/teams/{team_id}/channels/deleted', { params: { path: { team_id }, query: { page, per_page } } })),
  searchChannels: (team_id: string, term: string) => call(api.POST('/api/v4/teams/{team_id}/channels/search', { params: { path: { team_id } }, body: { term } })),
  channelByName: (team_id: string, channel_name: string) =>
    call(api.GET('/api/v4/teams/{team_id}/channels/name/{channel_name}', { params: { path: { team_id, channel_name }, query: { include_deleted: true } } })),
  createChannel: (body: { team_id: string; name: string; display_name: string; type: 'O' | 'P'; purpose?: string }) => call(api.POST('/api/v4/channels', { body })),
  patchChannel: (channel_id: string, body: { header?: string; purpose?: string }) => call(api.PUT('/api/v4/channels/{channel_id}/patch', { params: { path: { channel_id } }, body })),
  archiveChannel: (channel_id: string) => call(api.DELETE('/api/v4/channels/{channel_id}', { params: { path: { channel_id } } })),
  /** RestoreChannel: unarchives a channel (the team's admins and system admins). */
  restoreChannel: (channel_id: string) => call(api.POST('/api/v4/channels/{channel_id}/restore', { params: { path: { channel_id } } })),
  addChannelMember: (channel_id: string, user_id: string) => call(api.POST('/api/v4/channels/{channel_id}/members', { params: { path: { channel_id } }, body: { user_id } })),
  removeChannelMember: (channel_id: string, user_id: string) =>
    call(api.DELETE('/api/v4/channels/{channel_id}/members/{user_id}', { params: { path: { channel_id, user_id } } })),
  channelMembers: (channel_id: string, page: number, per_page: number) =>
    call(api.GET('/api/v4/channels/{channel_id}/members', { params: { path: { channel_id }, query: { page, per_page } } })),
  /** AutocompleteUsers in a team (and, with a channel, split into its members and the team's others). */
  autocompleteUsers: (in_team: string, name: string, in_channel = '') =>
    call(api.GET('/api/v4/users/autocomplete', { params: { query: { in_team, name, limit: 25, ...(in_channel ? { in_channel } : {}) } } })),

  /** GetAllTeams: the open teams (every team for a system admin). */
  allTeams: (page: number, per_page: number) => call(api.GET('/api/v4/teams', { params: { query: { page, per_page } } })),
  addTeamMember: (team_id: string, user_id: string) => call(api.POST('/api/v4/teams/{team_id}/members', { params: { path: { team_id } }, body: { team_id, user_id } })),
  teamMembers: (team_id: string, page: number, per_page: number) =>
    call(api.GET('/api/v4/teams/{team_id}/members', { params: { path: { team_id }, query: { page, per_page } } })),
  updateTeamMemberRoles: (team_id: string, user_id: string, roles: string) =>
    call(api.PUT('/api/v4/teams/{team_id}/members/{user_id}/roles', { params: { path: { team_id, user_id } }, body: { roles } })),
  removeTeamMember: (team_id: string, user_id: string) => call(api.DELETE('/api/v4/teams/{team_id}/members/{user_id}', { params: { path: { team_id, user_id } } })),
};
