import { createHash } from 'node:crypto';
import { newId } from '../lib/ids';
import { AppError, BOT_LIMITS, isDatabaseError, type Bot, type Session, type User, type UserPatch, type UserRecord } from '../model';
import type { BotFilter } from '../store/bots-store';
import { Authz } from './authz';
import type { Deps } from './deps';
import type { Passwords } from './passwords';
import { isSystemAdmin } from './permissions';
import type { Realtime } from './realtime';
import { isValidUsername, withinRunes } from './rules';
import { sanitizeUser } from './sanitize';
import { emailTaken, newUserRecord, requireFreeNames, usernameTaken, validatePassword, validateProfile } from './user-profile';

/**
 * The one answer for a bot that does not exist and for one the caller may not read: the two must look the same, or
 * the answer would tell who is a bot (Mattermost's MakeBotNotFoundError).
 */
export const botNotFound = () => AppError.notFound('store.sql_bot.get.missing.app_error', 'Unable to find the bot.');
const userNotFound = () => AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');

/** A bot's user has no mailbox: Mattermost gives it `<username>@localhost`. */
const botEmail = (username: string) => `${username}@localhost`;

/**
 * Whether the session may manage the bot, in Mattermost's order: its owner needs manage_bots, anyone else
 * manage_others_bots; a caller who may not even read such a bot is told it does not exist (404), one who may read it
 * but not manage it gets a 403.
 */
export function requireManageBot(authz: Authz, session: Session, bot: Bot): void {
  const own = bot.owner_id === session.userId;
  const manage = own ? 'manage_bots' : 'manage_others_bots';
  if (authz.system(session, manage)) return;
  if (!authz.system(session, own ? 'read_bots' : 'read_others_bots')) throw botNotFound();
  throw AppError.forbidden(manage);
}

/** Mattermost's Bot.IsValidCreate checks, with its ids (a display name too long is its `user_id` id, as there). */
function validateBot(b: { username?: string; display_name?: string; description?: string }): void {
  if (b.username !== undefined && !isValidUsername(b.username)) throw AppError.badRequest('model.bot.is_valid.username.app_error', 'Invalid username.');
  if (!withinRunes(b.display_name, BOT_LIMITS.displayName)) throw AppError.badRequest('model.bot.is_valid.user_id.app_error', `Invalid display name: at most ${BOT_LIMITS.displayName} characters.`);
  if (!withinRunes(b.description, BOT_LIMITS.description)) throw AppError.badRequest('model.bot.is_valid.description.app_error', `Invalid description: at most ${BOT_LIMITS.description} characters.`);
}

export interface BotInput {
  username?: string;
  display_name?: string;
  description?: string;
}

