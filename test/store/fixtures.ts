// Store-level fixtures: migrated databases of every available dialect and plain domain records to insert.
import type { Channel, IncomingWebhook, Post, Team, UserRecord } from '../../src/model';
import { newChannel, newPost } from '../../src/app/records';
import { newId } from '../../src/lib/ids';
import { createStores, type Stores } from '../../src/store';
import { migrate, openDatabase, type Database, type Dialect } from '../../src/store/db';
import { createTestDatabase, mysqlTestUrl, type TestDatabase } from '../support/database';

export interface StoreHarness {
  dialect: Dialect;
  testDb: TestDatabase;
  db: Database;
  stores: Stores;
  close(): Promise<void>;
}

/**
 * The databases every store suite runs on, in one Jest run: SQLite always, MySQL/MariaDB too whenever a server is
 * known (PARLEY_TEST_DATABASE or PARLEY_MYSQL_URL). The stores are the one layer whose SQL differs in behaviour
 * between the two (collations, types, locking), so a store change is checked on both by a single `npx jest test/store`.
 * CI's plain pass has PARLEY_MYSQL_URL set and so covers both; its MariaDB pass (PARLEY_TEST_DATABASE) leaves
 * test/store out (see .ci/run) rather than run the same suites on the same server again.
 */
export function storeDialects(): Dialect[] {
  return mysqlTestUrl() ? ['sqlite', 'mysql'] : ['sqlite'];
}

/** A fresh database of the dialect, migrated unless told otherwise; the caller closes it. */
export async function openStores(opts: { dialect: Dialect; migrated?: boolean }): Promise<StoreHarness> {
  const testDb = await createTestDatabase(opts.dialect);
  const db = openDatabase({ driverName: testDb.driver, dataSource: testDb.dataSource });
  try {
    if (opts.migrated !== false) await migrate(db);
  } catch (err) {
    await db.close();
    await testDb.drop();
    throw err;
  }
  return {
    dialect: testDb.driver,
    testDb,
    db,
    stores: createStores(db),
    close: async () => {
      await db.close();
      await testDb.drop();
    },
  };
}

/**
 * A database of its own for the enclosing describe block: opened before its first test, dropped after its last. The
 * harness is filled in then (only `dialect` is there at once), so tests and hooks read it, never the describe body.
 */
export function useStores(dialect: Dialect, opts: { migrated?: boolean } = {}): StoreHarness {
  const h = { dialect } as StoreHarness;
  let opened: StoreHarness | undefined;
  beforeAll(async () => {
    opened = await openStores({ ...opts, dialect });
    Object.assign(h, opened);
  });
  afterAll(async () => {
    await opened?.close();
  });
  return h;
}

/**
 * Runs a store suite once per available database (storeDialects), each in a describe block named after it ("on
 * sqlite", "on mysql") with a database of its own: `forEachDatabase((h) => { test(...) })`.
 */
export function forEachDatabase(body: (h: StoreHarness) => void, opts: { migrated?: boolean } = {}): void {
  describe.each(storeDialects())('on %s', (dialect) => {
    body(useStores(dialect, opts));
  });
}

let n = 0;

export function makeUser(fields: Partial<UserRecord> = {}): UserRecord {
  const id = newId();
  const username = `u${++n}x${id.slice(0, 6)}`;
  return {
    id,
    create_at: 1,
    update_at: 1,
    delete_at: 0,
    username,
    auth_data: '',
    auth_service: '',
    email: `${username}@example.com`,
    email_verified: false,
    nickname: '',
    first_name: '',
    last_name: '',
    position: '',
    roles: 'system_user',
    allow_marketing: false,
    props: {},
    notify_props: {},
    last_password_update: 1,
    last_picture_update: 0,
    failed_attempts: 0,
    locale: 'en',
    timezone: {},
    mfa_active: false,
    last_activity_at: 0,
    is_bot: false,
    bot_description: '',
    disable_welcome_email: false,
    password: 'not-a-real-hash',
    ...fields,
  };
}

export function makeTeam(fields: Partial<Team> = {}): Team {
  return {
    id: newId(),
    create_at: 1,
    update_at: 1,
    delete_at: 0,
    display_name: 'Team',
    name: `team${++n}`,
    description: '',
    email: '',
    type: 'O',
    company_name: '',
    allowed_domains: '',
    invite_id: newId(),
    allow_open_invite: true,
    scheme_id: null,
    group_constrained: null,
    policy_id: null,
    ...fields,
  };
}

export function makeChannel(fields: Partial<Channel> & Pick<Channel, 'team_id'>): Channel {
  return newChannel({ type: 'O', display_name: 'Channel', name: `channel-${++n}`, creator_id: '', ...fields }, fields.create_at ?? 1);
}

export function makePost(fields: Partial<Post> & Pick<Post, 'channel_id' | 'user_id' | 'create_at'>): Post {
  return newPost({ message: 'hello', ...fields }, fields.create_at);
}

export function makeWebhook(fields: Pick<IncomingWebhook, 'channel_id' | 'team_id' | 'user_id'>): IncomingWebhook {
  return {
    id: newId(),
    create_at: 1,
    update_at: 1,
    delete_at: 0,
    display_name: 'CI',
    description: '',
    username: '',
    icon_url: '',
    channel_locked: false,
    signing_secret: newId(),
    ...fields,
  };
}

/** Inserts a channel with the given members (ordinary members, read state at zero). */
export async function channelWithMembers(stores: Stores, channel: Channel, userIds: string[]): Promise<Channel> {
  await stores.channels.insert(channel);
  for (const userId of userIds) {
    await stores.channels.insertMember({ channel_id: channel.id, user_id: userId, scheme_admin: false, now: 1, msg_count: 0, msg_count_root: 0 });
  }
  return channel;
}

/** Writes posts as the app does: in one transaction, with no mentions unless given. */
export async function writePosts(stores: Stores, channelId: string, posts: Post[], mentions = new Map<string, { all: number; root: number }>(), viewedBy?: string): Promise<void> {
  await stores.transaction((tx) => tx.posts.write({ channelId, posts, mentions, viewedBy }));
}

/**
 * The message a promise rejects with ('' if it resolves). Database errors come from native drivers whose Error
 * class may belong to another Jest realm, so `rejects.toThrow()` cannot be trusted with them.
 */
export async function rejection(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => '',
    (e: unknown) => String((e as { message?: unknown })?.message ?? e),
  );
}

export const DUPLICATE = /unique|duplicate/i;
