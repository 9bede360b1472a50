// Ephemeral posts: a message for one user's eyes, shown in a channel by their clients and never stored (slash command
// replies and errors, warnings, an action's ephemeral_text). Nothing reads them back: a reload forgets them.
import type { Post } from '../model';
import { withoutIntegrations } from './attachment-actions';
import type { Deps } from './deps';
import { broadcast } from './events';
import { newPost } from './records';

/** What a producer gives: where it shows and what it says; the rest is filled as Mattermost's SendEphemeralPost does. */
export interface EphemeralInput {
  channel_id: string;
  root_id?: string;
  message: string;
  props?: Record<string, unknown>;
  /** The author shown; the recipient when absent (Mattermost's replies name the invoking user). */
  user_id?: string;
}

/** The post as clients receive it: type forced to system_ephemeral, a fresh id, created now. */
export function ephemeralPost(deps: Pick<Deps, 'now'>, userId: string, input: EphemeralInput): Post {
  return newPost(
    {
      user_id: input.user_id ?? userId,
      channel_id: input.channel_id,
      root_id: input.root_id ?? '',
      message: input.message,
      // An action's URL and context never reach a client, in an ephemeral post either (they cannot be clicked:
      // ephemeral posts are not stored, so no action of theirs can be found).
      props: withoutIntegrations(input.props ?? {}),
      type: 'system_ephemeral',
    },
    deps.now(),
  );
}

/**
 * Sends `ephemeral_message` (`{post: <JSON string>}`) to every socket of that user, broadcast `{user_id, channel_id}`
 * as Mattermost sends it; nobody else receives it and nothing is written. Returns the post sent.
 */
export function sendEphemeral(deps: Pick<Deps, 'now' | 'events'>, userId: string, input: EphemeralInput): Post {
  const post = ephemeralPost(deps, userId, input);
  if (deps.events.listening()) {
    deps.events.publish({
      event: 'ephemeral_message',
      data: { post: JSON.stringify(post) },
      broadcast: broadcast({ user_id: userId, channel_id: post.channel_id }),
      audience: { kind: 'users', userIds: [userId] },
    });
  }
  return post;
}
