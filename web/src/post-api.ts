import { api, call } from './api';

/**
 * REST calls of permalinks, files and search (typed by the spec, as api.ts's): kept apart from api.ts so the first
 * load of a channel does not change.
 */
export const postRest = {
  /** GetPost: 403/404 when the post is deleted or in a channel the caller cannot read. */
  post: (post_id: string) => call(api.GET('/api/v4/posts/{post_id}', { params: { path: { post_id } } })),
  /** A page of a channel's posts before (older than) a post, newest first in `order`. */
  postsBefore: (channel_id: string, before: string, per_page: number) =>
    call(api.GET('/api/v4/channels/{channel_id}/posts', { params: { path: { channel_id }, query: { before, per_page } } })),
  /** SearchPosts: Mattermost's search syntax, parsed by the server. */
  search: (team_id: string, terms: string, time_zone_offset: number, page = 0, per_page = 20) =>
    call(api.POST('/api/v4/teams/{team_id}/posts/search', { params: { path: { team_id } }, body: { terms, is_or_search: false, time_zone_offset, include_deleted_channels: false, page, per_page } })),
};
