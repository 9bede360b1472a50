import { rest, type Team } from '../api';
import { errorText } from '../error-text';
import { channelPath, navigate } from '../router';
import { appStore } from '../state/app-store';
import { sortTeams } from '../state/selectors';

/** Creating a team, joining one by its invite link, and the invite link itself. */

export async function refreshTeams(): Promise<Team[]> {
  const teams = sortTeams(await rest.myTeams());
  appStore.set({ teams });
  return teams;
}

/** Creates a team (the creator becomes its admin) and opens its town square; on failure, the server's words. */
export async function createTeam(displayName: string, name: string): Promise<{ ok: true } | { ok: false; field: 'name' | 'display_name' | 'form'; message: string }> {
  try {
    const team = await rest.createTeam({ name, display_name: displayName, type: 'O' });
    appStore.set((s) => ({ teams: sortTeams([...s.teams.filter((t) => t.id !== team.id), team]) }));
    navigate(channelPath(team.name, 'town-square'), { replace: true });
    return { ok: true };
  } catch (err) {
    const id = (err as { id?: string }).id ?? '';
    // The server's ids: app.team.save.existing.app_error (taken), model.team.is_valid.{url,characters,reserved}.
    const field = id === 'app.team.save.existing.app_error' || /is_valid\.(url|characters|reserved)/.test(id) ? 'name' : /is_valid\.name/.test(id) ? 'display_name' : 'form';
    return { ok: false, field, message: errorText(err) };
  }
}

/** Joins the team an invite link names (a signed-in person following a link) and opens it. */
export async function joinByInvite(inviteId: string): Promise<string | undefined> {
  try {
    const member = await rest.joinByInvite(inviteId);
    const teams = await refreshTeams();
    const team = teams.find((t) => t.id === member.team_id);
    navigate(team ? channelPath(team.name, 'town-square') : '/', { replace: true });
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

/** A new invite id for the team: links with the old one stop working. Returns the team as it is now. */
export async function regenerateInvite(teamId: string): Promise<Team> {
  const team = await rest.regenerateInvite(teamId);
  appStore.set((s) => ({ teams: s.teams.map((t) => (t.id === team.id ? team : t)) }));
  return team;
}

/** Whether the viewer may regenerate the team's link: a team admin or a system admin. */
export async function canManageTeam(teamId: string): Promise<boolean> {
  if ((appStore.get().me?.roles ?? '').split(' ').includes('system_admin')) return true;
  try {
    const members = await rest.myTeamMembers();
    return members.some((m) => m.team_id === teamId && (m.roles ?? '').split(' ').includes('team_admin'));
  } catch {
    return false;
  }
}

export type InviteInfo = { id: string; name: string; display_name: string; description: string };

/** The team an invite link leads to; the reason in words when it leads nowhere. */
export async function inviteInfo(inviteId: string): Promise<{ ok: true; team: InviteInfo } | { ok: false; message: string }> {
  try {
    return { ok: true, team: await rest.inviteInfo(inviteId) };
  } catch (err) {
    return { ok: false, message: errorText(err) };
  }
}
