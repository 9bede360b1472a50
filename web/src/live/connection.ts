import { appStore } from '../state/app-store';
import { WsClient, type SocketLike } from '../ws-client';
import type { WsEvent } from '../ws-events';

/**
 * The page's one WebSocket connection (the protocol is ws-client.ts). What its events change is live/events.ts; this
 * module only holds the connection, so that actions can send on it (typing) without importing the event handling.
 */

let ws: WsClient | null = null;

function wsUrl(): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v4/websocket`;
}

export function connectWebSocket(onEvent: (frame: WsEvent) => void): void {
  if (ws) return;
  ws = new WsClient({
    url: wsUrl(),
    // The browser's WebSocket has these members; its DOM event types are wider than SocketLike spells them.
    createSocket: (url) => new WebSocket(url) as unknown as SocketLike,
    onEvent,
    onStatus: (status) => appStore.set({ ws: status }),
  });
  ws.start();
}

/** Stops the connection for good (sign-out, session ended). */
export function stopWebSocket(): void {
  ws?.stop();
  ws = null;
}

export function reconnectNow(): void {
  ws?.reconnectNow();
}

export function sendTyping(channelId: string, rootId: string): void {
  ws?.userTyping(channelId, rootId);
}
