import { Executor, Row, str } from './rows';

/** Name/value rows, no records: so no mapRow or toRow. */
const TABLE = 'systems';

/** Named server-wide facts, each written once: the unique name lets exactly one of several racing writers win. */
export class SystemsStore {
  constructor(private readonly db: Executor) {}

  /** Inserts the fact; a second insert of the same name fails with a duplicate-key DatabaseError. */
  async insert(name: string, value: string): Promise<void> {
    await this.db(TABLE).insert({ name, value });
  }

  async get(name: string): Promise<string | undefined> {
    const r: Row | undefined = await this.db(TABLE).where({ name }).first();
    return r ? str(r.value) : undefined;
  }
}
