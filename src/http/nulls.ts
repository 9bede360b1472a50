import type { NullsDropped, TopLevelNullsDropped } from '../model/wire';

function isStringMap(value: unknown): value is Record<string, string | null> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => v === null || typeof v === 'string');
}

/**
 * A JSON body with its null fields read as Mattermost reads them (see NullsDropped): dropped, as if not sent, and a
 * string map's null values as "". Shallow, like the bodies it serves (flat objects and maps of strings). Built with
 * Object.fromEntries, so a "__proto__" key stays an ordinary field.
 */
export function withoutNulls<T extends object>(body: T): NullsDropped<T> {
  return Object.fromEntries(
    Object.entries(body)
      .filter(([, value]) => value !== null)
      .map(([key, value]) => [key, isStringMap(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, v ?? ''])) : value]),
  ) as NullsDropped<T>;
}

/** withoutNulls for bodies with free-form objects (post props): only top-level nulls are dropped. */
export function withoutTopLevelNulls<T extends object>(body: T): TopLevelNullsDropped<T> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null)) as TopLevelNullsDropped<T>;
}

/** A list Mattermost decodes as []string: a null item is "", which then matches nothing (no id or name is empty). */
export function nullItemsAsEmpty(list: ReadonlyArray<string | null>): string[] {
  return list.map((item) => item ?? '');
}

/**
 * A list Mattermost decodes as a slice of structs: a null item is the zero struct (every field missing) and a null
 * field a missing one.
 */
export function nullItemsAsEmptyObjects<T extends object>(list: ReadonlyArray<T | null>): Array<NullsDropped<T>> {
  return list.map((item) => (item === null ? ({} as NullsDropped<T>) : withoutNulls(item)));
}
