import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import { AppError } from '../app/errors';

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
      message: e.keyword === 'anyOf' && e.instancePath === '' ? 'either a non-empty "text" or at least one attachment is required' : (e.message ?? 'is invalid'),
    };
    const key = `${problem.path}|${problem.rule}|${problem.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(problem);
    }
  }
  return out;
}

/** The AppError a payload's problems give: Mattermost's specific ids for the rules it has, decode otherwise. */
export function payloadError(problems: PayloadProblem[]): AppError {
  const detail = problems.map((p) => `${p.path || '(payload)'}: ${p.message} [${p.rule}]`).join('; ');
  if (problems.some((p) => p.path === '' && p.rule === 'anyOf')) {
    return AppError.badRequest('web.incoming_webhook.text.app_error', 'No text specified.', detail);
  }
  if (problems.some((p) => p.path === '/type')) {
    return AppError.badRequest('web.incoming_webhook.type.app_error', 'The post type must be blank or start with "custom_".', detail);
  }
  return AppError.badRequest('web.incoming_webhook.decode.app_error', 'The webhook payload does not match the expected format.', detail);
}
