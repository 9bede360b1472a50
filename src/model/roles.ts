import type { Schemas } from './wire';

/** A built-in role, as GetRole, GetRoleByName and GetRolesByNames answer it. */
export type Role = Schemas['Role'];
