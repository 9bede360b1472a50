// Users as the caller sees them (by id, by name, lists, autocomplete, the generated picture), and the service the app
// exposes as `app.users`: sign-up (user-signup.ts) and changes to an account (user-edits.ts) are their own concerns,
// reached through it so that handlers see one surface. The profile rules are in user-profile.ts.
import { defaultAvatar } from '../lib/avatar';
import { AppError, type Session, type User, type UserAutocomplete, type UserRecord } from '../model';
import type { StoreSet } from '../store';
import type { UserFilter } from '../store/users-store';
import { Authz } from './authz';
import type { Deps } from './deps';
import type { Passwords } from './passwords';
import { isSystemAdmin } from './permissions';
import type { Realtime } from './realtime';
import { sanitizeUser } from './sanitize';
import { UserEdits } from './user-edits';
import { userNotFound } from './user-profile';
import { UserSignup } from './user-signup';

export type { CreateOptions } from './user-signup';

// MySQL/MariaDB's utf8mb4_unicode_ci compares "josé" equal to "jose" and ignores trailing spaces; SQLite does not.
// A lookup by name must find exactly that name on every database.
const exactly = (record: UserRecord | undefined, key: 'username' | 'email', value: string) => (record && record[key] === value ? record : undefined);

/** The user a login id names: an email when it has an "@", else a username; letter case does not matter. */
export async function findByLogin(stores: StoreSet, loginId: string): Promise<UserRecord | undefined> {
  const id = loginId.toLowerCase();
  return id.includes('@') ? exactly(await stores.users.getByEmail(id), 'email', id) : exactly(await stores.users.getByUsername(id), 'username', id);
}

export class UsersService {
  private readonly authz: Authz;
  private readonly signup: UserSignup;
  private readonly edits: UserEdits;

  constructor(
    private readonly deps: Deps,
    passwords: Passwords,
    realtime: Realtime,
  ) {
    this.authz = new Authz(deps);
    this.signup = new UserSignup(deps, passwords, realtime);
    this.edits = new UserEdits(deps, passwords, realtime, (user, session) => this.sanitize(user, session));
  }

  // Sign-up (user-signup.ts).
  readonly create: UserSignup['create'] = (...a) => this.signup.create(...a);
  readonly requireUserCreation: UserSignup['requireUserCreation'] = () => this.signup.requireUserCreation();
  // Changes to an account (user-edits.ts).
  readonly patch: UserEdits['patch'] = (...a) => this.edits.patch(...a);
  readonly updatePassword: UserEdits['updatePassword'] = (...a) => this.edits.updatePassword(...a);
  readonly setActive: UserEdits['setActive'] = (...a) => this.edits.setActive(...a);
  readonly updateRoles: UserEdits['updateRoles'] = (...a) => this.edits.updateRoles(...a);

  viewer(session: Session | null) {
    return session ? { userId: session.userId, isAdmin: isSystemAdmin(session.roles) } : null;
  }

  sanitize(user: UserRecord, session: Session | null): User {
    return sanitizeUser(user, this.viewer(session), this.deps.config.get());
  }

  async get(id: string, session: Session): Promise<{ user: User; etag: string }> {
    const record = await this.deps.stores.users.get(id);
    if (!record) throw userNotFound();
    return { user: this.sanitize(record, session), etag: this.etag(record, session) };
  }

  async getByUsername(username: string, session: Session): Promise<{ user: User; etag: string }> {
    const record = exactly(await this.deps.stores.users.getByUsername(username), 'username', username.toLowerCase());
    if (!record) throw AppError.notFound('app.user.get_by_username.app_error', 'Unable to find an existing account matching your username for this team.');
    return { user: this.sanitize(record, session), etag: this.etag(record, session) };
  }

  private etag(record: UserRecord, session: Session): string {
    const privacy = this.deps.config.get().PrivacySettings;
    const view = session.userId === record.id ? 'self' : isSystemAdmin(session.roles) ? 'admin' : 'other';
    return `${record.id}.${record.update_at}.${privacy.ShowFullName}.${privacy.ShowEmailAddress}.${view}`;
  }

