// Post search: what a parsed query asks for, shared by the app (which parses and resolves it) and the store (which
// answers it from each database's full-text index).
import type { PostList } from './posts';
import type { RequestBody, TopLevelNullsDropped } from './wire';

export type SearchPostsInput = TopLevelNullsDropped<RequestBody<'SearchPosts'>>;

/** A PostList with `matches`, which only a search engine fills (null here, as from Mattermost's database search). */
export interface PostSearchResults extends PostList {
  matches: null;
  first_inaccessible_post_time: number;
}

/** One word or quoted phrase of a search. */
export interface SearchTerm {
  /** The word or the phrase's text as typed (without the quotes, the trailing `*` or a hashtag's `#`). */
  text: string;
  /** A quoted phrase: its words must appear in this order, next to each other. */
  phrase: boolean;
  /** A trailing `*`: the last word matches every word it begins. */
  prefix: boolean;
  /** `#tag`: the post must carry the hashtag itself, not only the word. */
  hashtag: boolean;
}

/** A search the app has resolved: names turned into ids, dates into times, paging into an offset. */
export interface PostSearchQuery {
  /** The channels searched: the caller's, narrowed by `in:` and `-in:`. Never empty (the app answers that itself). */
  channelIds: string[];
  /** `from:` authors, or null for anyone. */
  userIds: string[] | null;
  excludedUserIds: string[];
  terms: SearchTerm[];
  excludedTerms: SearchTerm[];
  /** Any term may match instead of every term. */
  orSearch: boolean;
  /** create_at >= since */
  since: number | null;
  /** create_at < until */
  until: number | null;
  /** [from, to): posts created in this span are left out (`-on:`). */
  excludedRange: [number, number] | null;
  offset: number;
  limit: number;
}
