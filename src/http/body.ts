import type { IncomingMessage } from 'node:http';
import { MAX_JSON_DEPTH, nestingExceeds } from '../lib/json-depth';
import { mayHoldLoneSurrogates, wellFormedJson } from '../lib/well-formed';
import { AppError } from '../model';

export const tooLarge = () =>
  new AppError('api.context.request_body_too_large.app_error', 'The request body is too large.', 413);

/** How long the rest of a refused body is read (and dropped) after the 413, before the connection is closed. */
export const LINGER_MS = 1000;

/**
 * After a 413 the rest of the body is dropped, never stored, and read only for LINGER_MS: long enough for a client
 * still sending to read the 413 rather than a connection reset, short enough that an endless upload cannot keep
 * the server reading. A client that finishes sending within that time keeps its keep-alive connection.
 */
export function discardRest(req: IncomingMessage): void {
  req.resume();
  if (req.complete) return;
  const socket = req.socket;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  req.once('end', () => clearTimeout(timer));
  socket.once('close', () => clearTimeout(timer));
  // For a `Connection: close` request Node destroys the socket as soon as the answer is written; a client still
  // writing then gets EPIPE/ECONNRESET instead of the 413. Half-close instead (FIN after the answer), keep dropping
  // what still arrives, and close the socket after the same linger.
  socket.destroySoon = function destroySoon(this: typeof socket) {
    if (this.writable) this.end();
    // Closed for good after the linger, even if the client never closes its side.
    const linger = setTimeout(() => this.destroy(), LINGER_MS);
    linger.unref();
    this.once('close', () => clearTimeout(linger));
    return this;
  } as typeof socket.destroySoon;
}

/**
 * Reads a request body up to `limit` bytes. A declared Content-Length over the limit is refused before a byte is
 * read, and a body that grows past it is cut off at once, so memory stays bounded whatever the client sends.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    discardRest(req);
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        discardRest(req);
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!done) {
        done = true;
        resolve(Buffer.concat(chunks, size));
      }
    });
    req.on('error', (err) => {
      if (!done) {
        done = true;
        reject(AppError.badRequest('api.context.invalid_body_param.app_error', 'The request body could not be read.', err.message));
      }
    });
  });
}

/**
 * Parses an API request body as JSON: invalid JSON, and JSON nested deeper than any real request (whose
 * serialisation, cloning or validation would overflow the stack), are 400s. Lone surrogates become U+FFFD, as
 * Mattermost's decoder makes them.
 */
export function parseJsonBody(raw: Buffer): unknown {
  let value: unknown;
  const text = raw.toString('utf8');
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw AppError.badRequest('api.context.invalid_body_param.app_error', 'The request body is not valid JSON.', (err as Error).message);
  }
  if (nestingExceeds(value)) {
    throw AppError.badRequest('api.context.invalid_body_param.app_error', `The request body nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep.`);
  }
  return mayHoldLoneSurrogates(text) ? wellFormedJson(value) : value;
}
