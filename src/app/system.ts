import type { Config } from '../config/settings';
import { Authz } from './authz';
import { isSystemAdmin } from './permissions';
import type { Realtime } from './realtime';
import type { Deps } from './deps';
import { AppError, POST_LIMITS, REACTION_LIMITS } from '../model';
import type { Session } from '../model';


export const MATTERMOST_COMPAT_VERSION = '10.11.0';
export const BUILD_NUMBER = 'parley-0.1.0';

export class SystemService {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly realtime: Realtime,
  ) {
    this.authz = new Authz(deps);
  }

  /**
   * The client license of a server without one (Mattermost's answer when no license is loaded): the apps read these
   * fields and hide every licensed feature.
   */
  clientLicense(format: string | undefined): Record<string, string> {
    if (format !== undefined && format !== '' && format !== 'old') throw AppError.invalidParam('format');
    return { IsLicensed: 'false', Cloud: 'false', IsTrial: 'false' };
  }

  /** Mattermost's ServerLimits with no limit anywhere; the count of active users is for system admins only. */
  async serverLimits(session: Session): Promise<{ maxUsersLimit: number; maxUsersHardLimit: number; activeUserCount: number; lastAccessiblePostTime: number; postHistoryLimit: number }> {
    const activeUserCount = isSystemAdmin(session.roles) ? await this.deps.stores.users.countActive() : 0;
    return { maxUsersLimit: 0, maxUsersHardLimit: 0, activeUserCount, lastAccessiblePostTime: 0, postHistoryLimit: 0 };
  }

  async ping(withStatus: boolean): Promise<Record<string, string>> {
    const out: Record<string, string> = {
      status: 'OK',
      AndroidLatestVersion: '',
      AndroidMinVersion: '',
      IosLatestVersion: '',
      IosMinVersion: '',
      DesktopLatestVersion: '',
      DesktopMinVersion: '',
    };
    if (withStatus) {
      const dbOk = await this.deps.stores.ping();
      out.database_status = dbOk ? 'OK' : 'UNHEALTHY';
      out.filestore_status = 'OK';
      if (!dbOk) out.status = 'UNHEALTHY';
    }
    return out;
  }

  /**
   * The client config (a flat string map), as Mattermost serves it with `format=old`: anonymous callers get the
   * limited set a login or sign-up page needs; a session adds the settings of features behind the login.
   */
  async clientConfig(format: string | undefined, session: Session | null): Promise<Record<string, string>> {
    if (format === undefined || format === '') {
      throw AppError.notImplemented('api.config.client.old_format.app_error', 'New format for the client configuration is not supported yet. Please specify format=old in the query string.');
    }
    if (format !== 'old') throw AppError.invalidParam('format');
    const c = this.deps.config.get();
    const noAccounts = (await this.deps.stores.users.countAll()) === 0;
    const limited: Record<string, string> = {
      Version: MATTERMOST_COMPAT_VERSION,
      BuildNumber: BUILD_NUMBER,
      BuildHash: BUILD_NUMBER,
      SiteName: c.TeamSettings.SiteName || 'Parley',
      SiteURL: c.ServiceSettings.SiteURL,
      DiagnosticsEnabled: 'false',
      EnableSignUpWithEmail: String(c.TeamSettings.EnableUserCreation),
      EnableUserCreation: String(c.TeamSettings.EnableUserCreation),
      EnableOpenServer: String(c.TeamSettings.EnableOpenServer),
      NoAccounts: String(noAccounts),
    };
    if (!session) return limited;
    return {
      ...limited,
      EnableIncomingWebhooks: String(c.ServiceSettings.EnableIncomingWebhooks),
      EnableOutgoingWebhooks: String(c.ServiceSettings.EnableOutgoingWebhooks),
      EnableCommands: String(c.ServiceSettings.EnableCommands),
      EnableBotAccountCreation: String(c.ServiceSettings.EnableBotAccountCreation),
      EnablePostUsernameOverride: String(c.ServiceSettings.EnablePostUsernameOverride),
      EnablePostIconOverride: String(c.ServiceSettings.EnablePostIconOverride),
      EnableUserAccessTokens: String(c.ServiceSettings.EnableUserAccessTokens),
      ShowEmailAddress: String(c.PrivacySettings.ShowEmailAddress),
      ShowFullName: String(c.PrivacySettings.ShowFullName),
      MaxPostSize: String(POST_LIMITS.messageRunes),
      CollapsedThreads: c.ServiceSettings.CollapsedThreads,
      UniqueEmojiReactionLimitPerPost: String(Math.min(c.ServiceSettings.UniqueEmojiReactionLimitPerPost, REACTION_LIMITS.uniqueEmojiPerPostMax)),
    };
  }

  getConfig(session: Session): Config {
    this.authz.requireSystem(session, 'manage_system');
    return this.deps.config.forDisplay();
  }

  async patchConfig(patch: unknown, session: Session): Promise<Config> {
    this.authz.requireSystem(session, 'manage_system');
    const current = this.deps.config.get();
    const proposed = patch as Partial<Config> | null;
    const siteUrl = proposed?.ServiceSettings?.SiteURL;
    if (siteUrl === '' && current.ServiceSettings.SiteURL !== '') {
      throw AppError.badRequest('api.config.update_config.clear_siteurl.app_error', 'Site URL cannot be cleared.');
    }
    await this.deps.config.patch(patch);
    this.realtime.configChanged(await this.clientConfig('old', session));
    return this.deps.config.forDisplay();
  }
}
