// Sign-up: creating an account (the first one becomes the system admin), and who may create one.
import { newId } from '../lib/ids';
import { AppError, isDatabaseError, type CreateUserInput, type Session, type User, type UserRecord } from '../model';
import type { TxStores } from '../store';
import type { Deps } from './deps';
import type { Passwords } from './passwords';
import { isSystemAdmin } from './permissions';
import type { Realtime } from './realtime';
import { sanitizeUser } from './sanitize';
import { DEFAULT_NOTIFY_PROPS, DEFAULT_TIMEZONE, checkStoredMaps, newUserRecord, requireFreeNames, validatePassword, validateProfile } from './user-profile';

/** The fact whose unique name makes exactly one sign-up on an empty database the first system admin. */
const FIRST_ADMIN = 'FirstAdminUserId';

class LostFirstAdmin extends Error {}

/** How an account is created beyond its fields: through an invitation, and what else its transaction writes. */
export interface CreateOptions {
  /** A team invite link (`iid`): sign-up needs no open server. */
  invited?: boolean;
  /** More writes in the transaction that inserts the user (joining the invite's team). */
  inTransaction?: (tx: TxStores, userId: string, now: number) => Promise<void>;
}

export class UserSignup {
  constructor(
    private readonly deps: Deps,
    private readonly passwords: Passwords,
    private readonly realtime: Realtime,
  ) {}

  /**
   * Creates an account. On an empty database the first account (no session needed) becomes the system admin: it
   * claims a unique row in the same transaction as its insert, so of many sign-ups racing on an empty database exactly
   * one wins; the others are ordinary sign-ups (which the open-server rules may then refuse).
   */
  async create(input: CreateUserInput, session: Session | null, options: CreateOptions = {}): Promise<User> {
    const { stores, config } = this.deps;
    const username = (input.username ?? '').toLowerCase();
    const email = (input.email ?? '').toLowerCase();
    validateProfile({ ...input, username, email });
    validatePassword(input.password ?? '');
    const notifyProps = { ...DEFAULT_NOTIFY_PROPS, ...(input.notify_props ?? {}) };
    checkStoredMaps({ props: input.props, notify_props: notifyProps });
    let claimFirst = (await stores.users.countAll()) === 0;
    this.requireSignUpAllowed(claimFirst, session, options.invited === true);
    await requireFreeNames(stores.users, { username, email });
    const now = this.deps.now();
    const record: UserRecord = newUserRecord(newId(), now, {
      username,
      email,
      nickname: input.nickname ?? '',
      first_name: input.first_name ?? '',
      last_name: input.last_name ?? '',
      position: input.position ?? '',
      props: input.props ?? {},
      notify_props: notifyProps,
      locale: input.locale || 'en',
      timezone: { ...DEFAULT_TIMEZONE, ...(input.timezone ?? {}) },
      password: await this.passwords.hash(input.password),
    });
    for (;;) {
      record.roles = claimFirst ? 'system_admin system_user' : 'system_user';
      try {
        await stores.transaction(async (tx) => {
          if (claimFirst) {
            await tx.systems.insert(FIRST_ADMIN, record.id).catch((err: unknown) => {
              throw isDatabaseError(err, 'duplicate') ? new LostFirstAdmin() : err;
            });
          }
          await tx.users.insert(record);
          await options.inTransaction?.(tx, record.id, now);
        });
        break;
      } catch (err) {
        if (err instanceof LostFirstAdmin) {
          // Another sign-up became the first admin meanwhile: this one is an ordinary sign-up after all.
          claimFirst = false;
          this.requireSignUpAllowed(false, session, options.invited === true);
          continue;
        }
        // Lost a race on the unique username/email indexes.
        if (isDatabaseError(err, 'duplicate')) await requireFreeNames(stores.users, { username, email });
        throw err;
      }
    }
    this.realtime.newUser(record.id);
    return sanitizeUser(record, { userId: record.id, isAdmin: claimFirst }, config.get());
  }

  /**
   * Who may create this account: the first one, an admin, an invited person, or anyone when sign-up is open to all.
   * An invitation is held to EnableUserCreation whoever sends it (Mattermost's CreateUserWithInviteId).
   */
  private requireSignUpAllowed(first: boolean, session: Session | null, invited: boolean): void {
    const settings = this.deps.config.get().TeamSettings;
    if (invited) return this.requireUserCreation();
    if (first || (session !== null && isSystemAdmin(session.roles))) return;
    this.requireUserCreation();
    if (!settings.EnableOpenServer) {
      throw new AppError('api.user.create_user.no_open_server', 'This server does not allow open signups. Please speak with your Administrator to receive an invitation.', 403);
    }
  }

  /** Mattermost's IsUserSignUpAllowed: a 501 with this id, not a 403, as Mattermost answers. */
  requireUserCreation(): void {
    if (!this.deps.config.get().TeamSettings.EnableUserCreation) {
      throw AppError.notImplemented('api.user.create_user.signup_email_disabled.app_error', 'User sign-up with email is disabled.');
    }
  }
}
