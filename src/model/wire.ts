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
