import type { Complete, NullsDropped, RequestBody, Schemas } from './wire';

export type TeamType = 'O' | 'I';

export type Team = Complete<Omit<Schemas['Team'], 'type'>, 'last_team_icon_update' | 'cloud_limits_archived'> & { type: TeamType };

export type TeamMember = Complete<Schemas['TeamMember']>;

export type CreateTeamInput = NullsDropped<RequestBody<'CreateTeam'>>;

export type TeamPatch = NullsDropped<RequestBody<'PatchTeam'>>;
export type TeamStats = Complete<Schemas['TeamStats']>;
export type TeamUnread = Complete<Schemas['TeamUnread']>;