  async list(
    filter: UserFilter,
    session: Session,
  ): Promise<User[]> {
    const { stores } = this.deps;
    // Filtering by a team or channel reveals its membership: only its members (or admins) may do it.
    for (const teamId of [filter.inTeam, filter.notInTeam]) {
      if (teamId) await this.authz.requireTeam(session, teamId, 'view_team');
    }
    for (const channelId of [filter.inChannel, filter.notInChannel]) {
      if (!channelId) continue;
      const channel = await stores.channels.get(channelId);
      if (!channel) throw AppError.notFound('app.channel.get.existing.app_error', 'Unable to find the existing channel.');
      await this.authz.requireChannel(session, channel, 'read_channel');
    }
    const users = await stores.users.list(filter);
    return users.map((u) => this.sanitize(u, session));
  }

  async getByIds(ids: string[], since: number | undefined, session: Session): Promise<User[]> {
    const users = await this.deps.stores.users.getMany([...new Set(ids)]);
    return users.filter((u) => since === undefined || u.update_at > since).map((u) => this.sanitize(u, session));
  }

  /** Users by their usernames (in any letter case: usernames are stored lower-case); unknown ones are left out. */
  async getByUsernames(usernames: string[], session: Session): Promise<User[]> {
    const wanted = [...new Set(usernames.map((u) => u.toLowerCase()))];
    const users = await this.deps.stores.users.getByUsernames(wanted);
    return users.sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0)).map((u) => this.sanitize(u, session));
  }

  /**
   * Users whose names start with the search words, for @-mention completion: within a channel (and the rest of its
   * team), a team, or everyone. Full names are searched only where the caller may see them; e-mail never.
   */
  async autocomplete(q: { inTeam: string; inChannel: string; name: string; limit: number }, session: Session): Promise<UserAutocomplete> {
    const { stores, config } = this.deps;
    // Mattermost answers a channel without its team with a 500; it is the request that is wrong, so here a 400.
    if (q.inChannel && !q.inTeam) {
      throw AppError.badRequest('api.user.autocomplete_users.missing_team_id.app_error', 'Team id parameter is required to autocomplete by channel.');
    }
    if (q.inChannel) {
      const channel = await stores.channels.get(q.inChannel);
      if (!channel) throw AppError.notFound('app.channel.get.existing.app_error', 'Unable to find the existing channel.');
      await this.authz.requireChannel(session, channel, 'read_channel');
    }
    if (q.inTeam) await this.authz.requireTeam(session, q.inTeam, 'view_team');
    const words = q.name.trim().replace(/^@/, '').split(/\s+/).filter(Boolean);
    const fullNames = isSystemAdmin(session.roles) || config.get().PrivacySettings.ShowFullName;
    const limit = q.limit > 0 ? Math.min(q.limit, 1000) : 100;
    const find = async (where: { inTeam?: string; inChannel?: string; notInChannel?: string }) =>
      (await stores.users.autocomplete({ words, fullNames, limit, ...where })).map((u) => this.sanitize(u, session));
    if (q.inChannel) {
      const [users, outOfChannel] = await Promise.all([find({ inChannel: q.inChannel }), find({ inTeam: q.inTeam, notInChannel: q.inChannel })]);
      return { users, out_of_channel: outOfChannel };
    }
    return { users: await find({ inTeam: q.inTeam || undefined }) };
  }

  /**
   * A user's generated picture (GetDefaultProfileImage; GetProfileImage without an upload, see profile-images.ts), a
   * PNG that depends on the user id (its colour) and the username's first character. The ETag names both (and the
   * drawing's version).
   */
  async profileImage(id: string): Promise<{ png: Buffer; etag: string }> {
    const user = await this.deps.stores.users.get(id);
    if (!user) throw userNotFound();
    const avatar = defaultAvatar(user.id, user.username);
    return { png: avatar.png, etag: `${user.last_picture_update}.${avatar.key}` };
  }
}
