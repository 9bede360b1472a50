import type { WebhookPayload } from '../model';

/** What an outgoing webhook sends (Mattermost's OutgoingWebhookPayload): the same field names in JSON and forms. */
export interface OutgoingPayload {
  token: string;
  team_id: string;
  team_domain: string;
  channel_id: string;
  channel_name: string;
  /** The post's create_at, epoch milliseconds (a form carries seconds, as Mattermost's). */
  timestamp: number;
  user_id: string;
  user_name: string;
  post_id: string;
  text: string;
  trigger_word: string;
  /** The post's file ids, comma-joined. */
  file_ids: string;
}

export const JSON_CONTENT_TYPE = 'application/json';
const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

/**
 * The request body for a hook's content_type: JSON only when it is exactly `application/json` (Mattermost's rule),
 * otherwise a form, its keys in Go's url.Values order (sorted) and its timestamp in seconds.
 */
export function encodePayload(payload: OutgoingPayload, contentType: string): { contentType: string; body: string } {
  if (contentType === JSON_CONTENT_TYPE) return { contentType: JSON_CONTENT_TYPE, body: JSON.stringify(payload) };
  const form = new URLSearchParams();
  const fields: Record<string, string> = { ...payload, timestamp: String(Math.floor(payload.timestamp / 1000)) } as unknown as Record<string, string>;
  for (const key of Object.keys(fields).sort()) form.append(key, String(fields[key]));
  return { contentType: FORM_CONTENT_TYPE, body: form.toString() };
}

/** An integration's answer worth posting, as the incoming-webhook path takes it, and whether it is a comment. */
export interface OutgoingReply {
  payload: WebhookPayload;
  comment: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optionalString = (v: unknown) => v === undefined || v === null || typeof v === 'string';

/**
 * Reads an integration's answer (Mattermost's OutgoingWebhookResponse). Undefined when there is nothing to post: an
 * empty body, neither text nor attachments, or an answer that is not that object (a field of the wrong type fails
 * the whole answer, as Go's decoder does); `invalid` says which of these it was, for the log.
 */
export function parseReply(body: Buffer): OutgoingReply | { invalid: string } | undefined {
  const text = body.toString('utf8').trim();
  if (text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { invalid: 'the answer is not JSON' };
  }
  if (!isObject(value)) return { invalid: 'the answer is not a JSON object' };
  const r = value;
  for (const key of ['text', 'username', 'icon_url', 'type', 'response_type']) {
    if (!optionalString(r[key])) return { invalid: `the answer's ${key} is not a string` };
  }
  if (r.props !== undefined && r.props !== null && !isObject(r.props)) return { invalid: "the answer's props is not an object" };
  if (r.attachments !== undefined && r.attachments !== null && !Array.isArray(r.attachments)) return { invalid: "the answer's attachments is not an array" };
  if (r.priority !== undefined && r.priority !== null && !isObject(r.priority)) return { invalid: "the answer's priority is not an object" };
  const attachments = (r.attachments ?? []) as unknown[];
  // Mattermost posts an answer whose text is present (even "") or that has attachments; an empty post cannot be made.
  if ((typeof r.text !== 'string' || r.text === '') && attachments.length === 0) return undefined;
  const payload = {
    text: typeof r.text === 'string' ? r.text : '',
    username: (r.username as string | null | undefined) ?? undefined,
    icon_url: (r.icon_url as string | null | undefined) ?? undefined,
    type: (r.type as string | null | undefined) ?? undefined,
    props: (r.props as Record<string, unknown> | null | undefined) ?? undefined,
    attachments: attachments.length > 0 ? attachments : undefined,
    priority: (r.priority as WebhookPayload['priority'] | null | undefined) ?? undefined,
  } as WebhookPayload;
  return { payload, comment: r.response_type === 'comment' };
}
