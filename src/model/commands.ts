import type { NullsDropped, Schemas } from './wire';

/** Exactly the spec's schema (every field required there): the record is the API's shape. */
export type Command = Schemas['Command'];

/** What CreateCommand and UpdateCommand take, nulls read as "not given". */
export type CommandInput = NullsDropped<Schemas['CommandInput']>;

/** A slash command's answer (Mattermost's CommandResponse), from an integration or a built-in command. */
export type CommandResponse = Schemas['CommandResponse'];

export type AutocompleteSuggestion = Schemas['AutocompleteSuggestion'];

/** A command's response URL (Mattermost's CommandWebhook): where and as whom its later replies are posted. */
export interface CommandWebhook {
  id: string;
  create_at: number;
  command_id: string;
  user_id: string;
  channel_id: string;
  root_id: string;
  use_count: number;
}

/** Mattermost's limits on slash commands (model/command.go, app/command.go, model/command_webhook.go). */
export const COMMAND_LIMITS = {
  triggerMin: 1,
  triggerMax: 128,
  urlChars: 1024,
  displayName: 64,
  description: 128,
  /** An unknown trigger is cut to this many characters (and "...") in the not-found error. */
  triggerInError: 512,
  /** A response URL works this long after the command ran... */
  responseUrlLifetimeMs: 30 * 60 * 1000,
  /** ...and this many times. */
  responseUrlUses: 5,
  /** The delivery log lists this many calls. */
  deliveries: 100,
  /** Distinct @user and ~channel mentions looked up for the call's mention fields (each is a query). */
  mentionsLookedUp: 50,
  /** /echo: the longest delay, in seconds, and how many delayed echoes may wait at once (per process). */
  echoMaxDelaySeconds: 10000,
  echoPending: 100,
  /** /search: the results listed in its ephemeral answer. */
  searchResults: 10,
} as const;
