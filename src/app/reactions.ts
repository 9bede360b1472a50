import { isValidId } from '../lib/ids';
import { AppError, REACTION_LIMITS, type Channel, type Post, type Reaction, type Session } from '../model';
import { Authz } from './authz';
import type { Deps } from './deps';
import { isSystemAdmin, type Permission } from './permissions';
import type { Realtime } from './realtime';

/** Mattermost's Reaction.IsValid rule for emoji names (ASCII letters, digits, '-', '+', '_'). */
const EMOJI_NAME = /^[a-zA-Z0-9\-+_]+$/;

const postNotFound = () => AppError.notFound('app.post.get.app_error', 'Unable to get the post.');

/**
 * Posts as served: each post that has reactions (`has_reactions`, kept on the post) gets its reactions (oldest first)
 * in `metadata.reactions`, with one query for all of them. The one place posts get their reactions, whatever serves them
 * (GetPost, channel pages, threads, pinned lists, post_edited). Deleted posts are served without them, as Mattermost
 * serves a deleted post without metadata.
 */
export async function withReactions(stores: Deps['stores'], posts: Post[]): Promise<Post[]> {
  // The stored flag says which posts have reactions: a page of posts without any costs no query.
  const live = posts.filter((p) => p.delete_at === 0 && p.has_reactions).map((p) => p.id);
  if (live.length === 0) return posts;
  const byPost = groupByPost(await stores.reactions.forPosts(live));
  return posts.map((p) => {
    const list = p.delete_at === 0 ? byPost.get(p.id) : undefined;
    return list ? { ...p, has_reactions: true, metadata: { ...p.metadata, reactions: list } } : p;
  });
}

function groupByPost(reactions: Reaction[]): Map<string, Reaction[]> {
  const out = new Map<string, Reaction[]>();
  for (const r of reactions) {
    const list = out.get(r.post_id);
    if (list) list.push(r);
    else out.set(r.post_id, [r]);
  }
  return out;
}

