import busboy, { type Busboy } from 'busboy';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { UploadPart } from '../app/files';
import { AppError, FILE_LIMITS } from '../model';
import { discardRest, tooLarge } from './body';

/** Parts an upload form may have in all (fields and files); more is not a form any client sends. */
const MAX_PARTS = 64;
/** Bytes of form fields and part headers an upload may carry besides its files. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

const unreadable = (detail: string) => AppError.badRequest('api.file.upload_file.read_request.app_error', 'Unable to upload file(s). Error reading or parsing request data.', detail);

/**
 * The most bytes an upload request may have: its files at FileSettings.MaxFileSize each, plus the fields. A larger
 * declared Content-Length is refused before a byte is read; a body that grows past it is cut off.
 */
export function uploadRequestLimit(maxFileSize: number): number {
  return maxFileSize * FILE_LIMITS.filesPerUpload + FORM_OVERHEAD_BYTES;
}

/**
 * A multipart/form-data request read as it arrives, part after part (busboy), for an operation whose body the
 * pipeline does not read (UploadFile). Nothing is buffered beyond a stream's high-water mark: the next part is
 * parsed only once the consumer has read the current file to its end, so a slow disk slows the client down
 * (TCP backpressure) instead of filling memory. A client that goes away, a malformed form or a body past
 * `maxBytes` fails the file being read (its stream errors) or the wait for the next part. Leaving the iteration
 * early (an error in the consumer) stops reading: the rest of the body is dropped as after any refused body.
 */
export function readUploadForm(req: IncomingMessage, maxBytes: number): AsyncIterableIterator<UploadPart> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'multipart/form-data') {
    discardRest(req);
    throw new AppError('api.context.invalid_body_param.app_error', `Unsupported request content type "${type}": send multipart/form-data.`, 415);
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discardRest(req);
    throw tooLarge();
  }
  if (declared === 0) throw unreadable('empty body');
  let parser: Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      // Browsers send file names in UTF-8; busboy's default (latin1) would garble them.
      defParamCharset: 'utf8',
      limits: { fieldSize: FILE_LIMITS.formValueBytes, parts: MAX_PARTS, fields: MAX_PARTS, headerPairs: 64 },
    });
  } catch (err) {
    discardRest(req);
    throw unreadable((err as Error).message);
  }
  return new UploadFormReader(req, parser, maxBytes);
}

class UploadFormReader implements AsyncIterableIterator<UploadPart> {
  private readonly queue: UploadPart[] = [];
  private waiter: { resolve(r: IteratorResult<UploadPart>): void; reject(err: unknown): void } | undefined;
  private failure: unknown;
  private finished = false;
  private stopped = false;
  private current: Readable | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly parser: Busboy,
    maxBytes: number,
  ) {
    parser.on('field', (name, value, info) => this.push({ kind: 'field', name, value, truncated: info.valueTruncated || info.nameTruncated }));
    parser.on('file', (name, stream, info) => {
      this.current = stream;
      // Its consumer hears of its errors (the storage write fails); unconsumed, a stream failed with the form must
      // not be an unhandled error.
      stream.on('error', () => undefined);
      stream.once('close', () => {
        if (this.current === stream) this.current = undefined;
      });
      this.push({ kind: 'file', name, filename: info.filename ?? '', stream: this.reported(stream) });
    });
    parser.on('partsLimit', () => this.fail(AppError.badRequest('api.file.upload_file.too_many_parts.app_error', `An upload form has at most ${MAX_PARTS} parts.`)));
    parser.on('fieldsLimit', () => this.fail(AppError.badRequest('api.file.upload_file.too_many_parts.app_error', `An upload form has at most ${MAX_PARTS} fields.`)));
    parser.on('error', (err: Error) => this.fail(unreadable(err.message)));
    parser.on('finish', () => {
      this.finished = true;
      this.settle();
    });
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) this.fail(tooLarge());
    });
    // A client that goes away mid-upload: the file being stored must fail (and be removed), not wait forever.
    req.on('close', () => {
      if (!req.complete) this.fail(unreadable('the client closed the connection before the end of the body'));
    });
    req.on('error', (err) => this.fail(unreadable(err.message)));
    req.pipe(parser);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<UploadPart> {
    return this;
  }

  next(): Promise<IteratorResult<UploadPart>> {
    const part = this.queue.shift();
    if (part) return Promise.resolve({ value: part, done: false });
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  /** The consumer stopped early (it failed): stop parsing and drop the rest of the body. */
  return(): Promise<IteratorResult<UploadPart>> {
    this.stop();
    return Promise.resolve({ value: undefined, done: true });
  }

  /**
   * A file's bytes, failing with an AppError when the form does: the reason this reader recorded (too large, the
   * client gone), or busboy's own (a form cut short) as a 400, never as an error the writer would call internal.
   */
  private reported(stream: Readable): Readable {
    const reader = this;
    async function* bytes() {
      try {
        for await (const chunk of stream) yield chunk as Buffer;
      } catch (err) {
        throw reader.failure instanceof AppError ? reader.failure : err instanceof AppError ? err : unreadable((err as Error).message);
      }
    }
    return Readable.from(bytes(), { objectMode: false });
  }

  private push(part: UploadPart): void {
    if (this.stopped) return;
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) waiter.resolve({ value: part, done: false });
    else this.queue.push(part);
  }

  private settle(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = undefined;
    if (this.failure !== undefined) waiter.reject(this.failure);
    else if (this.finished) waiter.resolve({ value: undefined, done: true });
  }

  private fail(err: unknown): void {
    if (this.failure !== undefined || this.finished) return;
    this.failure = err;
    // The file being read fails with it: its consumer (the storage write) stops and removes what it wrote.
    this.current?.destroy(err instanceof Error ? err : new Error(String(err)));
    this.settle();
    this.stop();
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const part of this.queue.splice(0)) if (part.kind === 'file') part.stream.destroy();
    if (this.finished) return;
    this.req.unpipe(this.parser);
    this.parser.destroy();
    discardRest(this.req);
  }
}
