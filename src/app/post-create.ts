// CreatePost: a client's post, checked by the post rules (post-rules.ts), written through the group commit with its
// files, and announced. A retry with the same pending_post_id gets the first post back.
import { isValidId } from '../lib/ids';
import { AppError, type CreatePostInput, type Post, type PostMetadata, type Session } from '../model';
import { Authz } from './authz';
import { channelNotFound } from './channel-errors';
import type { Deps } from './deps';
import { PendingPosts } from './pending-posts';
import { attachFiles, filesRefused, normalizeFileIds, withFileMetadata } from './post-files';
import { archivedChannelError, messageLengthError, must, priorityOnReplyError, propsActionsError, propsSizeError, withoutReservedProps } from './post-rules';
import type { PostCommit, PostWriter } from './post-writer';
import type { PostsService } from './posts';
import type { Realtime } from './realtime';
import { newPost } from './records';
import type { StatusService } from './status';

const PRIORITY_FIELDS = ['priority', 'requested_ack', 'persistent_notifications'] as const;

export class PostCreator {
  private readonly authz: Authz;
  private readonly pending: PendingPosts;

  constructor(
    private readonly deps: Deps,
    private readonly posts: PostsService,
    private readonly writer: PostWriter,
    private readonly realtime: Realtime,
    private readonly status: StatusService,
  ) {
    this.authz = new Authz(deps);
    this.pending = new PendingPosts(() => deps.now());
  }

  async create(input: CreatePostInput, session: Session): Promise<Post> {
    const { stores } = this.deps;
    if (!isValidId(input.channel_id)) throw AppError.invalidParam('channel_id');
    const channel = await stores.channels.get(input.channel_id);
    if (!channel) throw channelNotFound();
    await this.authz.requireChannel(session, channel, 'create_post');
    must(archivedChannelError(channel, 'create'));
    must(messageLengthError(input.message, 'create'));
    const fileIds = normalizeFileIds(input.file_ids);
    if (fileIds.length > 0) await this.authz.requireChannel(session, channel, 'upload_file');
    const props = withoutReservedProps(input.props, 'create');
    // The BOT marker, as Mattermost sets it: from the author's account, never from the client. A bot's session is
    // always one of its access tokens (bots cannot log in), which knows the account is a bot.
    if (session.isBot) props.from_bot = 'true';
    must(propsSizeError(props, 'create'));
    // Interactive actions by their rules; the writer keeps their integrations apart (attachment-actions.ts).
    must(propsActionsError(props));
    const rootId = input.root_id ?? '';
    if (rootId) await this.posts.checkRoot(rootId, channel.id);
    const metadata: PostMetadata = {};
    if (input.metadata?.priority) {
      must(priorityOnReplyError(rootId));
      // Only the known fields: anything else a client adds would be stored and served back to everyone. A null field
      // is not given (Mattermost's PostPriority fields are pointers).
      const given = input.metadata.priority;
      metadata.priority = Object.fromEntries(PRIORITY_FIELDS.filter((k) => given[k] !== undefined && given[k] !== null).map((k) => [k, given[k]]));
    }
    const write = async () => {
      const post = newPost(
        { user_id: session.userId, channel_id: channel.id, message: input.message, root_id: rootId, props, pending_post_id: input.pending_post_id ?? '', metadata, file_ids: fileIds },
        this.deps.now(),
      );
      // The files are attached in the post's own transaction, or the post is not written (see attachFiles).
      const files = fileIds.length > 0 ? attachFiles(post, fileIds, post.create_at) : undefined;
      const commit: PostCommit = { channel, posts: [post], allowSelfMention: false, markViewed: true, precondition: files?.precondition, triggerWebhooks: true };
      if (!(await this.writer.submit(commit))) throw filesRefused();
      if (files) post.metadata = { ...post.metadata, files: files.infos() };
      // Posting is activity: the author is online (Mattermost's set_online).
      this.status.activity(session.userId, true).catch((err: unknown) => this.deps.onBackgroundError(err, 'status not updated'));
      this.realtime.posted([post], {
        channel,
        senderName: async () => `@${(await this.deps.stores.users.get(post.user_id))?.username ?? ''}`,
        setOnline: true,
        mentioned: commit.mentioned,
        followers: commit.followers,
      });
      return post;
    };
    if (!input.pending_post_id) return write();
    // A retry of a post already made (same author, same pending id) gets that post back, not a second copy. The
    // request's own checks ran first: a retry must still be allowed to post here.
    const alive = async (id: string) => {
      const post = await stores.posts.get(id);
      return post && post.delete_at === 0 ? (await withFileMetadata(stores, [post]))[0] : undefined;
    };
    return this.pending.once(`${session.userId}:${input.pending_post_id}`, write, alive);
  }
}
