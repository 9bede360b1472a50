import type { Knex } from 'knex';
import { ChannelsStore } from './channels-store';
import { ConfigStore } from './config-store';
import type { Database } from './db';
import { PostsStore } from './posts-store';
import { SessionsStore } from './sessions-store';
import { TeamsStore } from './teams-store';
import { UsersStore } from './users-store';
import { WebhooksStore } from './webhooks-store';
import type { Executor } from './rows';

/** Every store over one executor (the pool or a transaction). */
export interface Stores {
  users: UsersStore;
  sessions: SessionsStore;
  teams: TeamsStore;
  channels: ChannelsStore;
  posts: PostsStore;
  webhooks: WebhooksStore;
  config: ConfigStore;
  /** Runs `fn` in one transaction: everything it writes through `tx` commits together or not at all. */
  transaction<T>(fn: (tx: Stores) => Promise<T>): Promise<T>;
  /** Cheap liveness probe of the database, for the ping health status. */
  ping(): Promise<boolean>;
  /**
   * How many write transactions are worth having in flight at once (see GroupCommit): 1 on SQLite, whose single
   * connection runs one at a time anyway; 2 on MySQL, so one batch is built and sent while the previous one commits.
   */
  concurrentWriters: number;
}

function storesOver(executor: Executor, knex: Knex): Stores {
  return {
    concurrentWriters: knex.client.config.client === 'mysql2' ? 2 : 1,
    users: new UsersStore(executor),
    sessions: new SessionsStore(executor),
    teams: new TeamsStore(executor),
    channels: new ChannelsStore(executor),
    posts: new PostsStore(executor),
    webhooks: new WebhooksStore(executor),
    config: new ConfigStore(executor),
    transaction: (fn) => (executor === knex ? knex.transaction((trx) => fn(storesOver(trx, knex))) : fn(storesOver(executor, knex))),
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

export function createStores(db: Database): Stores {
  return storesOver(db.knex, db.knex);
}

export type { PostWrite } from './posts-store';
