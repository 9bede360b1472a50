import type Redis from 'ioredis';
import type { EventBus, EventSink, RealtimeEvent, Revocation } from '../app/events';
import { newId } from '../lib/ids';

const CHANNEL = 'parley:events';

type Message = { from: string; event: RealtimeEvent } | { from: string; revoke: Revocation };

/**
 * Several processes (ClusterSettings.Enable): each event is delivered to this process's sockets at once, then
 * published on a Redis channel that every other process delivers from. If Redis goes away, local delivery goes on,
 * the outage is logged, and the client reconnects by itself (events published meanwhile reach only this process's
 * sockets; their clients learn of the rest when they refetch).
 */
export class RedisBus implements EventBus {
  /** This process, so that it skips its own messages when they come back from Redis. */
  private readonly node = newId();

  constructor(
    private readonly sink: EventSink,
    private readonly publisher: Redis,
    subscriber: Redis,
    private readonly onError: (err: unknown, what: string) => void,
  ) {
    subscriber.on('message', (_channel: string, text: string) => this.receive(text));
    // Subscribes again after every reconnect: a subscription does not outlive its connection.
    subscriber.on('ready', () => {
      subscriber.subscribe(CHANNEL).catch((err: unknown) => this.onError(err, 'redis subscribe failed'));
    });
  }

  private receive(text: string): void {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch (err) {
      this.onError(err, 'unreadable real-time message from redis');
      return;
    }
    if (message.from === this.node) return;
    if ('event' in message) this.sink.deliver(message.event);
    else this.sink.revoke(message.revoke);
  }

  private send(message: Message): void {
    this.publisher.publish(CHANNEL, JSON.stringify(message)).catch((err: unknown) => this.onError(err, 'real-time event not sent to other processes'));
  }

  publish(event: RealtimeEvent): void {
    this.sink.deliver(event);
    this.send({ from: this.node, event });
  }

  revoke(r: Revocation): void {
    this.sink.revoke(r);
    this.send({ from: this.node, revoke: r });
  }

  /** Other processes may have sockets: events are always built. */
  listening(): boolean {
    return true;
  }
}
