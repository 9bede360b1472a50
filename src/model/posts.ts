import type { Complete, RequestBody, Schemas, TopLevelNullsDropped } from './wire';

export type PostMetadata = Schemas['PostMetadata'] & Record<string, unknown>;

/**
 * A post as stored and served; `has_reactions` is present (true) only on a post that has reactions, `participants`
 * and `is_following` only where collapsed-thread reads add them.
 */
export type Post = Complete<Omit<Schemas['Post'], 'props' | 'file_ids' | 'metadata'>, 'has_reactions' | 'participants' | 'is_following'> & {
  has_reactions?: boolean;
  participants?: Schemas['Post']['participants'];
  is_following?: boolean;
  props: Record<string, unknown>;
  file_ids: string[];
  metadata: PostMetadata;
};

export interface PostList {
  order: string[];
  posts: Record<string, Post>;
  next_post_id: string;
  prev_post_id: string;
  has_next: boolean;
}

export type CreatePostInput = TopLevelNullsDropped<RequestBody<'CreatePost'>>;
export type PostPatch = TopLevelNullsDropped<RequestBody<'PatchPost'>>;
export type PostUpdate = TopLevelNullsDropped<RequestBody<'UpdatePost'>>;
