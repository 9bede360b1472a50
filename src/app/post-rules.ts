// The rules a post must pass to be written, once for every path that writes one: CreatePost, incoming webhooks, the
// answers of outgoing webhooks and slash commands, and the edits (PatchPost, UpdatePost, pins, an action's update).
// Each rule is a pure function returning the AppError Mattermost answers (its id and status) or undefined; the callers
// throw it at their own point of the order (which error wins is part of each path's behaviour). Where Mattermost's
// paths deliberately differ (a webhook splits a long message that CreatePost refuses, drops reserved props that
// CreatePost also drops but answers its own ids), the path is an argument and the difference lives here, in one
// place, with its row in test/unit/post-rules.test.ts.
import { isValidId } from '../lib/ids';
import { codePointLength } from '../lib/text';
import { AppError, POST_LIMITS, SERVER_PROPS, WEBHOOK_RESERVED_PROPS, type Channel, type Post } from '../model';
import { ActionRuleError, checkPropsActions } from './attachment-actions';
import { AttachmentError, normaliseAttachments, type Attachment } from './slack';

/**
 * Who is writing the post. `create`: CreatePost. `webhook`: an incoming webhook's payload. `webhook_answer`: an
 * outgoing webhook's answer, posted by the rules of a payload. `command`: a slash command's in-channel answer.
 * `patch` and `update`: edits of a post that exists (PatchPost and pins; UpdatePost and an action's update).
 */
export type PostPath = 'create' | 'webhook' | 'webhook_answer' | 'command' | 'patch' | 'update';

/** The paths that make new posts. */
export type NewPostPath = Exclude<PostPath, 'patch' | 'update'>;

const invalidRoot = () => AppError.badRequest('api.post.create_post.root_id.app_error', 'Invalid RootId parameter.');

/**
 * An archived channel takes no new posts and no edits. An outgoing webhook's answer to a channel archived since the
 * call answers as a channel that is gone (404), as its missing channel does.
 */
export function archivedChannelError(channel: Pick<Channel, 'delete_at'>, path: PostPath): AppError | undefined {
  if (channel.delete_at === 0) return undefined;
  switch (path) {
    case 'create':
    case 'webhook':
    case 'command':
      return AppError.badRequest('api.post.create_post.can_not_post_to_deleted.error', 'Can not post to deleted channel.');
    case 'webhook_answer':
      return AppError.notFound('app.channel.get.existing.app_error', 'Unable to find the existing channel.');
    case 'patch':
      return AppError.badRequest('api.post.patch_post.can_not_update_post_in_deleted.error', 'Can not update a post in an archived channel.');
    case 'update':
      return AppError.badRequest('api.post.update_post.can_not_update_post_in_deleted.error', 'Can not update a post in an archived channel.');
  }
}

/** A reply's root_id must be an id before anything is read. */
export function rootIdError(rootId: string): AppError | undefined {
  return isValidId(rootId) ? undefined : invalidRoot();
}

/** The root a reply names, as read: it must exist, be alive, sit in the reply's channel and be a root itself. */
export function rootError(root: Pick<Post, 'delete_at' | 'channel_id' | 'root_id'> | undefined, channelId: string): AppError | undefined {
  if (!root || root.delete_at !== 0 || root.channel_id !== channelId || root.root_id !== '') return invalidRoot();
  return undefined;
}

/** A post's priority is a root's: a reply with one is refused (CreatePost and webhooks alike). */
export function priorityOnReplyError(rootId: string): AppError | undefined {
  if (rootId === '') return undefined;
  return AppError.badRequest('api.post.create_post.post_priority.reply_not_allowed', 'Post priority can only be set on root posts.');
}

/** An incoming webhook's priority object must name its priority (the payload's schema lets null through). */
export function webhookPriorityError(priority: { priority?: string | null } | undefined): AppError | undefined {
  if (priority && (priority.priority === null || priority.priority === undefined)) return AppError.invalidParam('webhook.priority.priority');
  return undefined;
}

/**
 * The `type` an integration may give its posts. CreatePost has no such field (its posts are ordinary, ''), and edits
 * keep the post's. Webhooks and their answers: blank or `custom_…`; a webhook's, also at most POST_LIMITS.type (its
 * answers are not bounded here: a background post, as before). Commands: anything but a `system_…` type.
 */
export function typeError(type: string, path: 'webhook' | 'webhook_answer' | 'command'): AppError | undefined {
  if (path === 'command') return type.startsWith('system_') ? AppError.invalidParam('post.type') : undefined;
  const custom = type.trim() === '' || type.startsWith('custom_');
  if (path === 'webhook_answer') return custom ? undefined : AppError.invalidParam('post.type');
  if (!custom) {
    return AppError.badRequest('api.context.invalid_param.app_error', 'Invalid or missing post.type parameter in request body or URL. The post type must be blank or start with "custom_".');
  }
  if (type.length > POST_LIMITS.type) return AppError.badRequest('api.context.invalid_param.app_error', `Invalid post.type parameter: at most ${POST_LIMITS.type} characters.`);
  return undefined;
}

/**
 * The message's length. Webhooks and their answers are split into several posts instead (splitByCodePoints), so no
 * length refuses them.
 */
