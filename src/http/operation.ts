import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { operations } from '../../generated/api';
import type { App } from '../app';
import type { FileDownload } from '../app/files';
import type { Session, Versioned } from '../model';

export type OperationId = keyof operations;

type Op<K extends OperationId> = operations[K];
type Params<K extends OperationId> = Op<K>['parameters'];
type PathOf<K extends OperationId> = Params<K> extends { path: infer P } ? P : Record<string, never>;
type QueryOf<K extends OperationId> = Params<K> extends { query?: infer Q } ? ([Q] extends [never] ? Record<string, never> : NonNullable<Q>) : Record<string, never>;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
type BodyOf<K extends OperationId> = Op<K> extends { requestBody: infer R } ? JsonOf<R> : Op<K> extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> | undefined : undefined;

/**
 * The typed input of an operation, as the spec (through generated/api.d.ts) describes it, after the pipeline has
 * routed, authenticated and validated the request: path and query parameters coerced to their types, `me` in a
 * `{user_id}` already replaced by the caller's id, the JSON body checked against its schema.
 */
export interface Input<K extends OperationId> {
  path: PathOf<K>;
  query: QueryOf<K>;
  body: BodyOf<K>;
  headers: IncomingHttpHeaders;
  /** The raw request, for the few operations that stream their body (uploads) instead of having it read. */
  request: IncomingMessage;
  token: string | null;
  session: Session | null;
  app: App;
}

export type AuthedInput<K extends OperationId> = Input<K> & { session: Session };

/** What a handler returns; the pipeline writes it (JSON, ETag/304, extra headers). */
export interface Reply {
  status: number;
  body: unknown;
  etag?: string;
  headers?: Record<string, string | string[]>;
  /**
   * The body, built only when the pipeline keeps no copy of this ETag's answer (set instead of `body` for a shared
   * answer, Versioned.shared): the pipeline answers from its copy or builds, writes and keeps it.
   */
  build?: () => Promise<unknown>;
  /** A stored file to stream as the answer (GetFile and its thumbnail and preview) instead of a JSON body. */
  file?: { download: FileDownload; forceDownload: boolean };
}

/**
 * A handler. `needsSession` marks one written for an operation whose spec `security` requires a session: the
 * pipeline (which alone decides the 401, from the spec) refuses to start when the two disagree.
 */
export type Handler<K extends OperationId> = ((input: Input<K>) => Promise<Reply>) & { needsSession?: true };

/** The complete operationId → handler map: a missing or unknown operation is a compile error. */
export type HandlerMap = { [K in OperationId]: Handler<K> };

export const ok = (body: unknown, extra: Partial<Reply> = {}): Reply => ({ status: 200, body, ...extra });
export const created = (body: unknown): Reply => ({ status: 201, body });
export const statusOk = (): Reply => ({ status: 200, body: { status: 'OK' } });
export const fileReply = (download: FileDownload, forceDownload: boolean): Reply => ({ status: 200, body: undefined, file: { download, forceDownload } });
export const notModified = (etag: string): Reply => ({ status: 304, body: undefined, etag });

/**
 * Conditional GET, the one shape of it: 304 when If-None-Match names the answer's ETag, before the answer is built;
 * otherwise the answer with its ETag (a shared answer left to the pipeline to build or to answer from its copy).
 */
export async function conditional<T>(headers: IncomingHttpHeaders, answer: Versioned<T>, extra: Partial<Reply> = {}): Promise<Reply> {
  if (answer.etag !== undefined && headers['if-none-match'] === answer.etag) return { ...extra, ...notModified(answer.etag) };
  if (answer.etag !== undefined && answer.shared === true) return { ...extra, status: 200, body: undefined, etag: answer.etag, build: answer.build };
  return ok(await answer.build(), answer.etag === undefined ? extra : { ...extra, etag: answer.etag });
}

/** Mattermost's paging: per_page defaults to 60 and larger values are quietly reduced to 200. */
export function paging(query: { page?: number; per_page?: number }): { page: number; perPage: number } {
  return { page: query.page ?? 0, perPage: Math.min(query.per_page ?? 60, 200) };
}

/** A handler of an operation that needs a session: the pipeline guarantees `session` is set when it runs. */
export function authed<K extends OperationId>(fn: (input: AuthedInput<K>) => Promise<Reply>): Handler<K> {
  const handler = fn as Handler<K>;
  handler.needsSession = true;
  return handler;
}