/** Emoji reactions to posts: adding, removing, listing; each change moves the post's update_at and is published. */
export class ReactionsService {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly realtime: Realtime,
  ) {
    this.authz = new Authz(deps);
  }

  /**
   * A permission in the channel of a post, checked as Mattermost's SessionHasPermissionToChannelByPost: through the
   * post's channel, so a post that does not exist fails the check (403) for everyone but system admins, whose
   * permission holds everywhere and who then learn that it does not exist (404).
   */
  private async byPost(postId: string, session: Session, permission: Permission): Promise<{ post: Post; channel: Channel }> {
    const { stores } = this.deps;
    const post = await stores.posts.get(postId);
    const channel = post ? await stores.channels.get(post.channel_id) : undefined;
    if (!post || !channel) {
      if (isSystemAdmin(session.roles)) throw postNotFound();
      throw AppError.forbidden(permission);
    }
    await this.authz.requireChannel(session, channel, permission);
    return { post, channel };
  }

  /**
   * The update time a reaction gives its post: now, but past the post's and its channel's last change, so that the
   * channel's ETag and `since` readers notice it (as PostsService does for edits).
   */
  private async changeTime(post: Post): Promise<number> {
    const last = await this.deps.stores.posts.lastUpdateAt(post.channel_id);
    return Math.max(this.deps.now(), post.update_at + 1, last + 1);
  }

  async save(body: { user_id?: string; post_id?: string; emoji_name?: string }, session: Session): Promise<Reaction> {
    const userId = body.user_id ?? '';
    const postId = body.post_id ?? '';
    const emojiName = body.emoji_name ?? '';
    if (!isValidId(userId) || !isValidId(postId) || emojiName === '' || emojiName.length > REACTION_LIMITS.emojiName) {
      throw AppError.badRequest('api.reaction.save_reaction.invalid.app_error', 'Unable to save reaction.');
    }
    if (userId !== session.userId) {
      throw new AppError('api.reaction.save_reaction.user_id.app_error', 'You can not save reaction for the other user.', 403);
    }
    const { post, channel } = await this.byPost(postId, session, 'add_reaction');
    if (post.delete_at !== 0) throw postNotFound();
    if (!EMOJI_NAME.test(emojiName)) throw AppError.badRequest('model.reaction.is_valid.emoji_name.app_error', 'Invalid emoji name.');
    if (channel.delete_at !== 0) {
      throw new AppError('api.reaction.save.archived_channel.app_error', 'You cannot react to a post in an archived channel.', 403);
    }
    const limit = Math.min(this.deps.config.get().ServiceSettings.UniqueEmojiReactionLimitPerPost, REACTION_LIMITS.uniqueEmojiPerPostMax);
    const now = await this.changeTime(post);
    const reaction = await this.deps.stores.transaction(async (tx) => {
      // The post's row first: on MySQL its lock queues concurrent reactions to the post here, before anything is
      // read, so the count below sees every reaction committed before this one and the limit holds under races.
      await tx.posts.update(post.id, { update_at: now, has_reactions: true });
      const emoji = await tx.reactions.emojiOnPost(post.id);
      if (!emoji.has(emojiName) && emoji.size >= limit) {
        throw AppError.badRequest('app.reaction.save.save.too_many_reactions', `This post already has ${limit} different emoji reactions.`);
      }
      return tx.reactions.save({ post_id: post.id, user_id: userId, emoji_name: emojiName, channel_id: channel.id }, now);
    });
    this.realtime.reaction('reaction_added', reaction);
    return reaction;
  }

  /**
   * Removes a reaction. One that is not there is not an error, as in Mattermost; but then nothing changes and no event
   * is sent (Mattermost still touches the post and sends reaction_removed), so a no-op stays one.
   */
  async remove(userId: string, postId: string, emojiName: string, session: Session): Promise<void> {
    const { post, channel } = await this.byPost(postId, session, 'remove_reaction');
    if (userId !== session.userId && !this.authz.system(session, 'remove_others_reactions')) throw AppError.forbidden('remove_others_reactions');
    if (post.delete_at !== 0) throw postNotFound();
    if (channel.delete_at !== 0) {
      throw new AppError('api.reaction.delete.archived_channel.app_error', 'You cannot remove a reaction in an archived channel.', 403);
    }
    const now = await this.changeTime(post);
    const nothingRemoved = new Error('no such reaction');
    let removed: Reaction;
    try {
      removed = await this.deps.stores.transaction(async (tx) => {
        // The post's row first, as when saving: both lock in the same order, so a save and a removal racing on one
        // post wait for each other instead of deadlocking on MySQL.
        await tx.posts.update(post.id, { update_at: now });
        const r = await tx.reactions.remove({ post_id: post.id, user_id: userId, emoji_name: emojiName }, now);
        if (!r) throw nothingRemoved; // rolls the post's update back: nothing changed
        if ((await tx.reactions.emojiOnPost(post.id)).size === 0) await tx.posts.update(post.id, { has_reactions: false });
        return r;
      });
    } catch (err) {
      if (err === nothingRemoved) return;
      throw err;
    }
    this.realtime.reaction('reaction_removed', removed);
  }

  async forPost(postId: string, session: Session): Promise<Reaction[]> {
    const { post } = await this.byPost(postId, session, 'read_channel');
    return this.deps.stores.reactions.forPosts([post.id]);
  }

  /**
   * The reactions of several posts, by post id, every requested id present. As in Mattermost, one post the caller may
   * not read (or that does not exist, for anyone but a system admin) refuses the whole request.
   */
  async forPosts(postIds: string[], session: Session): Promise<Record<string, Reaction[]>> {
    const { stores } = this.deps;
    const ids = [...new Set(postIds)];
    if (ids.length === 0) return {};
    const admin = isSystemAdmin(session.roles);
    const posts = new Map((await stores.posts.getMany(ids.filter(isValidId))).map((p) => [p.id, p]));
    const readable = new Map<string, boolean>();
    for (const id of ids) {
      const post = posts.get(id);
      if (!post) {
        if (admin) continue;
        throw AppError.forbidden('read_channel');
      }
      let ok = readable.get(post.channel_id);
      if (ok === undefined) {
        const channel = await stores.channels.get(post.channel_id);
        ok = channel !== undefined && (await this.authz.channel(session, channel, 'read_channel'));
        readable.set(post.channel_id, ok);
      }
      if (!ok) throw AppError.forbidden('read_channel');
    }
    const byPost = groupByPost(await stores.reactions.forPosts([...posts.keys()]));
    return Object.fromEntries(ids.map((id) => [id, byPost.get(id) ?? []]));
  }
}