export function messageLengthError(message: string, path: PostPath): AppError | undefined {
  if (path === 'webhook' || path === 'webhook_answer') return undefined;
  if (codePointLength(message) <= POST_LIMITS.messageRunes) return undefined;
  return AppError.badRequest('model.post.is_valid.message_length.app_error', `Message must be ${POST_LIMITS.messageRunes} characters or fewer.`);
}

/**
 * An incoming webhook posts text, attachments or both; an empty payload is refused. (An outgoing webhook's or a
 * command's empty answer posts nothing, without an error: the callers decide that, see `isEmptyAnswer`.)
 */
export function emptyPayloadError(text: string, attachments: readonly unknown[]): AppError | undefined {
  return isEmptyAnswer(text, attachments) ? AppError.badRequest('web.incoming_webhook.text.app_error', 'No text specified.') : undefined;
}

export function isEmptyAnswer(text: string, attachments: readonly unknown[]): boolean {
  return text === '' && attachments.length === 0;
}

/**
 * The props a writer may set, without the server's own (SERVER_PROPS: the webhook identity, the BOT marker, the
 * overrides), which are dropped, not refused. Webhooks and their answers also drop `attachments`: theirs come at the
 * payload's top level. The server adds its own afterwards.
 */
export function withoutReservedProps(given: Record<string, unknown> | null | undefined, path: NewPostPath): Record<string, unknown> {
  const props: Record<string, unknown> = { ...(given ?? {}) };
  const reserved = path === 'webhook' || path === 'webhook_answer' ? WEBHOOK_RESERVED_PROPS : SERVER_PROPS;
  for (const key of reserved) delete props[key];
  return props;
}

/** An edit's props with the server-set ones kept as the post has them: an edit never adds, changes or drops them. */
export function withServerPropsOf(post: Pick<Post, 'props'>, given: Record<string, unknown>): Record<string, unknown> {
  const props: Record<string, unknown> = { ...given };
  for (const key of SERVER_PROPS) {
    delete props[key];
    if (key in post.props) props[key] = post.props[key];
  }
  return props;
}

/** Whether props serialised as JSON fit POST_LIMITS.propsBytes (UTF-8 bytes). */
export function propsFit(props: Record<string, unknown>): boolean {
  const json = JSON.stringify(props);
  // A UTF-16 unit is at most 3 UTF-8 bytes: most props are decided without counting bytes.
  return json.length * 3 <= POST_LIMITS.propsBytes || (json.length <= POST_LIMITS.propsBytes && Buffer.byteLength(json) <= POST_LIMITS.propsBytes);
}

/**
 * Props as stored (a webhook's with its attachments and the server's own) are bounded for every post. Mattermost's
 * ids: Post.IsValid's, and for webhooks the one for props it cannot split over several posts.
 */
export function propsSizeError(props: Record<string, unknown>, path: PostPath): AppError | undefined {
  if (propsFit(props)) return undefined;
  if (path === 'webhook' || path === 'webhook_answer') {
    return AppError.badRequest('web.incoming_webhook.split_props_length.app_error', `Unable to split webhook props into ${POST_LIMITS.propsBytes} byte parts.`);
  }
  return AppError.badRequest('model.post.is_valid.props.app_error', `Props must be ${POST_LIMITS.propsBytes} bytes or fewer when serialised as JSON.`);
}

/** An action rule broken by props a client or an integration sent: Mattermost's id for a bad body field. */
export function actionPropsError(err: ActionRuleError): AppError {
  return AppError.badRequest('api.context.invalid_param.app_error', `Invalid or missing props in request body: ${err.message}.`);
}

/**
 * Interactive actions in props a client sent (attachment-actions.ts holds their rules); `known` are the action ids
 * the edited post already has (sent back without their integration, as clients see them).
 */
export function propsActionsError(props: Record<string, unknown>, known?: ReadonlySet<string>): AppError | undefined {
  try {
    checkPropsActions(props, known);
    return undefined;
  } catch (err) {
    if (err instanceof ActionRuleError) return actionPropsError(err);
    throw err;
  }
}

/**
 * An integration's top-level `attachments` normalised as Mattermost decodes them (slack.ts), or the error its path
 * answers for a bad shape: a webhook's (and its answer's) parse error with the reason in detailed_error, a command's
 * invalid_param with the reason in the message.
 */
export function parseAttachments(raw: unknown, path: 'webhook' | 'webhook_answer' | 'command'): Attachment[] | AppError {
  try {
    return normaliseAttachments(raw);
  } catch (err) {
    if (!(err instanceof AttachmentError)) {
      if (path === 'command') return AppError.badRequest('api.context.invalid_param.app_error', 'Invalid attachments.');
      throw err;
    }
    if (path === 'command') return AppError.badRequest('api.context.invalid_param.app_error', err.message);
    return AppError.badRequest('web.incoming_webhook.parse.app_error', 'Unable to parse incoming data.', err.message);
  }
}

/** Throws a rule's error: `must(rule(...))` at each point of a path's order. */
export function must(error: AppError | undefined): void {
  if (error) throw error;
}
