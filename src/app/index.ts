import type { ConfigService } from '../config/config-service';
import type { Stores } from '../store';
import { ActivityWrites } from './activity-writes';
import { BotsService } from './bots';
import { BuiltinCommands } from './builtin-commands';
import { ChannelsService } from './channels';
import { CommandExecution } from './command-execution';
import { CommandResponder } from './command-response';
import { CommandsService } from './commands';
import type { Deps } from './deps';
import { NO_EVENTS, type EventBus } from './events';
import { NO_FILE_STORAGE, type FileStorage } from './file-storage';
import { FilesService } from './files';
import { HookExecution } from './hook-execution';
import { HooksService } from './hooks';
import { LoginLock } from './login-lock';
import { NO_OUTBOUND, type SendOutbound } from './outbound';
import { OutgoingDelivery } from './outgoing-delivery';
import { OutgoingHooksService } from './outgoing-hooks';
import { Passwords } from './passwords';
import { PostActionsService } from './post-actions';
import { PostWriter } from './post-writer';
import { PostsService } from './posts';
import { PreferencesService } from './preferences';
import { ProfileImagesService } from './profile-images';
import { SidebarService } from './sidebar';
import { ReactionsService } from './reactions';
import { Realtime } from './realtime';
import { RolesService } from './roles';
import { SearchService } from './search';
import { SessionsService } from './sessions';
import { StatusService } from './status';
import { SystemService } from './system';
import { TeamInvitesService } from './team-invites';
import { ArchivedChannelsService } from './archived-channels';
import { PostUnreadService } from './post-unread';
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
  /** Bot accounts: users for programs, owned by a user. */
  bots: BotsService;
  teams: TeamsService;
  channels: ChannelsService;
  posts: PostsService;
  /** Interactive messages: clicks on posts' buttons and menus, sent to their integrations. */
  postActions: PostActionsService;
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
  /** Outgoing webhooks: management, the delivery log, and queueing the calls posts make. */
  outgoingHooks: OutgoingHooksService;
  /** The worker that makes the queued outgoing webhook calls; started and stopped by the composition root. */
  outgoingDelivery: OutgoingDelivery;
  passwords: Passwords;
  realtime: Realtime;
  status: StatusService;
  files: FilesService;
  /** Custom slash commands: management, autocomplete, delivery log. */
  commands: CommandsService;
  /** Running slash commands (built-in and custom) and their later replies through the response URL. */
  commandExecution: CommandExecution;
  /** Team invite links: what they show, sign-up and joining through them, regenerating them. */
  teamInvites: TeamInvitesService;
  archivedChannels: ArchivedChannelsService;
  /** SetPostUnread: "Mark as Unread" on a post. */
  postUnread: PostUnreadService;
  /** Uploaded profile pictures and the picture GetProfileImage serves. */
  profileImages: ProfileImagesService;
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
  /** How calls to integrations are sent (src/infra/outbound-http.ts; default: none, every call fails). */
  outbound?: SendOutbound;
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
  const outgoingHooks = new OutgoingHooksService(deps);
  const outgoingDelivery = new OutgoingDelivery(deps, hookExecution, options.outbound ?? NO_OUTBOUND);
  writer.queueOutgoing = (tx, commits) => outgoingHooks.queueCalls(tx, commits);
  writer.onOutgoingQueued = () => outgoingDelivery.wake();
  outgoingHooks.onQueued = () => outgoingDelivery.wake();
  const fileStorage = options.files ?? NO_FILE_STORAGE;
  const files = new FilesService(deps, fileStorage);
  const users = new UsersService(deps, passwords, realtime);
  const teams = new TeamsService(deps, channels, realtime);
  const search = new SearchService(deps, posts);
  const commandExecution = new CommandExecution(
    deps,
    new CommandResponder(deps, posts, writer, realtime, status),
    new BuiltinCommands(deps, channels, posts, status, search),
    options.outbound ?? NO_OUTBOUND,
  );
  return {
    deps,
    system: new SystemService(deps, realtime),
    users,
    sessions: new SessionsService(deps, passwords, activity),
    bots: new BotsService(deps, passwords, realtime),
    teams,
    channels,
    posts,
    postActions: new PostActionsService(deps, posts, realtime, options.outbound ?? NO_OUTBOUND),
    reactions: new ReactionsService(deps, realtime),
    preferences: new PreferencesService(deps, posts, realtime),
    threads,
    sidebar: new SidebarService(deps, realtime),
    roles: new RolesService(),
    memberships: new UserMembershipsService(deps),
    search,
    writer,
    hooks: new HooksService(deps, cache),
    hookExecution,
    outgoingHooks,
    outgoingDelivery,
    passwords,
    realtime,
    status,
    files,
    teamInvites: new TeamInvitesService(deps, users, teams, realtime),
    archivedChannels: new ArchivedChannelsService(deps),
    postUnread: new PostUnreadService(deps),
    profileImages: new ProfileImagesService(deps, fileStorage, realtime),
    commands: new CommandsService(deps),
    commandExecution,
    startMaintenance: (onError) => {
      const loginLock = new LoginLock(deps);
      const timer = setInterval(() => {
        hookExecution.purgeExpiredKeys().catch(onError);
        files.purge().catch(onError);
        loginLock.purge().catch(onError);
        commandExecution.purgeExpired().catch(onError);
      }, MAINTENANCE_INTERVAL_MS);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
