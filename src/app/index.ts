import type { ConfigService } from '../config/config-service';
import type { Stores } from '../store';
import { ChannelsService } from './channels';
import type { Deps } from './deps';
import { HookExecution } from './hook-execution';
import { HooksService } from './hooks';
import { Passwords } from './passwords';
import { PostWriter } from './post-writer';
import { PostsService } from './posts';
import { SessionsService } from './sessions';
import { SystemService } from './system';
import { TeamsService } from './teams';
import { UsersService } from './users';
import { WebhookCache } from './webhook-cache';

/** The application: every service over one set of stores and one live config. */
export interface App {
  deps: Deps;
  system: SystemService;
  users: UsersService;
  sessions: SessionsService;
  teams: TeamsService;
  channels: ChannelsService;
  posts: PostsService;
  writer: PostWriter;
  hooks: HooksService;
  hookExecution: HookExecution;
  passwords: Passwords;
  /** Starts the periodic clean-ups (expired Idempotency-Key answers); returns the function that stops them. */
  startMaintenance(onError: (err: unknown) => void): () => void;
}

const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000;

/** The composition root of the app layer. */
export function createApp(stores: Stores, config: ConfigService, now: () => number = Date.now): App {
  const deps: Deps = { stores, config, now };
  const channels = new ChannelsService(deps);
  const writer = new PostWriter(deps);
  const posts = new PostsService(deps, writer);
  const cache = new WebhookCache(stores);
  const passwords = new Passwords();
  const hookExecution = new HookExecution(deps, cache, channels, posts, writer);
  return {
    deps,
    system: new SystemService(deps),
    users: new UsersService(deps, passwords),
    sessions: new SessionsService(deps, passwords),
    teams: new TeamsService(deps, channels),
    channels,
    posts,
    writer,
    hooks: new HooksService(deps, cache),
    hookExecution,
    passwords,
    startMaintenance: (onError) => {
      const timer = setInterval(() => hookExecution.purgeExpiredKeys().catch(onError), MAINTENANCE_INTERVAL_MS);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
