import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import type { Database } from './db';
import { translateDriverError } from './driver-errors';
import { STORES, STORE_NAMES, type StoreSet } from './registry';
import { SearchIndexer } from './search-queue';
import type { Executor } from './rows';

export type { StoreSet } from './registry';

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

/** One of every store of the registry (registry.ts) over `executor`, each wrapped by translating(). */
function storeSet(executor: Executor, pool: boolean): StoreSet {
  const set: Partial<Record<keyof StoreSet, object>> = {};
  for (const name of STORE_NAMES) set[name] = translating(new STORES[name](executor), pool);
  return set as StoreSet;
}

export function createStores(db: Database): Stores {
  const knex: Knex = db.knex;
  // SQLite indexes new posts for search after their commit (migration 023): each commit wakes the indexer, and so
  // does opening the stores (what a stop left queued).
  const indexer = db.dialect === 'sqlite' ? new SearchIndexer(knex) : undefined;
  indexer?.committed();
  return {
    ...storeSet(knex, true),
    concurrentWriters: db.dialect === 'mysql' ? 2 : 1,
    transaction: async (fn) => {
      let result;
      try {
        result = await knex.transaction((trx) => {
          const tx = storeSet(trx, false) as TxStores;
          return guardPool ? transactions.run(true, () => fn(tx)) : fn(tx);
        });
      } catch (err) {
        throw translateDriverError(err);
      }
      indexer?.committed();
      return result;
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
