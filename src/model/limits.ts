// The size limits of stored fields, named once. The app checks them before writing, the migrations size the columns
// with them, and test/contract/spec-rules.test.ts checks the spec's maxLength values against them. Raising one needs a
// new migration that widens its column (MySQL refuses what a column cannot hold; SQLite stores anything).
// Lengths are in Unicode code points ("runes", as Mattermost counts) unless the name says bytes.

export const POST_LIMITS = {
  /** Mattermost's PostMessageMaxRunesV2; a longer webhook message is split into several posts. */
  messageRunes: 16383,
  /**
   * Props serialised as JSON, in UTF-8 bytes: what a post's props may be when written (create, update, patch, webhook
   * posts with their attachments). Far below Mattermost's PostPropsMaxUserRunes (760000): every reader of a channel
   * pays for them, and what the apps and integrations put there (attachments, mention flags, previews) is a few KB.
   * Posts written before this bound (up to 760000 characters, the column's MEDIUMTEXT holds them) are still read.
   */
  propsBytes: 64 * 1024,
  /**
   * A page of GetPostsForChannel stops taking posts once its messages (characters) and props (bytes of JSON) pass this
   * (at least one post per page): the apps page on from `prev_post_id` / `next_post_id`, which name the first post
   * left out.
   */
  pageChars: 2 * 1024 * 1024,
  /** Column width of a post's type; Mattermost's own types are all shorter. */
  type: 64,
  /** The apps send "<user id>:<ms>", 40 characters. */
  pendingPostId: 64,
  hashtags: 1000,
} as const;

export const USER_LIMITS = {
  username: 64,
  email: 128,
  nickname: 64,
  firstName: 64,
  lastName: 64,
  position: 128,
  locale: 5,
  /** The timezone map as JSON. */
  timezoneChars: 256,
  passwordMinChars: 8,
  /** Mattermost's bound: bcrypt's input limit, kept for every hash. */
  passwordMaxBytes: 72,
  /** props and notify_props are each stored as JSON in a TEXT column: 65535 bytes on MySQL and MariaDB. */
  mapBytes: 65535,
  roles: 256,
} as const;

export const TEAM_LIMITS = {
  nameMin: 2,
  name: 64,
  displayName: 64,
  description: 255,
  companyName: 64,
  email: 128,
  allowedDomains: 500,
} as const;

export const CHANNEL_LIMITS = {
  name: 64,
  displayName: 64,
  header: 1024,
  purpose: 250,
} as const;

export const HOOK_LIMITS = {
  displayNameBytes: 64,
  descriptionBytes: 500,
  iconUrlBytes: 1024,
  username: 64,
} as const;

export const TOKEN_LIMITS = {
  description: 255,
} as const;

export const WEBHOOK_IDEMPOTENCY = {
  /** Printable ASCII, as Stripe and the IETF draft allow; longer keys are a 400. */
  keyMaxChars: 255,
  /** How long a key's answer is kept and replayed. */
  ttlMs: 24 * 60 * 60 * 1000,
} as const;

/** Keys are stored as SHA-256 hex digests: fixed width, and the raw key (which may embed an id) is never stored. */
export const IDEMPOTENCY_KEY_HASH_LENGTH = 64;

export const REACTION_LIMITS = {
  /** Mattermost's EmojiNameMaxLength (names are ASCII, so characters and bytes agree). */
  emojiName: 64,
  /** ServiceSettings.UniqueEmojiReactionLimitPerPost counts as at most this, as in Mattermost. */
  uniqueEmojiPerPostMax: 500,
} as const;

/** Mattermost's Preference.IsValid bounds, and its cap on one UpdatePreferences/DeletePreferences body. */
export const PREFERENCE_LIMITS = {
  /** Category: 1 to 32 bytes (Go's len). */
  categoryBytes: 32,
  /** Name: at most 32 bytes (may be empty: a `theme` for every team has name ""). */
  nameBytes: 32,
  /** Value: at most 20000 code points (MaxPreferenceValueLength). */
  valueRunes: 20000,
  /** Preferences in one save or delete request. */
  perRequest: 100,
} as const;

export const FILE_LIMITS = {
  /** A file's name, in code points (the column holds 256); a longer name is shortened, keeping its extension. */
  name: 255,
  /** The extension column; a longer "extension" is not one (it is stored empty). */
  extension: 64,
  mimeType: 256,
  /** Storage paths are made by the server from ids: far below this. */
  path: 512,
  /** Files in one upload request: the files one post can hold (file_ids fit 300 characters: 10 ids). */
  filesPerUpload: 10,
  /** File ids on one post (Mattermost: file_ids at most 300 characters as JSON, which is 10 ids). */
  filesPerPost: 10,
  /** A form field of an upload (channel_id, client_ids), as Mattermost caps them: 10 KB. */
  formValueBytes: 10 * 1024,
  /** Pixels an image may have to be decoded (Mattermost's default MaxImageResolution, 7680×4320). */
  imagePixels: 33177600,
} as const;

export const SEARCH_LIMITS = {
  /** The `terms` string of a search, in UTF-16 code units (what a person types into a search box is far shorter). */
  termsChars: 1024,
  /** Words, phrases and filters (`from:`, `in:`, dates) in one search. */
  parts: 32,
  /**
   * Words the index is asked for, over every term (a phrase or a hashtag counts each of its words): a phrase is
   * checked word by word, so `a*a*a*…` (one "word" of 512) cost seconds before this bound.
   */
  indexWords: 16,
  /** Prefix terms (`deplo*`) in one search: each reads every indexed word it begins, and some are merged per statement. */
  prefixTerms: 3,
  /** Letters or digits before the `*` of a prefix term: `a*` is every word of the index (2 and 3 have prefix indexes). */
  prefixMinChars: 2,
  /** Results a search can page through (page × per_page + per_page): deeper pages are empty. */
  maxResults: 10_000,
} as const;

/** Bounds of the lists of a user's memberships across all teams (the web app's page-load reads). */
export const MEMBERSHIP_LIMITS = {
  /** Different role names in one GetRolesByNames (Mattermost's GetRolesByNamesMax). */
  rolesPerRequest: 100,
  /**
   * Channels (GetChannelsForUser), channel memberships (GetChannelMembersWithTeamDataForUser with page=-1) and team
   * memberships (GetTeamMembersForUser) in one answer, by id: Mattermost streams them all; Parley answers at most this
   * many (the first ones by channel or team id), a bound no ordinary user comes near.
   */
  perUserListMax: 10_000,
} as const;
