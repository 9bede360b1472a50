import { migrate, rollbackAll } from '../../src/store/db';
import { migrationConfig } from '../../src/store/migrations';
import { channelWithMembers, makeChannel, makePost, makeTeam, makeUser, makeWebhook, writePosts, forEachDatabase } from './fixtures';

/** The tables insertRealRows writes one row into. */
const TABLES = ['users', 'sessions', 'user_access_tokens', 'teams', 'team_members', 'channels', 'channel_members', 'posts', 'incoming_webhooks', 'configurations', 'reactions', 'file_info', 'preferences', 'sidebar_categories', 'sidebar_channels', 'threads', 'thread_memberships', 'outgoing_webhooks', 'outgoing_queue', 'integration_deliveries', 'commands', 'command_webhooks', 'bots', 'post_action_integrations'];
/** FTS5 keeps a virtual table's index in shadow tables of its own, named after it. */
const FTS5_SHADOWS = ['data', 'idx', 'content', 'docsize', 'config'];

forEachDatabase((h) => {
  /**
   * Every table the migrations made, read from the database's own catalogue (a table a migration adds is seen even
   * when nobody lists it here): without Knex's bookkeeping, SQLite's internals and FTS5's shadow tables.
   */
  async function existing(): Promise<string[]> {
    const knex = h.db.knex;
    let names: string[];
    if (h.db.dialect === 'sqlite') {
      const rows = (await knex.raw("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")) as Array<{ name: string; sql: string | null }>;
      const virtual = rows.filter((r) => /^CREATE VIRTUAL TABLE/i.test(r.sql ?? '')).map((r) => r.name);
      const shadows = new Set(virtual.flatMap((v) => FTS5_SHADOWS.map((suffix) => `${v}_${suffix}`)));
      names = rows.map((r) => r.name).filter((n) => !shadows.has(n));
    } else {
      const [rows] = (await knex.raw('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()')) as [Array<{ name: string }>];
      names = rows.map((r) => r.name);
    }
    return names.filter((n) => !n.startsWith('parley_migrations')).sort();
  }

  /** One row in every table, through the stores, the way the app writes them. */
  async function insertRealRows(opts: { sessions?: boolean; reactions?: boolean } = {}): Promise<{ postId: string; hookId: string }> {
    const { stores } = h;
    const user = makeUser();
    await stores.users.insert(user);
    // Sessions as the current schema stores them (003 added columns); older schemas get theirs from the raw row.
    if (opts.sessions === false) await h.db.knex('sessions').insert({ id: user.id, token_hash: 'a'.repeat(64), user_id: user.id, create_at: 1, expires_at: 2 });
    else await stores.sessions.createSession({ id: user.id, tokenHash: 'a'.repeat(64), userId: user.id, createAt: 1, expiresAt: 2, csrfToken: 'c'.repeat(26) });
    await stores.sessions.createAccessToken({ id: user.id, tokenHash: 'b'.repeat(64), user_id: user.id, description: 'ci', is_active: true, expires_at: 0 });
    const team = makeTeam();
    await stores.teams.insert(team);
    await stores.teams.insertMember({ team_id: team.id, user_id: user.id, scheme_admin: true, create_at: 1 });
    const channel = await channelWithMembers(stores, makeChannel({ team_id: team.id }), [user.id]);
    const post = makePost({ channel_id: channel.id, user_id: user.id, create_at: 10, message: '😀 migrated', props: { from_webhook: 'true' } });
    await writePosts(stores, channel.id, [post], new Map([[user.id, { all: 1, root: 1 }]]));
    if (opts.reactions !== false) await stores.reactions.save({ post_id: post.id, user_id: user.id, emoji_name: '+1', channel_id: channel.id }, 11);
    const hook = makeWebhook({ channel_id: channel.id, team_id: team.id, user_id: user.id });
    // Schemas before 017 have no signing secret column.
    if (await h.db.knex.schema.hasColumn('incoming_webhooks', 'signing_secret')) await stores.webhooks.insert(hook);
    else {
      const { signing_secret: _, ...older } = hook;
      await h.db.knex('incoming_webhooks').insert(older);
    }
    await stores.config.seed(JSON.stringify({ ServiceSettings: { SiteURL: 'http://x' } }), 1);
    // Older schemas (the 002 test) have no file table yet.
    if (await h.db.knex.schema.hasTable('file_info')) await stores.files.insertMany([
      { id: post.id, user_id: user.id, channel_id: channel.id, post_id: post.id, create_at: 1, update_at: 1, delete_at: 0, path: 'a/original', thumbnail_path: '', preview_path: '', name: '😀.txt', extension: 'txt', size: 1, mime_type: 'text/plain', width: 0, height: 0, has_preview_image: false, mini_preview: null },
    ]);
    // Older schemas have no preferences table yet.
    if (await h.db.knex.schema.hasTable('preferences')) await stores.preferences.save([{ user_id: user.id, category: 'flagged_post', name: post.id, value: 'true' }]);
    if (await h.db.knex.schema.hasTable('sidebar_categories')) {
      const category = { id: `channels_${user.id}_${team.id}`, user_id: user.id, team_id: team.id, sort_order: 10, sorting: '' as const, type: 'channels' as const, display_name: 'Channels', muted: false, collapsed: false };
      await stores.sidebar.insertCategories([category]);
      await stores.transaction((tx) => tx.sidebar.place(user.id, team.id, [], [{ categoryId: category.id, channelIds: [channel.id] }]));
    }
    // Older schemas have no thread tables yet. The post as a thread's root, its author following it.
    if (await h.db.knex.schema.hasTable('threads')) {
      await stores.transaction(async (tx) => {
        await tx.threads.ensure([{ post_id: post.id, channel_id: channel.id, team_id: team.id, is_urgent: false }]);
        await tx.threads.follow(post.id, [user.id], 12);
      });
    }
    if (await h.db.knex.schema.hasTable('commands')) {
      const command = { id: post.id, token: user.id, create_at: 1, update_at: 1, delete_at: 0, creator_id: user.id, team_id: team.id, trigger: 'deploy', method: 'P' as const, username: '', icon_url: '', auto_complete: true, auto_complete_desc: 'Deploy', auto_complete_hint: '[service]', display_name: 'Deploy', description: '', url: 'https://ci.example.com/deploy', plugin_id: '' };
      await stores.commands.insert(command);
      await stores.commands.insertWebhook({ id: post.id, create_at: 1, command_id: command.id, user_id: user.id, channel_id: channel.id, root_id: '', use_count: 0 });
    }
    if (await h.db.knex.schema.hasTable('outgoing_webhooks')) {
      const outgoing = { id: post.id, token: user.id, create_at: 1, update_at: 1, delete_at: 0, creator_id: user.id, channel_id: channel.id, team_id: team.id, trigger_words: ['deploy'], trigger_when: 0 as const, callback_urls: ['https://ci.example.com/hook'], display_name: 'CI', description: '', content_type: 'application/json', username: '', icon_url: '' };
      await stores.outgoingHooks.insert(outgoing);
      await stores.outgoingQueue.insertMany([{ id: post.id, hook_id: outgoing.id, post_id: post.id, callback_url: 'https://ci.example.com/hook', trigger_word: 'deploy', attempt: 0, due_at: 1, create_at: 1 }]);
      await stores.deliveries.record({ integration_id: outgoing.id, kind: 'outgoing_webhook', post_id: post.id, attempt: 1, request_at: 2, duration_ms: 3, status_code: 200, error: '' });
    }
    // The user as its own bot (ConvertUserToBot's rows): is_bot and the description on the user, the rest in bots.
    if (await h.db.knex.schema.hasTable('bots')) {
      await stores.users.update(user.id, { is_bot: true, bot_description: '🤖 migrated' });
      await stores.bots.insert({ user_id: user.id, owner_id: user.id, last_icon_update: 0, create_at: 1, update_at: 1, delete_at: 0 });
    }
    if (await h.db.knex.schema.hasTable('post_action_integrations')) {
      await stores.postActions.insertMany([{ postId: post.id, sealed: { origin: { kind: 'incoming_webhook', id: hook.id }, actions: { go: { url: 'https://ci.example.com/go', context: { n: 1 } } } } }]);
    }
    return { postId: post.id, hookId: hook.id };
  }

  test('migrate up, insert real rows, roll everything back, migrate up again', async () => {
    expect(await existing()).toEqual([]);
    await migrate(h.db);
    const schema = await existing();
    // Every table the rows go into, and the ones only the server writes (status, systems, login attempts, webhook
    // idempotency keys; on SQLite the search index, which MariaDB keeps as a FULLTEXT index of posts).
    const serverOnly = ['email_outbox', 'login_attempts', 'status', 'systems', 'webhook_idempotency', ...(h.db.dialect === 'sqlite' ? ['post_search', 'post_search_docs', 'post_search_queue'] : [])];
    expect(schema).toEqual([...TABLES, ...serverOnly].sort());
    const [, pending] = await h.db.knex.migrate.list(migrationConfig);
    expect(pending).toEqual([]);

    const first = await insertRealRows();
    for (const t of TABLES) {
      const [{ n }] = await h.db.knex(t).count({ n: '*' });
      expect([t, Number(n)]).toEqual([t, 1]);
    }
    expect((await h.stores.posts.get(first.postId))?.message).toBe('😀 migrated');
    expect(await h.stores.bots.get((await h.stores.posts.get(first.postId))!.user_id, false)).toMatchObject({ description: '🤖 migrated' });

    // Rolling back with data present drops every table, leaving only Knex's own bookkeeping.
    await rollbackAll(h.db);
    expect(await existing()).toEqual([]);
    const [done, todo] = await h.db.knex.migrate.list(migrationConfig);
    expect(done).toEqual([]);
    expect(todo.length).toBeGreaterThan(0);

    await migrate(h.db);
    expect(await existing()).toEqual(schema);
    expect(await h.stores.posts.get(first.postId)).toBeUndefined();
    expect(await h.stores.users.countAll()).toBe(0);

    // The rebuilt schema takes the same rows again, constraints and all.
    const second = await insertRealRows();
    expect((await h.stores.webhooks.get(second.hookId))?.id).toBe(second.hookId);
    expect(await h.stores.config.load()).toMatchObject({ version: 1 });

    // Running migrate on an up-to-date database changes nothing.
    await migrate(h.db);
    expect((await h.stores.posts.get(second.postId))?.message).toBe('😀 migrated');
  });

  test('002 widens pending_post_id under posts written by the initial schema, and narrows it back on rollback', async () => {
    await rollbackAll(h.db);
    await h.db.knex.migrate.up(migrationConfig); // 001 only: a database from before the fix
    const { stores } = h;
    const old = await insertRealRows({ sessions: false, reactions: false });
    const channelId = (await stores.posts.get(old.postId))!.channel_id;
    const userId = (await stores.posts.get(old.postId))!.user_id;

    await migrate(h.db);
    // What the web app sends: the user's id, a colon and a millisecond timestamp.
    const pending = `${userId}:1795297971782`;
    const post = makePost({ channel_id: channelId, user_id: userId, create_at: 20, pending_post_id: pending });
    await writePosts(stores, channelId, [post]);
    expect((await stores.posts.get(post.id))?.pending_post_id).toBe(pending);
    expect((await stores.posts.get(old.postId))?.message).toBe('😀 migrated');

    // Back to 001 (through every later migration): on MySQL the column holds 26 characters again, so longer ids are
    // cut (SQLite keeps them whole).
    while ((await h.db.knex.migrate.list(migrationConfig))[0].length > 1) await h.db.knex.migrate.down(migrationConfig);
    const kept = (await stores.posts.get(post.id))?.pending_post_id;
    expect(kept).toBe(h.testDb.driver === 'mysql' ? pending.slice(0, 26) : pending);
    await migrate(h.db);
  });

  test('009 marks the posts that already have reactions; it and its rollback keep the search index whole', async () => {
    await rollbackAll(h.db);
    while ((await h.db.knex.migrate.list(migrationConfig))[0].length < 8) await h.db.knex.migrate.up(migrationConfig);
    const { stores } = h;
    const reacted = await insertRealRows(); // a post with a reaction, written before the flag existed
    const plain = makePost({ channel_id: (await stores.posts.get(reacted.postId))!.channel_id, user_id: (await stores.posts.get(reacted.postId))!.user_id, create_at: 30, message: 'what will be findable' });
    await writePosts(stores, plain.channel_id, [plain]);

    await migrate(h.db);
    expect((await stores.posts.get(reacted.postId))?.has_reactions).toBe(true);
    expect(await stores.posts.get(plain.id)).not.toHaveProperty('has_reactions');

    // Down to 008 (through any later migration): the column goes, the posts and their search index stay (a table
    // rebuild would drop its triggers).
    while ((await h.db.knex.migrate.list(migrationConfig))[0].length > 8) await h.db.knex.migrate.down(migrationConfig);
    expect(await h.db.knex.schema.hasColumn('posts', 'has_reactions')).toBe(false);
    const edited = makePost({ channel_id: plain.channel_id, user_id: plain.user_id, create_at: 40, message: 'what will be written after the rollback' });
    await writePosts(stores, plain.channel_id, [edited]);
    await migrate(h.db);
    // "will" is a stopword of MySQL's default list: found only if the FULLTEXT index, rebuilt by both ALTERs, still
    // indexes stopwords as 008 made it.
    const found = await stores.search.search({
      channelIds: [plain.channel_id], userIds: null, excludedUserIds: [], terms: [{ text: 'will', phrase: false, prefix: false, hashtag: false }],
      excludedTerms: [], orSearch: false, since: null, until: null, excludedRange: null, offset: 0, limit: 10,
    });
    expect(found).toEqual([edited.id, plain.id]);
  });
  test('010 moves the failed-login counts of users into login_attempts; an account locked then stays locked for a first 15 minutes', async () => {
    await rollbackAll(h.db);
    while ((await h.db.knex.migrate.list(migrationConfig))[0].length < 9) await h.db.knex.migrate.up(migrationConfig);
    const [locked, counting, clean] = [makeUser({ failed_attempts: 10 }), makeUser({ failed_attempts: 3 }), makeUser()];
    for (const u of [locked, counting, clean]) await h.stores.users.insert(u);
    const before = Date.now();
    await migrate(h.db);
    const { accountKey } = await import('../../src/app/login-lock');
    const lockedRow = await h.stores.users.getLoginAttempts(accountKey(locked.id));
    expect(lockedRow).toMatchObject({ failures: 10, lockouts: 1 });
    expect(lockedRow!.lockedUntil).toBeGreaterThanOrEqual(before + 15 * 60 * 1000);
    expect(await h.stores.users.getLoginAttempts(accountKey(counting.id))).toMatchObject({ failures: 3, lockedUntil: 0, lockouts: 0 });
    expect(await h.stores.users.getLoginAttempts(accountKey(clean.id))).toBeUndefined();
    expect((await h.stores.users.get(locked.id))?.failed_attempts).toBe(0);
    // Down and up again: the table goes and comes back empty.
    while ((await h.db.knex.migrate.list(migrationConfig))[0].length > 9) await h.db.knex.migrate.down(migrationConfig);
    expect(await h.db.knex.schema.hasTable('login_attempts')).toBe(false);
    await migrate(h.db);
    expect(await h.stores.users.getLoginAttempts(accountKey(locked.id))).toBeUndefined();
  });

  test('015 builds the threads of replies written before it: counts, participants, followers with everything read', async () => {
    await rollbackAll(h.db);
    while ((await h.db.knex.migrate.list(migrationConfig))[0].length < 14) await h.db.knex.migrate.up(migrationConfig);
    const { stores } = h;
    const first = await insertRealRows(); // a webhook's root post (from_webhook): its creator follows only by replying
    const root = (await stores.posts.get(first.postId))!;
    const [bob, carol] = [makeUser(), makeUser()];
    for (const u of [bob, carol]) await stores.users.insert(u);
    const byBob = makePost({ channel_id: root.channel_id, user_id: bob.id, create_at: 20, root_id: root.id });
    const byCarol = makePost({ channel_id: root.channel_id, user_id: carol.id, create_at: 30, root_id: root.id });
    const againBob = makePost({ channel_id: root.channel_id, user_id: bob.id, create_at: 40, root_id: root.id });
    const deleted = makePost({ channel_id: root.channel_id, user_id: carol.id, create_at: 50, root_id: root.id, delete_at: 60 });
    const plainRoot = makePost({ channel_id: root.channel_id, user_id: carol.id, create_at: 70 });
    const plainReply = makePost({ channel_id: root.channel_id, user_id: bob.id, create_at: 80, root_id: plainRoot.id });
    await writePosts(stores, root.channel_id, [byBob, byCarol, againBob, deleted, plainRoot, plainReply]);

    await migrate(h.db);
    expect(await stores.threads.get(root.id)).toMatchObject({ reply_count: 3, last_reply_at: 40, participants: [carol.id, bob.id], delete_at: 0 });
    expect(await stores.threads.get(plainRoot.id)).toMatchObject({ reply_count: 1, last_reply_at: 80, participants: [bob.id] });
    expect(await stores.threads.members(root.id, [root.user_id, bob.id, carol.id])).toEqual(new Set([bob.id, carol.id]));
    expect(await stores.threads.membership(bob.id, root.id)).toMatchObject({ following: true, last_viewed: 40, unread_mentions: 0 });
    // The root's author (not a webhook this time) follows too.
    expect(await stores.threads.members(plainRoot.id, [carol.id, bob.id])).toEqual(new Set([carol.id, bob.id]));
    expect(await stores.threads.get(byBob.id)).toBeUndefined();

    // Down and up again: the tables go, and come back built from the posts.
    while ((await h.db.knex.migrate.list(migrationConfig))[0].length > 14) await h.db.knex.migrate.down(migrationConfig);
    expect(await h.db.knex.schema.hasTable('threads')).toBe(false);
    await migrate(h.db);
    expect(await stores.threads.get(root.id)).toMatchObject({ reply_count: 3 });
  });

  test('022 gives every incoming webhook a signing secret and moves stored action integrations out of post props', async () => {
    await rollbackAll(h.db);
    while ((await h.db.knex.migrate.list(migrationConfig))[0].length < 21) await h.db.knex.migrate.up(migrationConfig);
    const { stores } = h;
    const first = await insertRealRows();
    const knex = h.db.knex;
    await knex('incoming_webhooks').where({ id: first.hookId }).update({ signing_secret: '' });
    const old = (await stores.posts.get(first.postId))!;
    const props = { attachments: [{ text: 'old', actions: [{ name: 'Go', integration: { url: 'https://ci.example.com/go', context: { env: 'prod' } } }, { id: 'keep', name: 'Keep', integration: { url: 'https://ci.example.com/keep' } }] }] };
    const withActions = makePost({ channel_id: old.channel_id, user_id: old.user_id, create_at: 50, props });
    await writePosts(stores, old.channel_id, [withActions]);

    await migrate(h.db);
    expect((await stores.webhooks.get(first.hookId))?.signing_secret).toMatch(/^[a-z0-9]{26}$/);
    const stored = (await stores.posts.get(withActions.id))!;
    const actions = (stored.props.attachments as Array<{ actions: Array<Record<string, unknown>> }>)[0].actions;
    expect(actions).toEqual([{ name: 'Go', id: expect.stringMatching(/^[a-z0-9]{26}$/) }, { id: 'keep', name: 'Keep' }]);
    expect(await stores.postActions.get(withActions.id)).toEqual({
      actions: { [actions[0].id as string]: { url: 'https://ci.example.com/go', context: { env: 'prod' } }, keep: { url: 'https://ci.example.com/keep', context: {} } },
    });
    expect(await stores.postActions.get(old.id)).toBeUndefined();

    // Down to 021: the table goes; the secrets stay (017 owns the column).
    while ((await h.db.knex.migrate.list(migrationConfig))[0].length > 21) await h.db.knex.migrate.down(migrationConfig);
    expect(await knex.schema.hasTable('post_action_integrations')).toBe(false);
    await migrate(h.db);
  });

  /** The names of a table's indexes. */
  async function indexes(table: string): Promise<string[]> {
    if (h.dialect === 'mysql') {
      const [rows] = (await h.db.knex.raw(`SHOW INDEX FROM ${table}`)) as [Array<{ Key_name: string }>];
      return [...new Set(rows.map((r) => r.Key_name))].sort();
    }
    const rows = (await h.db.knex.raw(`PRAGMA index_list(${table})`)) as Array<{ name: string }>;
    return rows.map((r) => r.name).sort();
  }

  test('016 indexes the root posts of a channel and its threads by last reply; down puts the 015 index back', async () => {
    await rollbackAll(h.db);
    await migrate(h.db);
    expect(await indexes('posts')).toContain('idx_posts_channel_root');
    expect(await indexes('threads')).toEqual(expect.arrayContaining(['idx_threads_channel_reply']));
    expect(await indexes('threads')).not.toContain('idx_threads_channel');
    // Down to 015 (through any later migration).
    while ((await h.db.knex.migrate.list(migrationConfig))[0].length > 15) await h.db.knex.migrate.down(migrationConfig);
    expect(await indexes('posts')).not.toContain('idx_posts_channel_root');
    expect(await indexes('threads')).toContain('idx_threads_channel');
    expect(await indexes('threads')).not.toContain('idx_threads_channel_reply');
    await migrate(h.db);
    expect(await indexes('posts')).toContain('idx_posts_channel_root');
  });
  test('024 makes each queued email row a list of one post; down splits a list into a row per post', async () => {
    await rollbackAll(h.db);
    while ((await h.db.knex.migrate.list(migrationConfig))[0].length < 23) await h.db.knex.migrate.up(migrationConfig);
    const knex = h.db.knex;
    const base = { user_id: 'u'.repeat(26), channel_id: 'c'.repeat(26), team_id: '', create_at: 10, next_attempt_at: 10, attempts: 2, claim_token: '', claimed_until: 0 };
    await knex('email_outbox').insert([{ ...base, id: 'a'.repeat(26), post_id: 'p'.repeat(26) }, { ...base, id: 'b'.repeat(26), post_id: 'q'.repeat(26) }]);
    await migrate(h.db);
    expect(await h.db.knex.schema.hasColumn('email_outbox', 'post_id')).toBe(false);
    const up = await h.stores.emailOutbox.forUser(base.user_id);
    expect(up.map((r) => [r.id, r.post_ids, r.attempts])).toEqual([['a'.repeat(26), ['p'.repeat(26)], 2], ['b'.repeat(26), ['q'.repeat(26)], 2]]);

    await h.stores.emailOutbox.remove(['b'.repeat(26)], '');
    await h.stores.emailOutbox.enqueue([{ ...base, id: 'd'.repeat(26), create_at: 20, post_ids: ['r'.repeat(26), 's'.repeat(26), 't'.repeat(26)] }]);
    while ((await h.db.knex.migrate.list(migrationConfig))[0].length > 23) await h.db.knex.migrate.down(migrationConfig);
    const down = (await knex('email_outbox').orderBy('post_id').select('id', 'post_id', 'create_at', 'attempts')) as Array<Record<string, unknown>>;
    expect(down.map((r) => [r.post_id, Number(r.create_at), Number(r.attempts)])).toEqual([
      ['p'.repeat(26), 10, 2], ['r'.repeat(26), 20, 2], ['s'.repeat(26), 20, 2], ['t'.repeat(26), 20, 2],
    ]);
    expect(new Set(down.map((r) => r.id)).size).toBe(4);
    await migrate(h.db);
  });
}, { migrated: false });
