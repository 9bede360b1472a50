import type { StringMap } from './users';
import type { Complete, NullsDropped, RequestBody, Schemas } from './wire';

export type ChannelType = 'O' | 'P' | 'D' | 'G';

export type Channel = Complete<Omit<Schemas['Channel'], 'type' | 'props'>> & { type: ChannelType; props: Record<string, unknown> | null };

export type ChannelMember = Complete<Omit<Schemas['ChannelMember'], 'notify_props'>> & { notify_props: StringMap };

/** A membership with its channel's team (GetChannelMembersWithTeamDataForUser): '' and 0 for a team-less channel. */
export type ChannelMemberWithTeamData = ChannelMember & Pick<Schemas['ChannelMemberWithTeamData'], 'team_display_name' | 'team_name' | 'team_update_at'>;

export type CreateChannelInput = NullsDropped<RequestBody<'CreateChannel'>>;

export type ChannelPatch = NullsDropped<RequestBody<'PatchChannel'>>;
export type UpdateChannelInput = NullsDropped<RequestBody<'UpdateChannel'>>;
export type ChannelStats = Complete<Schemas['ChannelStats']>;
