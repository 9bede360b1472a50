import type { components } from '../../../generated/api';

/** What the integrations page shows: the team's hooks and commands, the bots, their tokens and the delivery logs. */

export type IncomingWebhook = components['schemas']['IncomingWebhook'];
export type OutgoingWebhook = components['schemas']['OutgoingWebhook'];
export type Command = components['schemas']['Command'];
export type Bot = components['schemas']['Bot'];
export type UserAccessToken = components['schemas']['UserAccessToken'];
export type IntegrationDelivery = components['schemas']['IntegrationDelivery'];

export interface IntegrationsState {
  /** Team id → whether the viewer may manage its integrations (a team admin or a system admin), once known. */
  canManage: Record<string, boolean>;
  /** The team whose lists are loaded below. */
  teamId?: string;
  incoming?: IncomingWebhook[];
  outgoing?: OutgoingWebhook[];
  commands?: Command[];
  bots?: Bot[];
  /** Bot user id → its tokens (no secrets: a new token's secret is shown once, by the screen that made it). */
  botTokens: Record<string, UserAccessToken[]>;
  /** `outgoing_webhooks:<id>` or `commands:<id>` → the newest attempts first. */
  deliveries: Record<string, IntegrationDelivery[]>;
  /** A token just made: its secret, shown once (the bot's card or the confirmation screen), then forgotten. */
  newToken?: { userId: string; id: string; token: string };
  /** Section → why its list could not be loaded. */
  errors: Record<string, string>;
}

export const initialIntegrations: IntegrationsState = { canManage: {}, botTokens: {}, deliveries: {}, errors: {} };
