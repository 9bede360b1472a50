// A slash command's answer (CommandResponse) becomes what the user sees: a post in the channel (in_channel) or an
// ephemeral post for the invoking user only, plus the same for each of its extra_responses. Custom commands' answers
// arrive from the integration (at once, or later through the response URL); built-in ones from builtin-commands.ts.
import { AppError, type Channel, type Command, type CommandResponse, type Post } from '../model';
import type { Deps } from './deps';
import { sendEphemeral } from './ephemeral';
import type { PostsService } from './posts';
import { archivedChannelError, messageLengthError, must, parseAttachments, propsSizeError, typeError, withoutReservedProps } from './post-rules';
import type { PostCommit, PostWriter } from './post-writer';
import type { Realtime } from './realtime';
import { newPost } from './records';
import { attachmentTexts, convertAttachment, convertSlackLinks, convertSlackMentions, referencedUserIds } from './slack';
import type { StatusService } from './status';

/** Where and as whom a command ran: its answers go there. */
export interface CommandPlace {
  userId: string;
  channel: Channel;
  /** The thread the command ran in ('' for none): in-channel answers are replies in it. */
  rootId: string;
}

/** The posts an answer made (in_channel) and the ephemeral posts it sent, for the caller's information. */
export interface Handled {
  posted: Post[];
  ephemeral: Post[];
}

const failed = (trigger: string, cause: unknown) =>
  new AppError(
    'api.command.execute_command.create_post_failed.app_error',
    `Command '${trigger}' failed to post response. Please contact your System Administrator.`,
    500,
    cause instanceof Error ? cause.message : String(cause),
  );

export class CommandResponder {
  constructor(
    private readonly deps: Deps,
    private readonly posts: PostsService,
    private readonly writer: PostWriter,
    private readonly realtime: Realtime,
    private readonly status: StatusService,
  ) {}

  /**
   * Handles the answer and each extra answer, as Mattermost's HandleCommandResponse: every one is tried, and if any
   * failed the request fails with create_post_failed (500), the cause in detailed_error. `command` is the custom
   * command (its posts are an integration's: from_webhook) or undefined for a built-in one.
   */
  async handle(trigger: string, command: Command | undefined, place: CommandPlace, response: CommandResponse): Promise<Handled> {
    const handled: Handled = { posted: [], ephemeral: [] };
    let lastError: unknown;
    for (const r of [response, ...(response.extra_responses ?? [])]) {
      if (!r || typeof r !== 'object') continue;
      try {
        const out = await this.one(command, place, r);
        if (out?.kind === 'posted') handled.posted.push(out.post);
        else if (out) handled.ephemeral.push(out.post);
      } catch (err) {
        lastError = err;
      }
    }
    if (lastError !== undefined) throw failed(trigger, lastError);
    return handled;
  }

  private async one(command: Command | undefined, place: CommandPlace, r: CommandResponse): Promise<{ kind: 'posted' | 'ephemeral'; post: Post } | undefined> {
    const { stores, config } = this.deps;
    const settings = config.get().ServiceSettings;
    let channel = place.channel;
    if (r.channel_id && r.channel_id !== channel.id) {
      const member = await stores.channels.getMember(r.channel_id, place.userId);
      const other = member ? await stores.channels.get(r.channel_id) : undefined;
      if (!other) throw new AppError('api.command.command_post.forbidden.app_error', 'Specified user is not a member of specified channel.', 403);
      channel = other;
    }
    // A reply placed in another channel cannot be in this channel's thread.
    const rootId = channel.id === place.channel.id ? place.rootId : '';

    // The response may not forge what only the server sets; the command's own identity is added below.
    const props = withoutReservedProps(r.props, 'command');
    let fromIntegration = command !== undefined;
    if (settings.EnablePostUsernameOverride) {
      const name = command?.username || r.username;
      if (name) {
        props.override_username = name;
        fromIntegration = true;
      }
    }
    if (settings.EnablePostIconOverride) {
      const icon = command?.icon_url || r.icon_url;
      if (icon) {
        props.override_icon_url = icon;
        fromIntegration = true;
      }
    }
    if (fromIntegration) props.from_webhook = 'true';

    const parsed = parseAttachments(r.attachments, 'command');
    if (parsed instanceof AppError) throw parsed;
    let attachments = parsed;
    let text = r.text ?? '';
    if (!r.skip_slack_parsing) {
      const ids = referencedUserIds([text, ...attachmentTexts(attachments)]);
      const usernames = new Map((ids.length ? await stores.users.getMany(ids) : []).map((u) => [u.id, u.username] as const));
      text = convertSlackLinks(convertSlackMentions(text, usernames));
      attachments = attachments.map((a) => convertAttachment(a, usernames));
    }
    if (attachments.length > 0) props.attachments = attachments;
    const type = attachments.length > 0 ? 'slack_attachment' : (r.type ?? '');
    must(typeError(type, 'command'));

    if (r.response_type === 'in_channel') return { kind: 'posted', post: await this.post(place.userId, channel, rootId, text, type, props, command) };
    // Ephemeral (the default): shown only when there is something to show, as Mattermost does.
    if (text === '' && r.attachments == null) return undefined;
    return { kind: 'ephemeral', post: sendEphemeral(this.deps, place.userId, { channel_id: channel.id, root_id: rootId, message: text, props }) };
  }

  /** A real post by the invoking user, written and announced as any post (the poster's read state, mentions, threads). */
  private async post(userId: string, channel: Channel, rootId: string, message: string, type: string, props: Record<string, unknown>, command: Command | undefined): Promise<Post> {
    must(archivedChannelError(channel, 'command'));
    must(messageLengthError(message, 'command'));
    must(propsSizeError(props, 'command'));
    if (rootId) await this.posts.checkRoot(rootId, channel.id);
    const post = newPost({ user_id: userId, channel_id: channel.id, message, type, props, root_id: rootId }, this.deps.now());
    // As Mattermost's CreateCommandPost: in-channel answers fire outgoing webhooks (TriggerWebhooks); a custom
    // command's posts are its own (their interactive actions are signed with its token).
    const commit: PostCommit = { channel, posts: [post], allowSelfMention: false, markViewed: true, triggerWebhooks: true, origin: command ? { kind: 'command', id: command.id } : undefined };
    await this.writer.submit(commit);
    this.status.activity(userId, true).catch((err: unknown) => this.deps.onBackgroundError(err, 'status not updated'));
    const override = props.override_username;
    this.realtime.posted([post], {
      channel,
      senderName: typeof override === 'string' ? override : async () => `@${(await this.deps.stores.users.get(userId))?.username ?? ''}`,
      setOnline: true,
      mentioned: commit.mentioned,
      followers: commit.followers,
    });
    return post;
  }
}
