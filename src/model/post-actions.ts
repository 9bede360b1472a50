// Interactive message actions (buttons and menus in a post's attachments). What an action calls (its integration's
// URL and context) is the integration's private data: it is kept apart from the post's props, so no read of a post
// can carry it to a client.

/** Which integration made a post: its action calls are signed with that integration's secret. */
export interface PostOrigin {
  kind: 'incoming_webhook' | 'outgoing_webhook' | 'command';
  id: string;
}

/** What one action calls: the integration's URL and the context sent back to it. */
export interface ActionIntegration {
  url: string;
  context: Record<string, unknown>;
}

/** A post's private action data: who made it, and each action's integration by action id. */
export interface SealedActions {
  origin?: PostOrigin;
  actions: Record<string, ActionIntegration>;
}

/** Limits on actions (Parley's; Mattermost has none): they bound what a click can make the server send. */
export const ACTION_LIMITS = {
  /** Actions per post, over all its attachments. */
  perPost: 50,
  /** Options of one select menu. */
  options: 100,
  /** Characters of an action's integration URL. */
  urlChars: 2048,
  /** Characters of an action id (Mattermost generates 26; integrations may choose their own). */
  idChars: 64,
} as const;
