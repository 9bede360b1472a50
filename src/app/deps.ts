import type { ConfigService } from '../config/config-service';
import type { Stores } from '../store';
import type { EventBus } from './events';

/** What every service needs: the stores, the live config, a clock (injectable so tests can pin time), the event bus. */
export interface Deps {
  stores: Stores;
  config: ConfigService;
  now(): number;
  /** Real-time events, published after their writes commit (NO_EVENTS where nothing listens). */
  events: EventBus;
  /** Work done after a request was answered (publishing an event) reports its failures here: the log. */
  onBackgroundError(err: unknown, what: string): void;
}
