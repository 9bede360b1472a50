/**
 * An answer with a version: its ETag, known before the answer is built, and how to build it. The HTTP layer answers
 * 304 to a matching If-None-Match without calling `build` (an unchanged channel's page is never read); the app never
 * sees the header. No `etag` (a `since` read) means always built, never 304.
 */
export interface Versioned<T> {
  etag?: string;
  build(): Promise<T>;
  /**
   * The answer is the same for every caller who is given this ETag (nothing in it depends on who asks): the HTTP
   * layer may keep its encoded body and answer the next caller with the same ETag from that copy, as Mattermost's
   * last-posts cache answers a channel's newest page. Only with an `etag` that changes whenever the answer does.
   */
  shared?: boolean;
}

/** An answer already built, with its version. */
export const versioned = <T>(value: T, etag: string): Versioned<T> => ({ etag, build: async () => value });
