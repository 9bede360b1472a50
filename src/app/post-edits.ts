// Changes to posts that exist: PatchPost, UpdatePost, PinPost/UnpinPost and DeletePost. Every change moves the post's
// update time past the channel's last change (changeTime), so ETags and `since` readers notice it.
import { AppError, type Channel, type Post, type PostPatch, type PostUpdate, type SealedActions, type Session } from '../model';
import { resealProps } from './action-props';
import { Authz } from './authz';
import type { Deps } from './deps';
import { archivedChannelError, messageLengthError, must, propsSizeError, withServerPropsOf } from './post-rules';
import type { PostsService } from './posts';
import type { Realtime } from './realtime';
import type { ThreadsService } from './threads';

const systemMessage = () => AppError.badRequest('api.post.update_post.system_message.app_error', 'Unable to update system message.');

function sameIds(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((id) => b.includes(id));
}

export class PostEdits {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly posts: PostsService,
    private readonly realtime: Realtime,
    private readonly threads: ThreadsService,
  ) {
    this.authz = new Authz(deps);
  }

  /**
   * The update time of an edit or deletion: now, but always past the channel's last change, so that the channel's
   * ETag and `since` readers notice it even when another post changed in the same millisecond.
   */
  private async changeTime(post: Post): Promise<number> {
    const last = await this.deps.stores.posts.lastUpdateAt(post.channel_id);
    return Math.max(this.deps.now(), post.update_at + 1, last + 1);
  }

  async patch(postId: string, patch: PostPatch, session: Session): Promise<Post> {
    const { stores } = this.deps;
    const { post, channel } = await this.posts.readable(postId, session, false);
    const own = post.user_id === session.userId;
    await this.authz.requireChannel(session, channel, own ? 'edit_post' : 'edit_others_posts');
    // As UpdatePost, pins and reactions: an archived channel's posts stay as they were (Mattermost's PatchPost id).
    must(archivedChannelError(channel, 'patch'));
    const now = await this.changeTime(post);
    const fields: Partial<Post> = { update_at: now };
    if (patch.message !== undefined && patch.message !== post.message) {
      must(messageLengthError(patch.message, 'patch'));
      fields.message = patch.message;
      fields.edit_at = now;
    }
    if (patch.is_pinned !== undefined) fields.is_pinned = patch.is_pinned;
    if (patch.props !== undefined) {
      // Server-set props survive a patch unchanged: editing never turns a post into (or out of) a webhook post.
      const props = withServerPropsOf(post, patch.props);
      must(propsSizeError(props, 'patch'));
      fields.props = props;
    }
    // Actions sent back as clients see them keep their integrations; new ones are checked and kept apart.
    const actions = fields.props ? await resealProps(stores, post, fields.props, false) : undefined;
    if (actions) fields.props = actions.props;
    // A post's files are set when it is created; a patch may repeat them (clients send the post back) but not change them.
    if (patch.file_ids !== undefined && !sameIds(patch.file_ids, post.file_ids)) {
      throw AppError.badRequest('api.post.create_post.file_ids.app_error', "Changing a post's files is not supported.");
    }
    await this.writeEdit(post.id, fields, actions);
    const [updated] = await this.posts.withReplyStats([{ ...post, ...fields }]);
    this.realtime.postEdited(updated);
    return updated;
  }

  /** An edit's fields, and its actions' integrations when they changed, in one transaction. */
  private async writeEdit(postId: string, fields: Partial<Post>, actions: { sealed?: SealedActions; changed: boolean } | undefined): Promise<void> {
    if (!actions?.changed) return this.deps.stores.posts.update(postId, fields);
    await this.deps.stores.transaction(async (tx) => {
      await tx.posts.update(postId, fields);
      await tx.postActions.replace(postId, actions.sealed);
    });
  }

  async delete(postId: string, session: Session): Promise<void> {
    const { stores } = this.deps;
    const { post, channel } = await this.posts.readable(postId, session, false);
    await this.authz.requireChannel(session, channel, post.user_id === session.userId ? 'delete_post' : 'delete_others_posts');
    const deletedAt = await this.changeTime(post);
    // The thread's counters move with the deletion, in its transaction: a reply's, or the root's deletion time.
    const unmentioned = await stores.transaction(async (tx) => {
      await tx.posts.softDelete(post, deletedAt);
      if (post.root_id === '') {
        await tx.threads.setDeleted(post.id, deletedAt);
        return [];
      }
      return this.threads.replyDeleted(tx, post, channel);
    });
    if (post.root_id !== '') this.threads.publishUpdated(post.root_id, channel.team_id, () => ({ replies: 0, mentions: 0 }), new Set(unmentioned));
    await stores.files.deleteForThread(post.id, deletedAt);
    this.realtime.postDeleted({ ...post, delete_at: deletedAt, update_at: deletedAt }, session.userId);
  }

  /**
   * UpdatePost: the whole editable part of a post replaced, as Mattermost's PUT does it (message, is_pinned and props
   * from the body, absent ones empty; file_ids absent kept). A post that does not exist or was deleted fails the
   * permission check (403), as in Mattermost; editing someone else's post needs edit_post and edit_others_posts.
   */
  async update(postId: string, body: PostUpdate, session: Session): Promise<Post> {
    const { stores } = this.deps;
    if (body.id !== postId) throw AppError.invalidParam('id');
    const { post, channel } = await this.changeable(postId, session, 'edit_post');
    if (post.user_id !== session.userId) await this.authz.requireChannel(session, channel, 'edit_others_posts');
    if (post.type.startsWith('system_')) throw systemMessage();
    must(archivedChannelError(channel, 'update'));
    const message = body.message ?? '';
    must(messageLengthError(message, 'update'));
    const fileIds = body.file_ids ?? post.file_ids;
    if (fileIds.length !== post.file_ids.length || fileIds.some((id, i) => id !== post.file_ids[i])) {
      throw AppError.badRequest('api.post.create_post.file_ids.app_error', 'File attachments are not supported by this server.');
    }
    const given = withServerPropsOf(post, body.props ?? {});
    must(propsSizeError(given, 'update'));
    const actions = await resealProps(stores, post, given, false);
    const props = actions.props;
    const now = await this.changeTime(post);
    const fields: Partial<Post> = { update_at: now, message, is_pinned: body.is_pinned ?? false, props };
    if (message !== post.message) fields.edit_at = now;
    await this.writeEdit(post.id, fields, actions);
    const [updated] = await this.posts.withReplyStats([{ ...post, ...fields }]);
    this.realtime.postEdited(updated);
    return updated;
  }

  /**
   * PinPost and UnpinPost: anyone who can read the post may pin or unpin it, as in Mattermost. The edit time does not
   * move (the message is unchanged); the update time does, and the channel hears of it through post_edited.
   */
  async setPinned(postId: string, pinned: boolean, session: Session): Promise<void> {
    const { post, channel } = await this.changeable(postId, session, 'read_channel');
    must(archivedChannelError(channel, 'patch'));
    if (post.type.startsWith('system_')) throw systemMessage();
    const fields: Partial<Post> = { update_at: await this.changeTime(post), is_pinned: pinned };
    await this.deps.stores.posts.update(post.id, fields);
    const [updated] = await this.posts.withReplyStats([{ ...post, ...fields }]);
    this.realtime.postEdited(updated);
  }

  /** A live post and its channel, for a change needing `permission` there; one missing or deleted is that 403. */
  private async changeable(postId: string, session: Session, permission: 'edit_post' | 'read_channel'): Promise<{ post: Post; channel: Channel }> {
    const { stores } = this.deps;
    const post = await stores.posts.get(postId);
    const channel = post && post.delete_at === 0 ? await stores.channels.get(post.channel_id) : undefined;
    if (!post || !channel) throw AppError.forbidden(permission);
    await this.authz.requireChannel(session, channel, permission);
    return { post, channel };
  }
}
