import type { IncomingMessage } from 'node:http';
import { AppError } from '../app/errors';

export const tooLarge = () =>
  new AppError('api.context.request_body_too_large.app_error', 'The request body is too large.', 413);

/**
 * Reads a request body up to `limit` bytes. A declared Content-Length over the limit is refused before a byte is
 * read, and a body that grows past it is cut off at once, so memory stays bounded whatever the client sends.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
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
        req.resume();
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
