// Types of the published contract, from generated/api.d.ts: the domain types and request inputs below are derived
// from these, so a change to the spec that the code does not follow is a compile error.
import type { components, operations } from '../../generated/api';

export type Schemas = components['schemas'];

/** The JSON request body of an operation, as the spec describes it. */
export type RequestBody<K extends keyof operations> = operations[K] extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : operations[K] extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B
    : never;

/** A schema with every field present: what the server stores and always sends, where the spec lets clients omit. */
export type Complete<T, Omitted extends keyof T = never> = Required<Omit<T, Omitted>>;

/** A map of strings as Go decodes one (`map[string]string`): a null value is "". */
type StringMapOf<V> = V extends readonly unknown[] ? V : V extends { [key: string]: string | null } ? { [key: string]: string } : V;

/**
 * A request body as the app takes it. Mattermost decodes these bodies with Go's encoding/json, where null leaves a
 * string field "" and a pointer field nil: both read as "not given". A field the spec marks nullable therefore
 * arrives here absent (never null), and a string map's null values as "" (src/http/nulls.ts does it): the app
 * cannot be handed a null it would have to think about.
 */
export type NullsDropped<T> = {
  [K in keyof T]: StringMapOf<Exclude<T[K], null>> | (null extends T[K] ? undefined : never);
};

/**
 * NullsDropped for bodies whose objects are free-form (a post's props: Mattermost's StringInterface keeps a null
 * value as null): top-level nulls read as not given, nothing inside an object changes.
 */
export type TopLevelNullsDropped<T> = {
  [K in keyof T]: Exclude<T[K], null> | (null extends T[K] ? undefined : never);
};
