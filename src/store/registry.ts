import { BotsStore } from './bots-store';
import { ChannelsStore } from './channels-store';
import { CommandsStore } from './commands-store';
import { ConfigStore } from './config-store';
import { DeliveriesStore } from './deliveries-store';
import { EmailOutboxStore } from './email-outbox-store';
import { FilesStore } from './files-store';
import { OutgoingHooksStore } from './outgoing-hooks-store';
import { OutgoingQueueStore } from './outgoing-queue-store';
import { PostActionsStore } from './post-actions-store';
import { PostsStore } from './posts-store';
import { PreferencesStore } from './preferences-store';
import { ReactionsStore } from './reactions-store';
import type { Executor } from './rows';
import { SearchStore } from './search-store';
import { SessionsStore } from './sessions-store';
import { SidebarStore } from './sidebar-store';
import { StatusStore } from './status-store';
import { SystemsStore } from './systems-store';
import { TeamsStore } from './teams-store';
import { ThreadsStore } from './threads-store';
import { UsersStore } from './users-store';
import { WebhooksStore } from './webhooks-store';

/**
 * Every store, by the name it has in a StoreSet: the one list from which both the StoreSet type and its construction
 * (index.ts) come, so adding a store is one line here. Each class takes the executor (the pool or one transaction)
 * as its only constructor argument.
 */
export const STORES = {
  users: UsersStore,
  sessions: SessionsStore,
  teams: TeamsStore,
  channels: ChannelsStore,
  posts: PostsStore,
  reactions: ReactionsStore,
  preferences: PreferencesStore,
  sidebar: SidebarStore,
  search: SearchStore,
  webhooks: WebhooksStore,
  config: ConfigStore,
  systems: SystemsStore,
  status: StatusStore,
  files: FilesStore,
  threads: ThreadsStore,
  outgoingHooks: OutgoingHooksStore,
  outgoingQueue: OutgoingQueueStore,
  /** The delivery log of every kind of integration call. */
  deliveries: DeliveriesStore,
  bots: BotsStore,
  commands: CommandsStore,
  emailOutbox: EmailOutboxStore,
  /** What posts' interactive actions call, kept apart from their props. */
  postActions: PostActionsStore,
} as const satisfies Record<string, new (db: Executor) => object>;

/** Every store over one executor: the pool, or one open transaction. */
export type StoreSet = { [K in keyof typeof STORES]: InstanceType<(typeof STORES)[K]> };

export const STORE_NAMES = Object.keys(STORES) as Array<keyof StoreSet>;
