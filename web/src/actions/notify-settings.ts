import { api, call, rest, type User } from '../api';
import { errorText } from '../error-text';
import { appStore } from '../state/app-store';
import { readMember } from '../state/selectors';

/**
 * Notification settings: the viewer's own (notify_props, saved with PatchUser as Mattermost's apps do) and a
 * channel membership's (UpdateChannelNotifyProps). After a save the server's copy is read back and shown: the
 * server's values are the truth (it may normalise or refuse them).
 */

export type UserNotifyProps = Record<string, string>;

/** The settings form shows: the user's notify_props with Mattermost's defaults where a key is missing. */
export function userNotifyDefaults(props: Record<string, string> | undefined): UserNotifyProps {
  return {
    desktop: 'mention',
    desktop_threads: 'all',
    desktop_sound: 'true',
    email: 'true',
    mention_keys: '',
    first_name: 'false',
    channel: 'true',
    comments: 'never',
    ...props,
  };
}

function keepMe(me: User): void {
  appStore.set((s) => ({ me, users: { ...s.users, [me.id]: me } }));
}

/** Saves the given notify_props keys (merged by the server with the others); the error's words on failure. */
export async function saveUserNotifyProps(patch: UserNotifyProps): Promise<string | undefined> {
  const me = appStore.get().me;
  if (!me) return 'You are not signed in.';
  try {
    await call(api.PUT('/api/v4/users/{user_id}/patch', { params: { path: { user_id: 'me' } }, body: { notify_props: patch } }));
    keepMe(await rest.me());
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

export type ChannelNotifyProps = Record<string, string>;

/** A membership's settings with the defaults of a new membership where a key is missing. */
export function channelNotifyDefaults(props: Record<string, string> | undefined): ChannelNotifyProps {
  return { desktop: 'default', email: 'default', mark_unread: 'all', ignore_channel_mentions: 'default', ...props };
}

/** Reads the viewer's membership of a channel again (the settings dialog opens on the server's values). */
export async function reloadMember(channelId: string): Promise<void> {
  try {
    const member = await rest.myMember(channelId);
    appStore.set((s) => ({ members: { ...s.members, [channelId]: channelId === s.currentChannelId ? readMember(member, s.channels[channelId]) : member } }));
  } catch {
    // Shown as held; the next event or refresh brings it.
  }
}

/** Saves a channel's notification settings for the viewer, then reads the membership back. */
export async function saveChannelNotifyProps(channelId: string, props: ChannelNotifyProps): Promise<string | undefined> {
  const me = appStore.get().me;
  if (!me) return 'You are not signed in.';
  try {
    await call(api.PUT('/api/v4/channels/{channel_id}/members/{user_id}/notify_props', { params: { path: { channel_id: channelId, user_id: me.id } }, body: props }));
    await reloadMember(channelId);
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}
