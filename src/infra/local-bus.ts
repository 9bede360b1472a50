import type { EventBus, EventSink, RealtimeEvent, Revocation } from '../app/events';

/** One process (the default): events go straight to this process's sockets. */
export class LocalBus implements EventBus {
  constructor(private readonly sink: EventSink) {}

  publish(event: RealtimeEvent): void {
    this.sink.deliver(event);
  }

  revoke(r: Revocation): void {
    this.sink.revoke(r);
  }

  listening(): boolean {
    return this.sink.active();
  }
}
