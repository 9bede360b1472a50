import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import { BotsStore } from './bots-store';
import { ChannelsStore } from './channels-store';
import { CommandsStore } from './commands-store';
import { ConfigStore } from './config-store';
import { DeliveriesStore } from './deliveries-store';
import { EmailOutboxStore } from './email-outbox-store';
import type { Database } from './db';
import { translateDriverError } from './driver-errors';
import { FilesStore } from './files-store';
import { OutgoingHooksStore } from './outgoing-hooks-store';
import { OutgoingQueueStore } from './outgoing-queue-store';
import { PostActionsStore } from './post-actions-store';
import { PostsStore } from './posts-store';
import { PreferencesStore } from './preferences-store';
import { ReactionsStore } from './reactions-store';
import { SearchStore } from './search-store';
import { SessionsStore } from './sessions-store';
import { SidebarStore } from './sidebar-store';
import { StatusStore } from './status-store';
import { SystemsStore } from './systems-store';
import { TeamsStore } from './teams-store';
import { ThreadsStore } from './threads-store';
import { UsersStore } from './users-store';
import { WebhooksStore } from './webhooks-store';
import type { Executor } from './rows';

/** Every store over one executor: the pool, or one open transaction. */
export interface StoreSet {
  users: UsersStore;
  sessions: SessionsStore;
  teams: TeamsStore;
  channels: ChannelsStore;
  posts: PostsStore;
  reactions: ReactionsStore;
  preferences: PreferencesStore;
  sidebar: SidebarStore;
  search: SearchStore;
  webhooks: WebhooksStore;
  config: ConfigStore;
  systems: SystemsStore;
  status: StatusStore;
  files: FilesStore;
  threads: ThreadsStore;
  outgoingHooks: OutgoingHooksStore;
  outgoingQueue: OutgoingQueueStore;
  /** The delivery log of every kind of integration call. */
  deliveries: DeliveriesStore;
  bots: BotsStore;
  commands: CommandsStore;
  emailOutbox: EmailOutboxStore;
  /** What posts' interactive actions call, kept apart from their props. */
  postActions: PostActionsStore;
}

declare const inTransaction: unique symbol;

/**
 * The stores of one open transaction. Code that must run inside a transaction takes this type, so the pool's stores
 * cannot be passed where a transaction's are meant: on SQLite the pool's only connection is held by the transaction,
 * and a read through the pool would wait for it forever.
 */
export type TxStores = StoreSet & { readonly [inTransaction]: true };

/** The stores over the pool. */
export interface Stores extends StoreSet {
  /** Runs `fn` in one transaction: everything it writes through `tx` commits together or not at all. */
  transaction<T>(fn: (tx: TxStores) => Promise<T>): Promise<T>;
  /** Cheap liveness probe of the database, for the ping health status. */
  ping(): Promise<boolean>;
  /**
   * How many write transactions are worth having in flight at once (see GroupCommit): 1 on SQLite, whose single
   * connection runs one at a time anyway; 2 on MySQL, so one batch is built and sent while the previous one commits.
   */
  concurrentWriters: number;
}

/**
 * Under test, every store call through the pool checks that it is not made from inside a transaction's callback (the
 * mistake TxStores makes hard to write, caught here when it is written anyway): the call fails at once, naming
 * itself, instead of waiting out the pool's acquire timeout on SQLite.
 */
const transactions = new AsyncLocalStorage<boolean>();
const guardPool = process.env.NODE_ENV === 'test';

/**
 * Wraps a store so that every error its calls reject with is translated from the driver's codes to a DatabaseError
 * (the layers above know only those kinds), and, under test, so that pool calls inside a transaction fail loudly.
 */
function translating<T extends object>(store: T, pool: boolean): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      let fn = wrapped.get(prop);
      if (!fn) {
        const name = `${target.constructor.name}.${String(prop)}`;
        fn = (...args: unknown[]) => {
          if (pool && guardPool && transactions.getStore()) {
            return Promise.reject(new Error(`${name} was called through the pool inside a transaction: use the transaction's stores`));
          }
          let result: unknown;
          try {
            result = (value as (...a: unknown[]) => unknown).apply(target, args);
          } catch (err) {
            throw translateDriverError(err);
          }
          if (result && typeof (result as Promise<unknown>).then === 'function') {
            return (result as Promise<unknown>).then(undefined, (err: unknown) => {
              throw translateDriverError(err);
            });
          }
          return result;
        };
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}

function storeSet(executor: Executor, pool: boolean): StoreSet {
  return {
    users: translating(new UsersStore(executor), pool),
    sessions: translating(new SessionsStore(executor), pool),
    teams: translating(new TeamsStore(executor), pool),
    channels: translating(new ChannelsStore(executor), pool),
    posts: translating(new PostsStore(executor), pool),
    reactions: translating(new ReactionsStore(executor), pool),
    preferences: translating(new PreferencesStore(executor), pool),
    sidebar: translating(new SidebarStore(executor), pool),
    search: translating(new SearchStore(executor), pool),
    webhooks: translating(new WebhooksStore(executor), pool),
    config: translating(new ConfigStore(executor), pool),
    systems: translating(new SystemsStore(executor), pool),
    status: translating(new StatusStore(executor), pool),
    files: translating(new FilesStore(executor), pool),
    threads: translating(new ThreadsStore(executor), pool),
    outgoingHooks: translating(new OutgoingHooksStore(executor), pool),
    outgoingQueue: translating(new OutgoingQueueStore(executor), pool),
    deliveries: translating(new DeliveriesStore(executor), pool),
    bots: translating(new BotsStore(executor), pool),
    commands: translating(new CommandsStore(executor), pool),
    emailOutbox: translating(new EmailOutboxStore(executor), pool),
    postActions: translating(new PostActionsStore(executor), pool),
  };
}

export function createStores(db: Database): Stores {
  const knex: Knex = db.knex;
  return {
    ...storeSet(knex, true),
    concurrentWriters: db.dialect === 'mysql' ? 2 : 1,
    transaction: async (fn) => {
      try {
        return await knex.transaction((trx) => {
          const tx = storeSet(trx, false) as TxStores;
          return guardPool ? transactions.run(true, () => fn(tx)) : fn(tx);
        });
      } catch (err) {
        throw translateDriverError(err);
      }
    },
    ping: async () => {
      try {
        await knex.raw('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },
  };
}

export type { PostWrite } from './posts-store';
