import type { Knex } from 'knex';
import { storedJsonObject } from '../lib/raw-json';

/** A Knex instance or an open transaction: every store method runs on either. */
export type Executor = Knex | Knex.Transaction;

export type Row = Record<string, unknown>;

export const bool = (v: unknown): boolean => v === true || v === 1 || v === '1';
export const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));
export const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

export function json<T>(v: unknown, fallback: T): T {
  if (typeof v !== 'string' || v === '') return fallback;
  try {
    return JSON.parse(v) as T;
  } catch {
    return fallback;
  }
}

/**
 * A JSON object column; a large one is parsed only when code looks into it, and an answer that merely passes it on
 * writes the stored text as it is (src/lib/raw-json.ts). For values read in bulk that may be large (a post's props).
 */
export function lazyJson(v: unknown): Record<string, unknown> {
  return typeof v === 'string' && v !== '' ? storedJsonObject(v) : {};
}

/** Clamp-free paging helper: Mattermost's page/per_page become an offset and a limit. */
export function paged<Q extends Knex.QueryBuilder>(query: Q, page: number, perPage: number): Q {
  return query.offset(page * perPage).limit(perPage) as Q;
}
