// The built-in roles as the apps read them (GetRole, GetRoleByName, GetRolesByNames): each lists the permissions
// Parley grants with it, so that the apps' permission checks (mattermost-redux's haveISystemPermission,
// haveITeamPermission, haveIChannelPermission) offer exactly what the server allows.
import { idFromName } from '../lib/ids';
import { AppError, MEMBERSHIP_LIMITS, type Role } from '../model';
import { permissionsOf } from './permissions';

/**
 * Names the apps check for things Parley allows under another permission: a role granting the key lists these too.
 * Reading a channel's posts is read_channel here; Mattermost's apps ask for read_channel_content.
 */
const SAME_AS: Record<string, readonly string[]> = {
  read_channel: ['read_channel_content'],
};

/**
 * What every logged-in user may do in Parley without a permission check (listing and joining open teams, seeing any
 * user's profile), in the names Mattermost's system_user role grants it under.
 */
const EVERY_USER = ['list_public_teams', 'join_public_teams', 'view_members'];

/** Parley's roles, with the translation keys Mattermost names them by and its scheme_managed flag. */
const DEFINITIONS = [
  { name: 'system_user', i18n: 'global_user', schemeManaged: true },
  { name: 'system_admin', i18n: 'global_admin', schemeManaged: true },
  { name: 'system_user_access_token', i18n: 'system_user_access_token', schemeManaged: false },
  { name: 'team_user', i18n: 'team_user', schemeManaged: true },
  { name: 'team_admin', i18n: 'team_admin', schemeManaged: true },
  { name: 'channel_user', i18n: 'channel_user', schemeManaged: true },
  { name: 'channel_admin', i18n: 'channel_admin', schemeManaged: true },
] as const;

function permissionsListed(name: string): string[] {
  const granted: string[] = permissionsOf(name) ?? [];
  const listed = new Set(granted.flatMap((p) => [p, ...(SAME_AS[p] ?? [])]));
  if (name === 'system_user' || name === 'system_admin') EVERY_USER.forEach((p) => listed.add(p));
  return [...listed];
}

/**
 * Built once. The ids are derived from the names rather than stored: the roles are the same on every server and
 * cannot be created or changed, so every process (several share a database behind Redis) and every restart gives a
 * role the same id without a table to keep it in.
 */
const ROLES: ReadonlyMap<string, Role> = new Map(
  DEFINITIONS.map((d) => [
    d.name,
    Object.freeze({
      id: idFromName(`role:${d.name}`),
      name: d.name,
      display_name: `authentication.roles.${d.i18n}.name`,
      description: `authentication.roles.${d.i18n}.description`,
      create_at: 0,
      update_at: 0,
      delete_at: 0,
      permissions: permissionsListed(d.name),
      scheme_managed: d.schemeManaged,
      built_in: true,
    }),
  ]),
);
const BY_ID: ReadonlyMap<string, Role> = new Map([...ROLES.values()].map((r) => [r.id, r]));

/** Mattermost's IsValidRoleName: 1 to 64 of a-z, 0-9 and _. */
const ROLE_NAME = /^[a-z0-9_]{1,64}$/;

const tooMany = () =>
  AppError.badRequest(
    'api.roles.get_multiple_by_name_too_many.request_error',
    `Unable to get that many roles by name. Only ${MEMBERSHIP_LIMITS.rolesPerRequest} roles can be requested at once.`,
  );

export class RolesService {
  byId(id: string): Role {
    const role = BY_ID.get(id);
    if (!role) throw AppError.notFound('app.role.get.app_error', 'Unable to get the role.');
    return role;
  }

  byName(name: string): Role {
    if (!ROLE_NAME.test(name)) throw AppError.invalidParam('role_name');
    const role = ROLES.get(name);
    if (!role) throw AppError.notFound('app.role.get_by_name.app_error', 'Unable to get the role.');
    return role;
  }

  /**
   * The roles of the names Parley has, sorted by name; unknown names are left out. As Mattermost: the names are
   * de-duplicated before they are counted, blank ones (and nulls, which Go decodes as "") are dropped, and one that is
   * not a role name refuses the whole request.
   */
  byNames(names: ReadonlyArray<string | null>): Role[] {
    if (names.length === 0) throw AppError.invalidParam('rolenames');
    const distinct = [...new Set(names.map((n) => n ?? ''))];
    if (distinct.length > MEMBERSHIP_LIMITS.rolesPerRequest) throw tooMany();
    const wanted = distinct.filter((n) => n.trim() !== '');
    if (wanted.some((n) => !ROLE_NAME.test(n))) throw AppError.invalidParam('rolename');
    return wanted
      .sort()
      .map((n) => ROLES.get(n))
      .filter((r): r is Role => r !== undefined);
  }
}
