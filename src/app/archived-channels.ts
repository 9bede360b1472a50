import { AppError, type Channel, type Session } from '../model';
import { Authz } from './authz';
import type { Deps } from './deps';

/**
 * The team's archived channels a person may still read (the web app's "Archived channels" view). Archiving itself
 * and restoring are ChannelsService's.
 */
export class ArchivedChannelsService {
  private readonly authz: Authz;

  constructor(private readonly deps: Deps) {
    this.authz = new Authz(deps);
  }

  /** GetDeletedChannelsForTeam: archived public channels, and archived private ones the caller belongs to. */
  async list(teamId: string, page: number, perPage: number, session: Session): Promise<Channel[]> {
    if (!(await this.deps.stores.teams.get(teamId))) throw AppError.notFound('app.team.get.find.app_error', 'Unable to find the existing team.');
    await this.authz.requireTeam(session, teamId, 'view_team');
    return this.deps.stores.channels.listDeleted(teamId, session.userId, page, perPage);
  }
}
