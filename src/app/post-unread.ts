import { isValidId } from '../lib/ids';
import { AppError, type Session } from '../model';
import { Authz } from './authz';
import type { Deps } from './deps';
import { broadcast } from './events';
import { PostNotifier } from './post-notifications';

/** How many of the now unread posts are read again to count mentions (the rest count as no mention). */
const MENTION_RECOUNT_MAX = 1000;

export interface ChannelUnreadAt {
  team_id: string;
  channel_id: string;
  user_id: string;
  msg_count: number;
  mention_count: number;
  mention_count_root: number;
  urgent_mention_count: number;
  msg_count_root: number;
  last_viewed_at: number;
}

/**
 * SetPostUnread ("Mark as Unread" on a post), as Mattermost's MarkChannelAsUnreadFromPost: the user's membership of
 * the post's channel goes back to just before the post, the mentions from the post on are counted again by the post
 * writer's rule, and the user's connections hear `post_unread`.
 */
export class PostUnreadService {
  private readonly authz: Authz;

  constructor(private readonly deps: Deps) {
    this.authz = new Authz(deps);
  }

  async setUnread(userId: string, postId: string, session: Session): Promise<ChannelUnreadAt> {
    const { stores } = this.deps;
    if (userId !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
    // Mattermost's SessionHasPermissionToChannelByPost: a post that does not exist is a 403 as one not readable.
    const post = isValidId(postId) ? await stores.posts.get(postId) : undefined;
    const channel = post ? await stores.channels.get(post.channel_id) : undefined;
    if (!post || !channel || !(await this.authz.channel(session, channel, 'read_channel'))) throw AppError.forbidden('read_channel');
    if (post.delete_at !== 0) throw AppError.notFound('app.post.get.app_error', 'Unable to get the post.');
    const memberMissing = () => AppError.notFound('app.channel.get_member.missing.app_error', 'No channel member found for that user ID and channel ID.');
    if (!(await stores.channels.getMember(channel.id, userId))) throw memberMissing();
    const mentions = await this.countMentions(userId, post.create_at, channel);
    const now = this.deps.now();
    if (!(await stores.channels.setUnreadFrom(channel.id, userId, post.create_at, mentions, now))) throw memberMissing();
    const member = await stores.channels.getMember(channel.id, userId);
    if (!member) throw memberMissing();
    const unread: ChannelUnreadAt = {
      team_id: channel.team_id,
      channel_id: channel.id,
      user_id: userId,
      msg_count: member.msg_count,
      mention_count: member.mention_count,
      mention_count_root: member.mention_count_root,
      urgent_mention_count: 0,
      msg_count_root: member.msg_count_root,
      last_viewed_at: member.last_viewed_at,
    };
    if (this.deps.events.listening()) {
      const { team_id: _t, channel_id: _c, user_id: _u, ...counts } = unread;
      this.deps.events.publish({
        event: 'post_unread',
        data: { ...counts, post_id: post.id },
        broadcast: broadcast({ user_id: userId, channel_id: channel.id, team_id: channel.team_id }),
        audience: { kind: 'users', userIds: [userId] },
      });
    }
    return unread;
  }

  /** The posts from `from` on that mention the user (in a direct or group channel: every post by someone else). */
  private async countMentions(userId: string, from: number, channel: Parameters<PostNotifier['mentioned']>[1]): Promise<{ all: number; root: number }> {
    const anchor = { create_at: from - 1, id: '' };
    const posts = await this.deps.stores.posts.around({ channelId: channel.id, perPage: MENTION_RECOUNT_MAX, page: 0, includeDeleted: false }, anchor, 'after');
    const notifier = new PostNotifier(this.deps.stores, this.deps);
    let all = 0;
    let root = 0;
    for (const p of posts) {
      if (p.user_id === userId && p.props.from_webhook !== 'true') continue;
      if ((await notifier.mentioned(p, channel)).includes(userId)) {
        all++;
        if (p.root_id === '') root++;
      }
    }
    return { all, root };
  }
}
