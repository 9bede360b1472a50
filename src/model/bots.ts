import type { Schemas } from './wire';

/** A bot account as served: its own record joined with its user's username, first name and description. */
export type Bot = Schemas['Bot'];

/** Mattermost's bot limits (model/bot.go). */
export const BOT_LIMITS = { displayName: 64, description: 1024 } as const;
