import type { Schemas } from './wire';

/** One of a user's preferences, as stored and served. */
export type Preference = Schemas['Preference'];

/** The category of saved posts: name = the post's id, value "true". */
export const FLAGGED_POST_CATEGORY = 'flagged_post';
