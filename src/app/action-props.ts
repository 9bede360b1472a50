// Props sent for posts that exist (an edit, an action's update): their interactive actions checked against, and
// sealed with, what the post has stored (attachment-actions.ts holds the rules, the post writer does it for new posts).
import type { Post, SealedActions } from '../model';
import type { Stores } from '../store';
import { mayHaveActions, sealActions } from './attachment-actions';
import { must, propsActionsError } from './post-rules';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Props sent for an existing post (an edit, an action's update) checked and sealed against what the post has: an
 * action sent back without its integration (as clients see it) keeps the stored one by id. A client's new
 * integration makes the post no longer the integration's alone: its origin is dropped (calls unsigned) unless
 * `keepOrigin` (the integration's own update). `changed` says whether the stored action data must be replaced.
 */
export async function resealProps(
  stores: Stores,
  post: Post,
  props: Record<string, unknown>,
  keepOrigin: boolean,
): Promise<{ props: Record<string, unknown>; sealed?: SealedActions; changed: boolean }> {
  const had = mayHaveActions(post.props);
  if (!had && !mayHaveActions(props)) return { props, changed: false };
  const previous = had ? await stores.postActions.get(post.id) : undefined;
  must(propsActionsError(props, new Set(Object.keys(previous?.actions ?? {}))));
  const suppliesIntegration = (props.attachments as unknown[] | undefined)?.some((a) => isObject(a) && Array.isArray(a.actions) && a.actions.some((x) => isObject(x) && x.integration !== undefined));
  const origin = keepOrigin || !suppliesIntegration ? previous?.origin : undefined;
  const split = sealActions(props, origin, previous);
  if (!split) return { props, changed: previous !== undefined };
  return { props: split.props, sealed: split.sealed, changed: true };
}
