import { isDatabaseError } from '../model/store-errors';
import { translateDriverError } from './driver-errors';
import { Executor, Row, num, str } from './rows';

/** Key/value rows, no records: so no mapRow or toRow. */
const TABLE = 'configurations';
const ACTIVE = 'active';

/** The shared, runtime-patched configuration: one row, with a version every process can poll cheaply. */
export class ConfigStore {
  constructor(private readonly db: Executor) {}

  async load(): Promise<{ value: string; version: number } | undefined> {
    const r: Row | undefined = await this.db(TABLE).where({ id: ACTIVE }).first();
    return r ? { value: str(r.value), version: num(r.create_at) } : undefined;
  }

  async version(): Promise<number> {
    const r: Row | undefined = await this.db(TABLE).where({ id: ACTIVE }).select('create_at').first();
    return r ? num(r.create_at) : 0;
  }

  /**
   * Inserts the first config; loses quietly to another process that seeded it first. Processes starting together on
   * MariaDB can deadlock on the one key (InnoDB picks a victim and asks it to retry): the victim tries again, up to
   * three times, and then sees the winner's row or loses the race as a duplicate.
   */
  async seed(value: string, version: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const existing = await this.db(TABLE).where({ id: ACTIVE }).first();
      if (existing) return;
      try {
        await this.db(TABLE).insert({ id: ACTIVE, value, create_at: version });
        return;
      } catch (err) {
        const translated = translateDriverError(err);
        // A concurrent start seeded it: theirs stands.
        if (isDatabaseError(translated, 'duplicate')) return;
        // Any other failure leaves no config row, and without one every later save (compare-and-swap on a row) fails
        // forever: the caller must see it, unless the database asked for a retry (a deadlock) and tries remain.
        if (!isDatabaseError(translated, 'unavailable') || attempt >= 3) throw err;
      }
    }
  }

  /** Compare-and-swap: saves only if nobody saved since `expected` was read; false means reload and retry. */
  async save(value: string, version: number, expected: number): Promise<boolean> {
    const changed = await this.db(TABLE).where({ id: ACTIVE, create_at: expected }).update({ value, create_at: version });
    return changed === 1;
  }
}
