import type { Complete, NullsDropped, RequestBody, Schemas } from './wire';

export type StringMap = Record<string, string>;

/** A user as the API shows it (every field present; terms of service are not tracked). */
export type User = Complete<Schemas['User'], 'terms_of_service_id' | 'terms_of_service_create_at'> & {
  props: StringMap;
  notify_props: StringMap;
  timezone: StringMap;
};

/** A user as stored: the API never sees `password` (a slow hash). */
export interface UserRecord extends User {
  password: string;
}

export type CreateUserInput = NullsDropped<RequestBody<'CreateUser'>>;
export type UserPatch = NullsDropped<RequestBody<'PatchUser'>>;

export interface Session {
  id: string;
  userId: string;
  roles: string;
  isAccessToken: boolean;
  /** The session is a bot's (an access token of a bot account): it works even with EnableUserAccessTokens off. */
  isBot?: boolean;
  /** What a browser session (cookie authentication) must send back in X-CSRF-Token; '' for access tokens. */
  csrfToken: string;
}

/** An access token as stored and listed; the token itself is shown once, when it is created. */
export type UserAccessToken = Omit<Schemas['UserAccessToken'], 'token' | 'expires_at'> & { token?: string; expires_at: number };

/** A login session as GetSessions lists it. */
export type SessionInfo = Complete<Schemas['Session']> & { token: ''; props: StringMap; team_members: never[] };

/** AutocompleteUsers' answer: `out_of_channel` only when a channel was given. */
export interface UserAutocomplete {
  users: User[];
  out_of_channel?: User[];
}
