import type { ConfigService } from '../config/config-service';
import type { Stores } from '../store';
import { ActivityWrites } from './activity-writes';
import { ChannelsService } from './channels';
import type { Deps } from './deps';
import { NO_EVENTS, type EventBus } from './events';
import { NO_FILE_STORAGE, type FileStorage } from './file-storage';
import { FilesService } from './files';
import { HookExecution } from './hook-execution';
import { HooksService } from './hooks';
import { LoginLock } from './login-lock';
import { Passwords } from './passwords';
import { PostWriter } from './post-writer';
import { PostsService } from './posts';
import { PreferencesService } from './preferences';
import { SidebarService } from './sidebar';
import { ReactionsService } from './reactions';
import { Realtime } from './realtime';
import { RolesService } from './roles';
import { SearchService } from './search';
import { SessionsService } from './sessions';
import { StatusService } from './status';
import { SystemService } from './system';
import { TeamsService } from './teams';
import { ThreadsService } from './threads';
import { UsersService } from './users';
import { UserMembershipsService } from './user-memberships';
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
  reactions: ReactionsService;
  preferences: PreferencesService;
  threads: ThreadsService;
  sidebar: SidebarService;
  /** The built-in roles and the permissions each grants. */
  roles: RolesService;
  /** A user's team and channel memberships across all teams. */
  memberships: UserMembershipsService;
  search: SearchService;
  writer: PostWriter;
  hooks: HooksService;
  hookExecution: HookExecution;
  passwords: Passwords;
  realtime: Realtime;
  status: StatusService;
  files: FilesService;
  /**
   * Starts the periodic clean-ups (expired Idempotency-Key answers; unattached and deleted files past their retention;
   * forgotten login counters);
   * returns the function that stops them.
   */
  startMaintenance(onError: (err: unknown) => void): () => void;
}

const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000;

export interface AppOptions {
  now?: () => number;
  /** Where real-time events go (default: nowhere). */
  events?: EventBus;
  onBackgroundError?: (err: unknown, what: string) => void;
  /** Where uploaded files are stored (FileSettings; default: nowhere, uploads answer 501). */
  files?: FileStorage;
}

/** The composition root of the app layer. */
export function createApp(stores: Stores, config: ConfigService, options: AppOptions = {}): App {
  const deps: Deps = {
    stores,
    config,
    now: options.now ?? Date.now,
    events: options.events ?? NO_EVENTS,
    onBackgroundError: options.onBackgroundError ?? (() => undefined),
  };
  const realtime = new Realtime(deps);
  const activity = new ActivityWrites(stores);
  const status = new StatusService(deps, activity);
  const channels = new ChannelsService(deps, realtime, status);
  const writer = new PostWriter(deps);
  const threads = new ThreadsService(deps, realtime);
  writer.onReplies = (commit) => threads.repliesCommitted(commit);
  const posts = new PostsService(deps, writer, realtime, status, threads);
  const cache = new WebhookCache(stores);
  const passwords = new Passwords();
  const hookExecution = new HookExecution(deps, cache, channels, posts, writer, realtime);
  const files = new FilesService(deps, options.files ?? NO_FILE_STORAGE);
  return {
    deps,
    system: new SystemService(deps, realtime),
    users: new UsersService(deps, passwords, realtime),
    sessions: new SessionsService(deps, passwords, activity),
    teams: new TeamsService(deps, channels, realtime),
    channels,
    posts,
    reactions: new ReactionsService(deps, realtime),
    preferences: new PreferencesService(deps, posts, realtime),
    threads,
    sidebar: new SidebarService(deps, realtime),
    roles: new RolesService(),
    memberships: new UserMembershipsService(deps),
    search: new SearchService(deps, posts),
    writer,
    hooks: new HooksService(deps, cache),
    hookExecution,
    passwords,
    realtime,
    status,
    files,
    startMaintenance: (onError) => {
      const loginLock = new LoginLock(deps);
      const timer = setInterval(() => {
        hookExecution.purgeExpiredKeys().catch(onError);
        files.purge().catch(onError);
        loginLock.purge().catch(onError);
      }, MAINTENANCE_INTERVAL_MS);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
