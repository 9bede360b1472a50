// Roles and the permissions each grants: the default Mattermost scheme, reduced to the operations Parley serves.

/** Every permission Parley checks, in Mattermost's names (system admins hold them all). */
export const PERMISSIONS = [
  'manage_system',
  'create_team',
  'edit_other_users',
  'create_direct_channel',
  'create_user_access_token',
  'read_user_access_token',
  'revoke_user_access_token',
  'view_team',
  'manage_team',
  'add_user_to_team',
  // Seeing a team's invite id (its invite link), as Mattermost's SanitizeTeam: every member by default.
  'invite_user',
  // Making members team admins (UpdateTeamMemberRoles).
  'manage_team_roles',
  'list_team_channels',
  'join_public_channels',
  'read_public_channel',
  'create_public_channel',
  'create_private_channel',
  'manage_public_channel_members',
  'manage_private_channel_members',
  'manage_own_incoming_webhooks',
  'manage_others_incoming_webhooks',
  'manage_own_outgoing_webhooks',
  'manage_others_outgoing_webhooks',
  // Custom slash commands: team admins in Mattermost's default scheme (team_user lost them in 2018).
  'manage_own_slash_commands',
  'manage_others_slash_commands',
  'delete_others_posts',
  'edit_others_posts',
  'read_channel',
  'create_post',
  'edit_post',
  'delete_post',
  'use_channel_mentions',
  'add_reaction',
  'remove_reaction',
  // Removing someone else's reaction: system admins only, as in Mattermost's default scheme.
  'remove_others_reactions',
  'upload_file',
  'manage_public_channel_properties',
  'manage_private_channel_properties',
  'delete_public_channel',
  'delete_private_channel',
  'manage_channel_roles',
  'remove_user_from_team',
  'manage_roles',
  // Reading another user's team memberships (GetTeamMembersForUser): system admins only, as in Mattermost's default scheme.
  'read_other_users_teams',
  // Bot accounts: system admins only in Mattermost's default roles (a plain user gets a 403 on CreateBot even with
  // EnableBotAccountCreation on). read_* decides whether a bot is visible at all (404 otherwise), manage_* whether
  // it may be changed; *_others_* for bots owned by someone else.
  'create_bot',
  'read_bots',
  'read_others_bots',
  'manage_bots',
  'manage_others_bots',
  'assign_bot',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

const TEAM_USER: Permission[] = [
  'view_team',
  'add_user_to_team',
  'list_team_channels',
  'join_public_channels',
  'read_public_channel',
  'create_public_channel',
  'create_private_channel',
  'invite_user',
];

const TEAM_ADMIN: Permission[] = [
  ...TEAM_USER,
  'manage_team',
  'manage_public_channel_members',
  'manage_private_channel_members',
  'manage_own_incoming_webhooks',
  'manage_others_incoming_webhooks',
  'manage_own_outgoing_webhooks',
  'manage_others_outgoing_webhooks',
  // Custom slash commands: team admins in Mattermost's default scheme (team_user lost them in 2018).
  'manage_own_slash_commands',
  'manage_others_slash_commands',
  'delete_others_posts',
  'edit_others_posts',
  // Team admins moderate every channel of their team, members of it or not.
  'manage_public_channel_properties',
  'manage_private_channel_properties',
  'delete_public_channel',
  'delete_private_channel',
  'manage_channel_roles',
  'remove_user_from_team',
  'manage_team_roles',
];

const CHANNEL_USER: Permission[] = [
  'read_channel',
  'create_post',
  'edit_post',
  'delete_post',
  'use_channel_mentions',
  'add_reaction',
  'remove_reaction',
  'upload_file',
  'manage_public_channel_members',
  'manage_private_channel_members',
  // Mattermost's default scheme lets every member rename and archive the channels they are in.
  'manage_public_channel_properties',
  'manage_private_channel_properties',
  'delete_public_channel',
  'delete_private_channel',
];

const CHANNEL_ADMIN: Permission[] = [...CHANNEL_USER, 'manage_channel_roles'];

const ROLES: Record<string, ReadonlySet<Permission>> = {
  system_user: new Set<Permission>(['create_team', 'create_direct_channel']),
  // Personal access tokens are an admin-granted privilege in Mattermost: this role carries it for a plain user.
  system_user_access_token: new Set<Permission>(['create_user_access_token', 'read_user_access_token', 'revoke_user_access_token']),
  team_user: new Set(TEAM_USER),
  team_admin: new Set(TEAM_ADMIN),
  channel_user: new Set(CHANNEL_USER),
  channel_admin: new Set(CHANNEL_ADMIN),
};

/**
 * The permissions a role grants, in the order of its table (system_admin: every one); undefined for a role Parley
 * does not have. What GetRolesByNames lists comes from here, so it cannot drift from what the checks enforce.
 */
export function permissionsOf(role: string): Permission[] | undefined {
  if (role === 'system_admin') return [...PERMISSIONS];
  // Own keys only: a requested name such as "constructor" is no role.
  return Object.hasOwn(ROLES, role) ? [...ROLES[role]] : undefined;
}

export function rolesGrant(roles: string, permission: Permission): boolean {
  for (const role of roles.split(' ')) {
    if (role === 'system_admin') return true;
    if (ROLES[role]?.has(permission)) return true;
  }
  return false;
}

export function isSystemAdmin(roles: string): boolean {
  return roles.split(' ').includes('system_admin');
}

export const VALID_SYSTEM_ROLES = new Set(['system_user', 'system_admin', 'system_user_access_token']);
