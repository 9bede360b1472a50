import type { ServerResponse } from 'node:http';
import { AppError } from '../app/errors';
import { isDatabaseUnavailable, unstorableColumn } from '../lib/db-errors';

/**
 * Writes JSON with `Content-Type: application/json` exactly: Client4 parses bodies only on that exact value, and
 * Express would append "; charset=utf-8". A Buffer body keeps every layer from touching the header.
 */
export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = Buffer.from(JSON.stringify(body));
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', payload.length);
  res.end(payload);
}

export interface ErrorBody {
  id: string;
  message: string;
  detailed_error: string;
  request_id: string;
  status_code: number;
}

/** Maps anything thrown to the AppError body; internal errors become a 500 that says nothing about internals. */
export function errorBody(err: unknown, requestId: string, developer: boolean): ErrorBody {
  if (err instanceof AppError) {
    return {
      id: err.id,
      message: err.message,
      detailed_error: developer || err.statusCode < 500 ? err.detailedError : '',
      request_id: requestId,
      status_code: err.statusCode,
    };
  }
  const column = unstorableColumn(err);
  if (column !== undefined) {
    return {
      id: 'api.context.invalid_body_param.app_error',
      message: `A value is too long (or out of range) to be stored: ${column}.`,
      detailed_error: '',
      request_id: requestId,
      status_code: 400,
    };
  }
  const unavailable = isDatabaseUnavailable(err);
  return {
    id: unavailable ? 'api.context.database_unavailable.app_error' : 'api.context.internal.app_error',
    message: unavailable ? 'The database is unavailable. Please try again shortly.' : 'An internal error occurred.',
    detailed_error: developer && err instanceof Error ? err.message : '',
    request_id: requestId,
    status_code: unavailable ? 503 : 500,
  };
}

/**
 * The one place error responses are written. A server-side failure (5xx) is kept on `res.locals.error` so the
 * request log line can carry it: the client is told nothing about internals, the operator must be told everything.
 * So is a value the database refused as too long: the client's fault, but also a length check the API lacks.
 */
export function writeError(res: ServerResponse, err: unknown, requestId: string, developer = false): ErrorBody {
  const body = errorBody(err, requestId, developer);
  // A 4xx from something other than an AppError can only be such a refused value (errorBody's one such case).
  const refusedValue = body.status_code < 500 && !(err instanceof AppError);
  if (body.status_code >= 500 || refusedValue) (res.locals ??= {}).error = err;
  if (!res.headersSent) writeJson(res, body.status_code, body);
  else res.destroy();
  return body;
}

/** Connection-level DB failures (database down, pool exhausted, connection killed) are 503: retry later. */
export { isDatabaseUnavailable };
