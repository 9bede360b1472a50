// New domain records with every field at its starting value: one place, so the app and the test fixtures build the
// same rows and a new column needs one default.
import { newId, sortableId } from '../lib/ids';
import type { Channel, Post } from '../model';

/** A new post created `now`; `fields` may set anything else (webhook parts set consecutive create times). */
export function newPost(fields: Pick<Post, 'user_id' | 'channel_id' | 'message'> & Partial<Post>, now: number): Post {
  return {
    // Ids that sort by creation time: a new post's key lands at the end of the posts' id index (on MySQL, of the table
    // itself) instead of on a random page of it (see sortableId).
    id: sortableId(now),
    create_at: now,
    update_at: now,
    edit_at: 0,
    delete_at: 0,
    is_pinned: false,
    root_id: '',
    original_id: '',
    type: '',
    props: {},
    hashtags: '',
    file_ids: [],
    pending_post_id: '',
    reply_count: 0,
    last_reply_at: 0,
    metadata: {},
    ...fields,
  };
}

/** A new channel created `now`, with no posts yet. */
export function newChannel(fields: Pick<Channel, 'team_id' | 'type' | 'name' | 'display_name' | 'creator_id'> & Partial<Channel>, now: number): Channel {
  return {
    id: newId(),
    create_at: now,
    update_at: now,
    delete_at: 0,
    header: '',
    purpose: '',
    last_post_at: 0,
    last_root_post_at: 0,
    total_msg_count: 0,
    total_msg_count_root: 0,
    extra_update_at: 0,
    scheme_id: null,
    props: null,
    group_constrained: null,
    shared: null,
    policy_id: null,
    ...fields,
  };
}
