import type { HandlerMap } from '../operation';
import * as bots from './bots';
import * as categories from './categories';
import * as channels from './channels';
import * as commands from './commands';
import * as files from './files';
import * as outgoingHooks from './outgoing-hooks';
import * as posts from './posts';
import * as postUnread from './post-unread';
import * as postActions from './post-actions';
import * as preferences from './preferences';
import * as reactions from './reactions';
import * as roles from './roles';
import * as search from './search';
import * as sessions from './sessions';
import * as status from './status';
import * as system from './system';
import * as teams from './teams';
import * as threads from './threads';
import * as users from './users';
import * as userMemberships from './user-memberships';
import * as webhooks from './webhooks';
import * as websocket from './websocket';

/** Every operation of the spec, by operationId. `satisfies` makes a missing or misspelt one a compile error. */
export const handlers = { ...system, ...users, ...sessions, ...status, ...teams, ...channels, ...categories, ...posts, ...postUnread, ...postActions, ...preferences, ...threads, ...roles, ...userMemberships, ...reactions, ...files, ...search, ...webhooks, ...outgoingHooks, ...commands, ...bots, ...websocket } satisfies HandlerMap;
