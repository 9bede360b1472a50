/** The Mattermost-shaped configuration subset Parley understands. Section and key names match Mattermost's. */
export interface Config {
  ServiceSettings: {
    SiteURL: string;
    ListenAddress: string;
    EnableIncomingWebhooks: boolean;
    EnablePostUsernameOverride: boolean;
    EnablePostIconOverride: boolean;
    EnableUserAccessTokens: boolean;
    MaximumPayloadSizeBytes: number;
    EnableDeveloper: boolean;
  };
  TeamSettings: {
    EnableOpenServer: boolean;
    EnableUserCreation: boolean;
    MaxNotificationsPerChannel: number;
  };
  SqlSettings: {
    DriverName: 'sqlite' | 'mysql';
    DataSource: string;
    QueryTimeout: number;
  };
  PrivacySettings: {
    ShowEmailAddress: boolean;
    ShowFullName: boolean;
  };
}

export type Section = keyof Config;

export function defaultConfig(): Config {
  return {
    ServiceSettings: {
      SiteURL: '',
      ListenAddress: ':8065',
      EnableIncomingWebhooks: true,
      EnablePostUsernameOverride: false,
      EnablePostIconOverride: false,
      EnableUserAccessTokens: false,
      MaximumPayloadSizeBytes: 300000,
      EnableDeveloper: false,
    },
    TeamSettings: {
      EnableOpenServer: false,
      EnableUserCreation: true,
      MaxNotificationsPerChannel: 1000,
    },
    SqlSettings: {
      DriverName: 'sqlite',
      DataSource: './data/parley.db',
      QueryTimeout: 30,
    },
    PrivacySettings: {
      ShowEmailAddress: true,
      ShowFullName: true,
    },
  };
}

/** Settings that only make sense per process (how to reach the database, where to listen); never stored in it. */
export const PROCESS_LOCAL: ReadonlyArray<[Section, string]> = [
  ['SqlSettings', 'DriverName'],
  ['SqlSettings', 'DataSource'],
  ['SqlSettings', 'QueryTimeout'],
  ['ServiceSettings', 'ListenAddress'],
];

export const MASK = '********************************';
