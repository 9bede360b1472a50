import type { NullsDropped, RequestBody, Schemas } from './wire';

/** Exactly the spec's schema (every field required there): the record is the API's shape, so the spec defines it. */
export type IncomingWebhook = Schemas['IncomingWebhook'];

export type HookInput = NullsDropped<RequestBody<'CreateIncomingWebhook'>>;
export type HookUpdate = NullsDropped<RequestBody<'UpdateIncomingWebhook'>>;

/** The decoded payload of POST /hooks/{hook_id}, after schema validation. */
export type WebhookPayload = Schemas['IncomingWebhookPayload'];