/** Bot accounts: users for programs, owned by a user, with access tokens as their only way in. */
export class BotsService {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly passwords: Passwords,
    private readonly realtime: Realtime,
  ) {
    this.authz = new Authz(deps);
  }

  /** The bot (disabled ones too) if the session may manage it; else 404 or 403 (see requireManageBot). */
  private async manageable(botUserId: string, session: Session): Promise<Bot> {
    const bot = await this.deps.stores.bots.get(botUserId, true);
    if (!bot) throw botNotFound();
    requireManageBot(this.authz, session, bot);
    return bot;
  }

  private async fresh(botUserId: string): Promise<Bot> {
    const bot = await this.deps.stores.bots.get(botUserId, true);
    if (!bot) throw botNotFound();
    return bot;
  }

  /**
   * Creates a bot owned by the caller: its user (no password, role system_user) and its bot row in one transaction.
   * Permission, then "a bot cannot create bots", then the feature switch, as Mattermost's handler checks them.
   */
  async create(input: BotInput, session: Session): Promise<Bot> {
    const { stores, config } = this.deps;
    this.authz.requireSystem(session, 'create_bot');
    const caller = await stores.users.get(session.userId);
    if (!caller || caller.is_bot) throw AppError.forbidden('create_bot');
    if (!config.get().ServiceSettings.EnableBotAccountCreation) {
      throw new AppError('api.bot.create_disabled', 'Bot creation has been disabled.', 403);
    }
    const username = (input.username ?? '').toLowerCase();
    const fields = { username, display_name: input.display_name ?? '', description: input.description ?? '' };
    validateBot(fields);
    const email = botEmail(username);
    await requireFreeNames(stores.users, { username, email });
    const now = this.deps.now();
    // No password: a bot gets in with access tokens only.
    const record = newUserRecord(newId(), now, { username, email, first_name: fields.display_name, is_bot: true, bot_description: fields.description, password: '' });
    try {
      await stores.transaction(async (tx) => {
        await tx.users.insert(record);
        await tx.bots.insert({ user_id: record.id, owner_id: session.userId, last_icon_update: 0, create_at: now, update_at: now, delete_at: 0 });
      });
    } catch (err) {
      // Lost a race on the unique username/email indexes.
      if (isDatabaseError(err, 'duplicate')) await requireFreeNames(stores.users, { username, email });
      throw err;
    }
    this.realtime.newUser(record.id);
    return this.fresh(record.id);
  }

  /** Changes the bot and its user together (username, display name as first_name, description), one transaction. */
  async patch(botUserId: string, input: BotInput, session: Session): Promise<Bot> {
    const { stores } = this.deps;
    const bot = await this.manageable(botUserId, session);
    const username = input.username?.toLowerCase();
    validateBot({ username, display_name: input.display_name, description: input.description });
    const changed =
      (username !== undefined && username !== bot.username) ||
      (input.display_name !== undefined && input.display_name !== bot.display_name) ||
      (input.description !== undefined && input.description !== bot.description);
    if (!changed) return bot;
    const user = await stores.users.get(botUserId);
    if (!user) throw botNotFound();
    const now = this.deps.now();
    const fields: Partial<UserRecord> = { update_at: Math.max(now, user.update_at + 1) };
    if (username !== undefined && username !== bot.username) {
      // The address follows the name, as Mattermost's UserFromBot makes it.
      const email = botEmail(username);
      await requireFreeNames(stores.users, { username, email }, user);
      fields.username = username;
      fields.email = email;
    }
    if (input.display_name !== undefined) fields.first_name = input.display_name;
    if (input.description !== undefined) fields.bot_description = input.description;
    try {
      await stores.transaction(async (tx) => {
        await tx.users.update(botUserId, fields);
        await tx.bots.update(botUserId, { update_at: Math.max(now, bot.update_at + 1) });
      });
    } catch (err) {
      if (isDatabaseError(err, 'duplicate')) throw usernameTaken();
      throw err;
    }
    this.realtime.userUpdated({ ...user, ...fields });
    return this.fresh(botUserId);
  }

  /**
   * One bot, if the session may read it: every bot with read_others_bots, one's own with read_bots; any other is the
   * same 404 as a bot that does not exist. The ETag covers the user's fields the bot shows (its name can change
   * through PatchUser too).
   */
  async get(botUserId: string, includeDeleted: boolean, session: Session): Promise<{ bot: Bot; etag: string }> {
    const bot = await this.deps.stores.bots.get(botUserId, includeDeleted);
    if (!bot) throw botNotFound();
    const readable = this.authz.system(session, 'read_others_bots') || (bot.owner_id === session.userId && this.authz.system(session, 'read_bots'));
    if (!readable) throw botNotFound();
    return { bot, etag: botsEtag([bot]) };
  }

  /** A page of bots: everyone's with read_others_bots, one's own with read_bots, else 403. */
  async list(filter: Omit<BotFilter, 'ownerId'>, session: Session): Promise<{ bots: Bot[]; etag: string }> {
    let ownerId: string | undefined;
    if (this.authz.system(session, 'read_others_bots')) ownerId = undefined;
    else if (this.authz.system(session, 'read_bots')) ownerId = session.userId;
    else throw AppError.forbidden('read_bots');
    const bots = await this.deps.stores.bots.list({ ...filter, ownerId });
    return { bots, etag: botsEtag(bots) };
  }

  /**
   * Disables (the user deactivated: its access tokens stop resolving and its sockets close, but are kept, so enabling
   * brings them back, as in Mattermost) or enables a bot. Already so: nothing changes.
   */
  async setActive(botUserId: string, active: boolean, session: Session): Promise<Bot> {
    const { stores } = this.deps;
    const bot = await this.manageable(botUserId, session);
    const user = await stores.users.get(botUserId);
    if (!user) throw botNotFound();
    const userChanges = (user.delete_at === 0) !== active;
    const botChanges = (bot.delete_at === 0) !== active;
    if (!userChanges && !botChanges) return bot;
    const now = this.deps.now();
    const userFields = { delete_at: active ? 0 : now, update_at: Math.max(now, user.update_at + 1) };
    let ended: string[] = [];
    await stores.transaction(async (tx) => {
      if (userChanges) await tx.users.update(botUserId, userFields);
      if (botChanges) await tx.bots.update(botUserId, { delete_at: active ? 0 : now, update_at: Math.max(now, bot.update_at + 1) });
      // A bot converted from a user may still hold login sessions: they end for good.
      if (!active) ended = await tx.sessions.deleteForUser(botUserId);
    });
    if (!active) this.deps.events.revoke({ userId: botUserId });
    else if (ended.length > 0) this.deps.events.revoke({ userId: botUserId, sessionIds: ended });
    if (userChanges) this.realtime.userUpdated({ ...user, ...userFields });
    return this.fresh(botUserId);
  }

  /** Gives the bot to another owner: an existing user who is not a bot (403 assign_bot, as in Mattermost). */
  async assign(botUserId: string, ownerId: string, session: Session): Promise<Bot> {
    const { stores } = this.deps;
    const bot = await this.manageable(botUserId, session);
    const owner = await stores.users.get(ownerId);
    if (!owner) throw userNotFound();
    if (owner.is_bot) throw AppError.forbidden('assign_bot');
    if (owner.id === bot.owner_id) return bot;
    await stores.bots.update(botUserId, { owner_id: ownerId, update_at: Math.max(this.deps.now(), bot.update_at + 1) });
    return this.fresh(botUserId);
  }

  /**
   * Turns an enabled bot into an ordinary user: the patch applied (a password required), optionally made a system
   * admin; the bot row goes, the account and its tokens stay. The permission is checked first (Mattermost looks the
   * bot up first, which tells anyone whether an id is a bot's).
   */
  async convertToUser(botUserId: string, patch: UserPatch & { password?: string }, setSystemAdmin: boolean, session: Session): Promise<User> {
    const { stores, config } = this.deps;
    this.authz.requireSystem(session, 'manage_system');
    const bot = await stores.bots.get(botUserId, false);
    if (!bot) throw botNotFound();
    if (!patch.password) throw AppError.invalidParam('userPatch');
    const user = await stores.users.get(botUserId);
    if (!user) throw botNotFound();
    const next: UserPatch = {};
    for (const key of ['username', 'email', 'first_name', 'last_name', 'nickname', 'position', 'locale'] as const) {
      if (patch[key] !== undefined) next[key] = key === 'username' || key === 'email' ? patch[key]?.toLowerCase() : patch[key];
    }
    validateProfile(next);
    validatePassword(patch.password);
    await requireFreeNames(stores.users, next, user);
    const now = this.deps.now();
    const roles = setSystemAdmin && !isSystemAdmin(user.roles) ? `${user.roles} system_admin`.trim() : user.roles;
    const fields: Partial<UserRecord> = {
      ...next,
      is_bot: false,
      bot_description: '',
      roles,
      password: await this.passwords.hash(patch.password),
      last_password_update: now,
      update_at: Math.max(now, user.update_at + 1),
    };
    try {
      await stores.transaction(async (tx) => {
        await tx.users.update(botUserId, fields);
        await tx.bots.delete(botUserId);
      });
    } catch (err) {
      if (isDatabaseError(err, 'duplicate')) throw next.username && next.username !== user.username ? usernameTaken() : emailTaken();
      throw err;
    }
    const updated = { ...user, ...fields } as UserRecord;
    this.realtime.userUpdated(updated);
    if (roles !== user.roles) this.realtime.userRoleUpdated(botUserId, roles);
    return sanitizeUser(updated, { userId: session.userId, isAdmin: true }, config.get());
  }

  /**
   * Turns a user into a bot owned by itself (Mattermost's BotFromUser). Its login sessions end: a bot gets in with
   * access tokens only.
   */
  async convertFromUser(userId: string, session: Session): Promise<Bot> {
    const { stores } = this.deps;
    this.authz.requireSystem(session, 'manage_system');
    const user = await stores.users.get(userId);
    if (!user) throw userNotFound();
    if (user.is_bot || (await stores.bots.get(userId, true))) throw AppError.invalidParam('user_id');
    const now = this.deps.now();
    const fields = { is_bot: true, bot_description: '', update_at: Math.max(now, user.update_at + 1) };
    let ended: string[] = [];
    await stores.transaction(async (tx) => {
      await tx.users.update(userId, fields);
      await tx.bots.insert({ user_id: userId, owner_id: userId, last_icon_update: 0, create_at: now, update_at: now, delete_at: user.delete_at });
      ended = await tx.sessions.deleteForUser(userId);
    });
    if (ended.length > 0) this.deps.events.revoke({ userId, sessionIds: ended });
    this.realtime.userUpdated({ ...user, ...fields });
    return this.fresh(userId);
  }
}

/** The version of a list of bots: every field shown, so any change (a rename through PatchUser too) changes it. */
function botsEtag(bots: Bot[]): string {
  return `${bots.length}.${createHash('sha256').update(JSON.stringify(bots)).digest('base64url').slice(0, 22)}`;
}
