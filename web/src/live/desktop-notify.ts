import { api, call, profileImageUrl, rest, type ChannelMember, type Post } from '../api';
import { collapsedThreadsOn, notificationBody, notificationTitle, wantsDesktop } from '../notify';
import { navigate } from '../router';
import { channelPath, permalinkPath } from '../routes';
import { appStore } from '../state/app-store';
import type { AppState } from '../state/app-state';

/**
 * Browser notifications for new posts (Mattermost's web app's): the rule is notify.ts's; here the Notification API,
 * the sound and the click that brings the post into view. Nothing is asked of the browser here: permission is asked
 * only by the banner's button (components/NotifyBanner.tsx).
 */

export interface PostedInfo {
  mentioned: boolean;
  /** The event's `followers` names the viewer: a reply in a thread they follow (threads collapsed). */
  following: boolean;
  senderName: string;
  channelDisplayName: string;
  channelType: string;
}

/** The viewer's own status (dnd silences desktop notifications), read once when first needed, then kept by events. */
let ownStatus: { userId: string; status: string } | undefined;

export function setOwnStatus(userId: string, status: string): void {
  ownStatus = { userId, status };
}

async function statusOf(userId: string): Promise<string> {
  if (ownStatus?.userId === userId) return ownStatus.status;
  try {
    const s = await call(api.GET('/api/v4/users/{user_id}/status', { params: { path: { user_id: userId } } }));
    if (ownStatus?.userId !== userId) setOwnStatus(userId, s.status);
  } catch {
    return 'online';
  }
  return ownStatus?.userId === userId ? ownStatus.status : 'online';
}

export function notificationsSupported(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window;
}

export type NotifyPermission = 'granted' | 'denied' | 'default' | 'unsupported';

let permissionStatus: Promise<PermissionStatus | undefined> | undefined;

/** The Permissions API's live answer for notifications (undefined where a browser does not answer for them). */
export function notificationPermissionStatus(): Promise<PermissionStatus | undefined> {
  permissionStatus ??= navigator.permissions?.query({ name: 'notifications' }).catch(() => undefined) ?? Promise.resolve(undefined);
  return permissionStatus;
}

/**
 * Whether the page may show notifications: the Permissions API's state where the browser has one (`prompt` is
 * undecided), else Notification.permission. (Chromium's headless shell reports Notification.permission "denied"
 * whatever was granted, while its Permissions API tells the truth.)
 */
export async function notificationPermission(): Promise<NotifyPermission> {
  if (!notificationsSupported()) return 'unsupported';
  const status = await notificationPermissionStatus();
  if (status) return status.state === 'prompt' ? 'default' : status.state;
  return Notification.permission;
}

/** The viewer is looking at this channel: a visible, focused tab showing it. */
function looking(channelId: string, s: AppState): boolean {
  return s.currentChannelId === channelId && s.route.kind !== 'account' && document.visibilityState === 'visible' && document.hasFocus();
}

async function memberOf(channelId: string): Promise<ChannelMember | undefined> {
  const known = appStore.get().members[channelId];
  if (known) return known;
  try {
    return await rest.myMember(channelId);
  } catch {
    return undefined;
  }
}

/** Shows a browser notification for a post that arrived, when the rules say so and the viewer is not looking. */
export async function notifyPosted(post: Post, info: PostedInfo): Promise<void> {
  if ((await notificationPermission()) !== 'granted') return;
  const s = appStore.get();
  const me = s.me;
  if (!me) return;
  if (post.user_id === me.id && post.props?.from_webhook !== 'true') return;
  if (looking(post.channel_id, s)) return;
  const member = await memberOf(post.channel_id);
  const decision = wantsDesktop({
    post,
    channelType: info.channelType,
    meId: me.id,
    userProps: me.notify_props,
    member,
    mentioned: info.mentioned || info.channelType === 'D',
    status: await statusOf(me.id),
    collapsedThreads: collapsedThreadsOn(s.config),
    following: info.following,
  });
  const now = appStore.get();
  if (!decision || looking(post.channel_id, now)) return;
  show(post, info, now);
}

function show(post: Post, info: PostedInfo, s: AppState): void {
  const channel = s.channels[post.channel_id];
  const sender = s.users[post.user_id];
  const title = notificationTitle(channel, info.channelDisplayName, s);
  const body = notificationBody(post, info.senderName || (sender ? `@${sender.username}` : 'Someone'));
  const icon = new URL(profileImageUrl(sender ?? { id: post.user_id }), location.origin).href;
  let n: Notification;
  try {
    n = new Notification(title, { body, icon, tag: post.id, requireInteraction: false });
  } catch {
    // Some browsers allow notifications only from a service worker.
    return;
  }
  n.onclick = () => {
    window.focus();
    n.close();
    openPost(post);
  };
  if (s.me?.notify_props?.desktop_sound !== 'false') playSound();
}

/** Opens the post's channel at the post: its permalink, in the channel's team (a direct channel: the team shown). */
function openPost(post: Post): void {
  const s = appStore.get();
  const channel = s.channels[post.channel_id];
  const team = s.teams.find((t) => t.id === channel?.team_id) ?? s.teams.find((t) => t.id === s.currentTeamId) ?? s.teams[0];
  if (!team) return;
  navigate(post.id ? permalinkPath(team.name, post.id) : channelPath(team.name, channel?.name ?? 'town-square'));
}

let audio: AudioContext | undefined;

/** A short two-tone chime made with Web Audio (no sound file, nothing for the page's CSP to allow). */
function playSound(): void {
  try {
    audio ??= new AudioContext();
    const ctx = audio;
    if (ctx.state === 'suspended') void ctx.resume().catch(() => undefined);
    const start = ctx.currentTime;
    for (const [i, freq] of [880, 1320].entries()) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = 'sine';
      osc.frequency.value = freq;
      const t = start + i * 0.12;
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.2, t + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.18);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t);
      osc.stop(t + 0.2);
    }
  } catch {
    // No audio here: the notification is enough.
  }
}
