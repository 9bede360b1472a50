import type { Knex } from 'knex';
import * as initial from './001-initial';
import * as pendingPostId from './002-pending-post-id';
import * as sessionDetails from './003-session-details';
import * as abuseResistance from './004-abuse-resistance';
import * as status from './005-status';
import * as reactions from './006-reactions';
import * as fileInfo from './007-file-info';
import * as postSearch from './008-post-search';
import * as postHasReactions from './009-post-has-reactions';
import * as loginAttempts from './010-login-attempts';
import * as fileRetention from './011-file-retention';
import * as postSearchChannel from './012-post-search-channel';
import * as preferences from './013-preferences';
import * as sidebarCategories from './014-sidebar-categories';
import * as threads from './015-threads';
import * as collapsedThreadPages from './016-collapsed-thread-pages';
import * as outgoingWebhooks from './017-outgoing-webhooks';
import * as commands from './018-commands';
import * as bots from './019-bots';
import * as emailOutbox from './020-email-outbox';
import * as teamInvites from './021-team-invites';
import * as postActions from './022-post-actions';
import * as postSearchQueue from './023-post-search-queue';
import * as emailOutboxPostLists from './024-email-outbox-post-lists';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

// Migrations live in code (not files found at run time) so the same list runs from ts-jest, tsc output and tools.
const MIGRATIONS: Array<[string, Migration]> = [
  ['001-initial', initial],
  ['002-pending-post-id', pendingPostId],
  ['003-session-details', sessionDetails],
  ['004-abuse-resistance', abuseResistance],
  ['005-status', status],
  ['006-reactions', reactions],
  ['007-file-info', fileInfo],
  ['008-post-search', postSearch],
  ['009-post-has-reactions', postHasReactions],
  ['010-login-attempts', loginAttempts],
  ['011-file-retention', fileRetention],
  ['012-post-search-channel', postSearchChannel],
  ['013-preferences', preferences],
  ['014-sidebar-categories', sidebarCategories],
  ['015-threads', threads],
  ['016-collapsed-thread-pages', collapsedThreadPages],
  ['017-outgoing-webhooks', outgoingWebhooks],
  ['018-commands', commands],
  ['019-bots', bots],
  ['020-email-outbox', emailOutbox],
  ['021-team-invites', teamInvites],
  ['022-post-actions', postActions],
  ['023-post-search-queue', postSearchQueue],
  ['024-email-outbox-post-lists', emailOutboxPostLists],
];

export const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => MIGRATIONS,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};

export const migrationConfig: Knex.MigratorConfig = { migrationSource, tableName: 'parley_migrations' };
