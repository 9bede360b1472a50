import { markViewed, refreshTeamChannels } from '../actions/channels';
import { catchUp } from '../actions/posts';
import { appStore } from '../state/app-store';
import { isUnread } from '../state/selectors';
import { reconnectNow } from './connection';

/**
 * While no WebSocket is connected (a server without one, or one that is unreachable for now) the open channel is
 * polled for changes and the sidebar refreshed now and then, so the page never silently goes stale. A connected
 * WebSocket turns this off. Also: reconnect at once when the network or the tab comes back.
 */
const POLL_CHANNEL_MS = 10_000;
const POLL_SIDEBAR_MS = 60_000;
let lastSidebarPoll = 0;
let started = false;

function poll(): void {
  const { me, ws: status, boot, currentChannelId, currentTeamId } = appStore.get();
  if (!me || status === 'open' || boot !== 'ready' || document.visibilityState !== 'visible') return;
  if (currentChannelId) void catchUp(currentChannelId);
  if (currentTeamId && Date.now() - lastSidebarPoll >= POLL_SIDEBAR_MS) {
    lastSidebarPoll = Date.now();
    void refreshTeamChannels(currentTeamId);
  }
}

/** Once per page. */
export function startPolling(): void {
  if (started) return;
  started = true;
  setInterval(poll, POLL_CHANNEL_MS);
  window.addEventListener('online', reconnectNow);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState !== 'visible') return;
    reconnectNow();
    const { currentChannelId: channelId, channels, members } = appStore.get();
    const channel = channelId ? channels[channelId] : undefined;
    if (channelId && channel && isUnread(channel, members[channelId])) markViewed(channelId);
  });
}
