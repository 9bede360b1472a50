// The HTTP call to a custom slash command's URL: Mattermost's request (fields, method, Authorization: Token), Parley's
// signature, the address rule and time-out of the outbound adapter (src/infra/outbound-http.ts), one attempt recorded in the delivery log, and the
// answer read as Mattermost reads it (JSON CommandResponse, or any other type as the reply's text).
import { signatureHeaders } from '../lib/request-signing';
import { AppError, type Command, type CommandResponse } from '../model';
import type { Deps } from './deps';
import type { OutboundResult, SendOutbound } from './outbound';

/** Extra answers taken from one reply (each may become a post): a reply is at most 1 MiB, but not 30000 posts. */
const MAX_EXTRA_RESPONSES = 20;
/** Characters of a failed call's answer shown in detailed_error. */
const DETAIL_CHARS = 1000;

const failed = (trigger: string, detail: string) =>
  new AppError('api.command.execute_command.failed.app_error', `Command with a trigger of '${trigger}' failed.`, 500, detail);

/** The request as sent: what the test and the delivery log see is exactly this. */
export interface CommandRequest {
  method: 'GET' | 'POST';
  url: string;
  body?: string;
  /** What the signature covers: the body, or for a GET the raw query string. */
  signed: string;
}

/**
 * The request for `fields` (name, value pairs; names repeat for the mention lists). Fields are sorted by name, as
 * Go's url.Values.Encode writes them; a GET keeps the URL's own query and appends the fields after it.
 */
export function commandRequest(command: Command, fields: Array<[string, string]>): CommandRequest {
  const params = new URLSearchParams(fields);
  params.sort();
  const encoded = params.toString();
  if (command.method === 'G') {
    const url = new URL(command.url);
    const existing = url.search.replace(/^\?/, '');
    url.search = existing ? `${existing}&${encoded}` : encoded;
    return { method: 'GET', url: url.toString(), signed: url.search.replace(/^\?/, '') };
  }
  return { method: 'POST', url: command.url, body: encoded, signed: encoded };
}

/** Calls the command's URL once and reads its answer; records the call in the delivery log. */
export async function callCommand(deps: Deps, send: SendOutbound, command: Command, fields: Array<[string, string]>): Promise<CommandResponse> {
  const settings = deps.config.get().ServiceSettings;
  const req = commandRequest(command, fields);
  const headers: Record<string, string> = {
    Accept: 'application/json',
    Authorization: `Token ${command.token}`,
    ...signatureHeaders(command.token, req.signed, deps.now()),
  };
  if (req.method === 'POST') headers['Content-Type'] = 'application/x-www-form-urlencoded';
  const started = deps.now();
  const t0 = process.hrtime.bigint();
  const result = await send(
    { method: req.method, url: req.url, headers, body: req.body, timeoutMs: settings.OutgoingIntegrationRequestsTimeout * 1000 },
    { allowList: settings.AllowedUntrustedInternalConnections },
  );
  const durationMs = Number((process.hrtime.bigint() - t0) / 1_000_000n);
  await record(deps, command, started, durationMs, result);
  if (!result.ok) throw failed(command.trigger, `${result.kind}: ${result.message}`);
  const text = result.body.toString('utf8');
  if (result.status !== 200) {
    throw new AppError(
      'api.command.execute_command.failed_resp.app_error',
      `Command with a trigger of '${command.trigger}' returned response ${result.status}.`,
      500,
      text.slice(0, DETAIL_CHARS),
    );
  }
  const type = (headerValue(result.headers, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') return { text };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw failed(command.trigger, `the answer is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  return parseCommandResponse(parsed, () => failed(command.trigger, 'the answer is not a CommandResponse'));
}

/** The delivery log's row of one call; a log that cannot be written never fails the command. */
async function record(deps: Deps, command: Command, requestAt: number, durationMs: number, result: OutboundResult): Promise<void> {
  const error = result.ok ? (result.status === 200 ? '' : `HTTP ${result.status}`) : `${result.kind}: ${result.message}`;
  try {
    await deps.stores.deliveries.record({
      integration_id: command.id,
      kind: 'command',
      post_id: '',
      attempt: 1,
      request_at: requestAt,
      duration_ms: durationMs,
      status_code: result.ok ? result.status : 0,
      error: error.slice(0, 500),
    });
  } catch (err) {
    deps.onBackgroundError(err, 'command delivery not recorded');
  }
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

const STRING_FIELDS = ['response_type', 'text', 'username', 'channel_id', 'icon_url', 'type', 'goto_location', 'trigger_id'] as const;

/**
 * A decoded JSON answer as a CommandResponse, as Go decodes one: null is the empty response, a field of the wrong
 * type fails the whole answer, unknown fields are ignored. `bad` makes the error for an answer that is not one.
 */
export function parseCommandResponse(value: unknown, bad: () => AppError, nested = false): CommandResponse {
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw bad();
  const v = value as Record<string, unknown>;
  const out: CommandResponse = {};
  for (const key of STRING_FIELDS) {
    const x = v[key];
    if (x === undefined || x === null) continue;
    if (typeof x !== 'string') throw bad();
    out[key] = x;
  }
  if (v.skip_slack_parsing !== undefined && v.skip_slack_parsing !== null) {
    if (typeof v.skip_slack_parsing !== 'boolean') throw bad();
    out.skip_slack_parsing = v.skip_slack_parsing;
  }
  if (v.props !== undefined && v.props !== null) {
    if (typeof v.props !== 'object' || Array.isArray(v.props)) throw bad();
    out.props = v.props as Record<string, unknown>;
  }
  if (v.attachments !== undefined && v.attachments !== null) {
    if (!Array.isArray(v.attachments)) throw bad();
    out.attachments = v.attachments as Record<string, unknown>[];
  }
  if (!nested && v.extra_responses !== undefined && v.extra_responses !== null) {
    if (!Array.isArray(v.extra_responses)) throw bad();
    out.extra_responses = v.extra_responses.slice(0, MAX_EXTRA_RESPONSES).map((r) => parseCommandResponse(r, bad, true));
  }
  return out;
}
