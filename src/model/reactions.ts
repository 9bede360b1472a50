import type { Schemas } from './wire';

/** One user's reaction with one emoji to one post, as stored and served. */
export type Reaction = Schemas['Reaction'];
