import type { NullsDropped, Schemas } from './wire';

/** Exactly the spec's schema (every field required there): the record is the API's shape. */
export type OutgoingWebhook = Schemas['OutgoingWebhook'];

/** What CreateOutgoingWebhook and UpdateOutgoingWebhook take, nulls read as "not given". */
export type OutgoingHookInput = NullsDropped<Schemas['OutgoingWebhookInput']> & { id?: string };

/** One attempt to call an integration, as the delivery log lists it. */
export type IntegrationDelivery = Schemas['IntegrationDelivery'];

/** Who made a call: the delivery log is one table for every kind of integration. */
export type IntegrationKind = 'outgoing_webhook' | 'command' | 'action';

/** A delivery as recorded (the stores' input): the listed fields plus what the log needs to find and redo it. */
export interface DeliveryRecord extends Omit<IntegrationDelivery, 'id'> {
  /** Generated when left out. */
  id?: string;
  integration_id: string;
  kind: IntegrationKind;
  /** The URL called (kept for redelivery; never listed). */
  callback_url?: string;
}

/** Mattermost's limits on an outgoing webhook (model/outgoing_webhook.go), in characters. */
export const OUTGOING_HOOK_LIMITS = {
  displayName: 64,
  description: 500,
  contentType: 128,
  username: 64,
  iconUrl: 1024,
  /** The trigger words joined with commas, and the callback URLs joined likewise. */
  triggerWordsJoined: 1024,
  callbackUrlsJoined: 1024,
} as const;

/** Parley's retries of an outgoing webhook call: attempts in all, and the first retry's delay (doubling after). */
export const OUTGOING_DELIVERY = {
  maxAttempts: 5,
  firstRetryMs: 1000,
  /** The delivery log keeps this many attempts per integration (older ones are pruned). */
  logSize: 100,
  /** Characters of an attempt's error kept. */
  errorChars: 500,
} as const;
