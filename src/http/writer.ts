import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError } from '../model/app-error';
import { DatabaseError } from '../model/store-errors';
import { stringifyParts } from '../lib/raw-json';

/** An answer larger than this is written in slices of about this size, the event loop free between them. */
const SLICE_CHARS = 256 * 1024;

/**
 * Writes JSON with `Content-Type: application/json` exactly: Client4 parses bodies only on that exact value. A
 * Buffer body keeps every layer from touching the header. Values read as stored JSON text (a post's props) are
 * written as that text, not parsed and serialised again. A large answer (older posts may hold 760,000 characters of
 * props each) is encoded and written slice by slice with the event loop free in between, so sending it holds other
 * requests up by one slice at a time, not by the whole answer. Returns the bytes written when they were written in
 * one piece (a small answer), for a caller that keeps a copy.
 */
export function writeJson(res: ServerResponse, status: number, body: unknown): Buffer | undefined {
  const parts = stringifyParts(body);
  if (parts.length === 1 && parts[0].length <= SLICE_CHARS) {
    const payload = Buffer.from(parts[0]);
    writeJsonBytes(res, status, payload);
    return payload;
  }
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  let bytes = 0;
  for (const p of parts) bytes += Buffer.byteLength(p);
  res.setHeader('Content-Length', bytes);
  void writeSlices(res, parts);
  return undefined;
}

/** An answer already encoded as JSON (a kept copy: see writeJson's return), with the same exact Content-Type. */
export function writeJsonBytes(res: ServerResponse, status: number, payload: Buffer): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', payload.length);
  res.end(payload);
}

async function writeSlices(res: ServerResponse, parts: string[]): Promise<void> {
  let pending: Buffer[] = [];
  let size = 0;
  const flush = () => {
    res.write(pending.length === 1 ? pending[0] : Buffer.concat(pending));
    pending = [];
    size = 0;
  };
  for (const part of parts) {
    let at = 0;
    while (at < part.length) {
      // Slices end on a code point: a lone surrogate at a cut would be encoded as U+FFFD on both sides.
      let end = Math.min(at + SLICE_CHARS, part.length);
      if (end < part.length && isHighSurrogate(part.charCodeAt(end - 1))) end++;
      const chunk = Buffer.from(part.slice(at, end));
      at = end;
      pending.push(chunk);
      size += chunk.length;
      if (size >= SLICE_CHARS) {
        flush();
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (res.destroyed) return;
      }
    }
  }
  if (size > 0) flush();
  res.end();
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export interface ErrorBody {
  id: string;
  message: string;
  detailed_error: string;
  request_id: string;
  status_code: number;
}

/** The AppError for a database failure the stores reported, by its kind; never a driver's own words to the client. */
function fromDatabase(err: DatabaseError, developer: boolean): AppError {
  if (err.kind === 'too_long') {
    return AppError.badRequest('api.context.invalid_body_param.app_error', `A value is too long (or out of range) to be stored: ${err.column ?? 'unknown'}.`);
  }
  if (err.kind === 'unavailable' || err.kind === 'timeout') {
    return new AppError('api.context.database_unavailable.app_error', 'The database is unavailable. Please try again shortly.', 503, developer ? err.message : '');
  }
  // A duplicate the app did not expect to happen: a bug, reported like any other.
  return new AppError('api.context.internal.app_error', 'An internal error occurred.', 500, developer ? err.message : '');
}

/** Maps anything thrown to the AppError body; internal errors become a 500 that says nothing about internals. */
export function errorBody(err: unknown, requestId: string, developer: boolean): ErrorBody {
  const e =
    err instanceof AppError
      ? err
      : err instanceof DatabaseError
        ? fromDatabase(err, developer)
        : new AppError('api.context.internal.app_error', 'An internal error occurred.', 500, developer && err instanceof Error ? err.message : '');
  return {
    id: e.id,
    message: e.message,
    // Internals stay out of 5xx answers unless the operator asked for them (EnableDeveloper).
    detailed_error: developer || e.statusCode < 500 || !(err instanceof AppError) ? e.detailedError : '',
    request_id: requestId,
    status_code: e.statusCode,
  };
}

/**
 * Whether the operator must hear of an error (the request log line carries it, with its stack): anything that is not
 * an answer the server meant to give. An AppError is such an answer (400, 404, 501 for a feature switched off...)
 * unless it is a 500; a database outage (503) and a value the database refused (a length check the API lacks) are
 * logged too, each at its own level by the request logger.
 */
function worthLogging(err: unknown, body: ErrorBody): boolean {
  if (err instanceof AppError) return body.status_code === 500;
  return true;
}

/** The one place error responses are written. */
export function writeError(res: ServerResponse, err: unknown, requestId: string, developer = false): ErrorBody {
  const body = errorBody(err, requestId, developer);
  if (worthLogging(err, body)) (res.locals ??= {}).error = err;
  if (!res.headersSent) writeJson(res, body.status_code, body);
  else res.destroy();
  return body;
}

/**
 * An upgrade refused (GET /api/v4/websocket): the same error body, written as a whole HTTP response on the socket
 * the upgrade arrived on (there is no ServerResponse for it), which is then closed.
 */
export function writeUpgradeError(socket: Duplex, err: unknown, requestId: string, developer = false): ErrorBody {
  const body = errorBody(err, requestId, developer);
  const json = JSON.stringify(body);
  const status = body.status_code;
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`);
  return body;
}
