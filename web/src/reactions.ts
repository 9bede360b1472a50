import type { components } from '../../generated/api';
import type { Post } from './post-store';

/**
 * A post's reactions as the client keeps them: in `metadata.reactions` (as the server sends them, oldest first),
 * changed by reaction_added / reaction_removed and by the user's own clicks. Merging is idempotent (the event of
 * one's own reaction arrives after the answer). No DOM here: unit-tested in Node.
 */

export type Reaction = components['schemas']['Reaction'];

export interface ReactionGroup {
  name: string;
  /** User ids, in the order they reacted. */
  userIds: string[];
  mine: boolean;
}

export function reactionsOf(post: Pick<Post, 'metadata'>): Reaction[] {
  const list = post.metadata?.reactions;
  return Array.isArray(list) ? list : [];
}

/** The post with the reaction added (unchanged when that user's reaction with that emoji is there already). */
export function withReaction<P extends Post>(post: P, r: Reaction): P {
  const list = reactionsOf(post);
  if (list.some((x) => x.user_id === r.user_id && x.emoji_name === r.emoji_name)) return post;
  return { ...post, has_reactions: true, metadata: { ...post.metadata, reactions: [...list, r] } };
}

/** The post without that user's reaction with that emoji. */
export function withoutReaction<P extends Post>(post: P, r: Pick<Reaction, 'user_id' | 'emoji_name'>): P {
  const list = reactionsOf(post);
  const kept = list.filter((x) => !(x.user_id === r.user_id && x.emoji_name === r.emoji_name));
  if (kept.length === list.length) return post;
  return { ...post, has_reactions: kept.length > 0, metadata: { ...post.metadata, reactions: kept } };
}

/** One group per emoji, in the order each emoji was first used (as Mattermost shows them). */
export function groupReactions(reactions: Reaction[], meId: string): ReactionGroup[] {
  const groups = new Map<string, ReactionGroup>();
  for (const r of reactions) {
    let g = groups.get(r.emoji_name);
    if (!g) {
      g = { name: r.emoji_name, userIds: [], mine: false };
      groups.set(r.emoji_name, g);
    }
    if (!g.userIds.includes(r.user_id)) g.userIds.push(r.user_id);
    if (r.user_id === meId) g.mine = true;
  }
  return [...groups.values()];
}

/** "alice", "alice and bob", "You, alice and bob", "You, alice, bob and 3 others": the viewer first, as "You". */
export function reactorNames(group: ReactionGroup, nameOf: (id: string) => string, meId: string, max = 4): string {
  const names = [...(group.mine ? ['You'] : []), ...group.userIds.filter((id) => id !== meId).map(nameOf)];
  const shown = names.length > max ? [...names.slice(0, max - 1), `${names.length - (max - 1)} others`] : names;
  if (shown.length <= 1) return shown[0] ?? '';
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
}

/** The accessible name (and the tooltip) of a reaction: "alice and bob reacted with :+1:". */
export function reactionLabel(group: ReactionGroup, nameOf: (id: string) => string, meId: string): string {
  return `${reactorNames(group, nameOf, meId)} reacted with :${group.name}:`;
}
