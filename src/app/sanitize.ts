import type { Config } from '../config/settings';
import type { Team, User, UserRecord } from '../model';

export interface Viewer {
  userId: string;
  isAdmin: boolean;
}

/** Strips the private parts of a user for the given viewer, following Mattermost's Sanitize/SanitizeProfile. */
export function sanitizeUser(record: UserRecord, viewer: Viewer | null, config: Config): User {
  const { password: _password, ...user } = record;
  const out: User = { ...user, auth_data: '' };
  if (viewer && viewer.userId === record.id) return out;
  out.email_verified = false;
  out.allow_marketing = false;
  out.notify_props = {};
  out.last_password_update = 0;
  out.failed_attempts = 0;
  if (viewer?.isAdmin) return out;
  out.auth_service = '';
  if (!config.PrivacySettings.ShowEmailAddress) out.email = '';
  if (!config.PrivacySettings.ShowFullName) {
    out.first_name = '';
    out.last_name = '';
  }
  return out;
}

/**
 * Team email is for team managers only; the invite id also for those who may invite (Mattermost's SanitizeTeam:
 * every member by default).
 */
export function sanitizeTeam(team: Team, canManage: boolean, canInvite = false): Team {
  if (canManage) return team;
  return { ...team, email: '', invite_id: canInvite ? team.invite_id : '' };
}
