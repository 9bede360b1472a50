import type { IncomingHttpHeaders } from 'node:http';
import type { operations } from '../../generated/api';
import type { App } from '../app';
import type { Session } from '../app/model';
import { AppError } from '../app/errors';

export type OperationId = keyof operations;

type Op<K extends OperationId> = operations[K];
type Params<K extends OperationId> = Op<K>['parameters'];
type PathOf<K extends OperationId> = Params<K> extends { path: infer P } ? P : Record<string, never>;
type QueryOf<K extends OperationId> = Params<K> extends { query?: infer Q } ? ([Q] extends [never] ? Record<string, never> : NonNullable<Q>) : Record<string, never>;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
type BodyOf<K extends OperationId> = Op<K> extends { requestBody: infer R } ? JsonOf<R> : Op<K> extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> | undefined : undefined;

/** The typed input of an operation, as the spec (through generated/api.d.ts) describes it. */
export interface Input<K extends OperationId> {
  path: PathOf<K>;
  query: QueryOf<K>;
  body: BodyOf<K>;
  headers: IncomingHttpHeaders;
  token: string | null;
  session: Session | null;
  app: App;
}

export type AuthedInput<K extends OperationId> = Input<K> & { session: Session };

/** What a handler returns; the dispatcher writes it (JSON, ETag/304, extra headers). */
export interface Reply {
  status: number;
  body: unknown;
  etag?: string;
  headers?: Record<string, string | string[]>;
}

export type Handler<K extends OperationId> = (input: Input<K>) => Promise<Reply>;

/** The complete operationId → handler map: a missing or unknown operation is a compile error. */
export type HandlerMap = { [K in OperationId]: Handler<K> };

export const ok = (body: unknown, extra: Partial<Reply> = {}): Reply => ({ status: 200, body, ...extra });
export const created = (body: unknown): Reply => ({ status: 201, body });
export const statusOk = (): Reply => ({ status: 200, body: { status: 'OK' } });

/** Mattermost's paging: per_page defaults to 60 and larger values are quietly reduced to 200. */
export function paging(query: { page?: number; per_page?: number }): { page: number; perPage: number } {
  return { page: query.page ?? 0, perPage: Math.min(query.per_page ?? 60, 200) };
}

/** Wraps a handler of an operation that needs a session: without one it is a 401 before any work. */
export function authed<K extends OperationId>(fn: (input: AuthedInput<K>) => Promise<Reply>): Handler<K> {
  return (input) => {
    if (!input.session) throw AppError.unauthorized();
    return fn(input as AuthedInput<K>);
  };
}

export const notModified = (etag: string): Reply => ({ status: 304, body: undefined, etag });
