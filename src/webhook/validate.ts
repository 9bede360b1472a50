import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import { AppError } from '../model';

export interface PayloadProblem {
  /** JSON pointer of the offending field ("" for the payload itself). */
  path: string;
  /** The schema rule that failed (type, pattern, anyOf, ...). */
  rule: string;
  message: string;
}

export type PayloadValidator = (payload: unknown) => PayloadProblem[];

/** Compiles the spec's IncomingWebhookPayload schema once; the same check serves the server, the mock and the checker. */
export function createPayloadValidator(spec: { components?: Record<string, unknown> }): PayloadValidator {
  const ajv = new Ajv({ strict: false, allErrors: true });
  // OpenAPI's integer formats are size hints, not constraints JSON Schema validators know.
  for (const format of ['int32', 'int64']) ajv.addFormat(format, true);
  ajv.addSchema({ $id: 'parley-spec', components: spec.components }, 'parley-spec');
  const validate: ValidateFunction = ajv.compile({ $ref: 'parley-spec#/components/schemas/IncomingWebhookPayload' });
  return (payload) => (validate(payload) ? [] : describe(validate.errors ?? []));
}

function describe(errors: ErrorObject[]): PayloadProblem[] {
  // anyOf reports each failed branch too; the branch details only repeat what the anyOf rule says.
  const anyOfAtRoot = errors.some((e) => e.keyword === 'anyOf' && e.instancePath === '');
  const kept = errors.filter((e) => !(anyOfAtRoot && e.schemaPath.includes('/anyOf/') && (e.instancePath === '' || e.instancePath === '/text' || e.instancePath === '/attachments')));
  const seen = new Set<string>();
  const out: PayloadProblem[] = [];
  for (const e of kept) {
    const problem = {
      path: e.instancePath,
      rule: e.keyword,
      message: friendlyMessage(e),
    };
    const key = `${problem.path}|${problem.rule}|${problem.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(problem);
    }
  }
  return out;
}

/** Ajv's wording, except where the rule has a plainer one (the anyOf on text/attachments, the custom_ pattern). */
function friendlyMessage(e: ErrorObject): string {
  if (e.keyword === 'anyOf' && e.instancePath === '') return 'either a non-empty "text" or at least one attachment is required';
  if (e.keyword === 'pattern' && e.instancePath === '/type') return 'must be empty or start with "custom_"';
  return e.message ?? 'is invalid';
}

/**
 * The AppError a payload's problems give, with the ids the spec documents for ExecuteIncomingWebhook's 400:
 * `web.incoming_webhook.text.app_error` for "no text and no attachments", otherwise Mattermost's
 * `api.context.invalid_param.app_error` naming the field (`post.type` for the type, as Mattermost does).
 */
export function payloadError(problems: PayloadProblem[]): AppError {
  const detail = problems.map((p) => `${p.path || '(payload)'}: ${p.message} [${p.rule}]`).join('; ');
  if (problems.some((p) => p.path === '' && p.rule === 'anyOf')) {
    return AppError.badRequest('web.incoming_webhook.text.app_error', 'No text specified.', detail);
  }
  const typeProblem = problems.find((p) => p.path === '/type');
  if (typeProblem) return invalidPayloadParam('post.type', `The post type ${typeProblem.message}.`, detail);
  const first = problems[0];
  const field = first && first.path ? first.path.slice(1).replaceAll('/', '.') : 'payload';
  return invalidPayloadParam(field, `The field ${field} ${first?.message ?? 'is invalid'}.`, detail);
}

export function invalidPayloadParam(field: string, why: string, detail = ''): AppError {
  return AppError.badRequest('api.context.invalid_param.app_error', `Invalid or missing ${field} parameter in request body or URL. ${why}`, detail);
}
