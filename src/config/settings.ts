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
    MaximumLoginAttempts: number;
    /** Parley's own: minutes the first lock after MaximumLoginAttempts failures lasts; each lock in a row doubles it (at most 24 h). */
    LoginLockoutMinutes: number;
    SessionLengthWebInHours: number;
    ExperimentalStrictCSRFEnforcement: boolean;
    /** Different emoji one post may carry (Mattermost's default 50; values above 500 count as 500). */
    UniqueEmojiReactionLimitPerPost: number;
    /**
     * Collapsed reply threads (Mattermost's values): `always_on` (the apps show replies in the Threads view only),
     * `default_on` / `default_off` (users choose, starting on or off), `disabled`. Default `always_on`, as
     * Mattermost: channel pages asked with collapsedThreads=true hold root posts only, each with its thread.
     */
    CollapsedThreads: 'disabled' | 'default_on' | 'default_off' | 'always_on';
    /** Whether outgoing webhooks may be created and fire (default true, as Mattermost). */
    EnableOutgoingWebhooks: boolean;
    /** Whether slash commands run (built-in and custom) and custom ones may be managed (default true). */
    EnableCommands: boolean;
    /** Seconds an outgoing webhook, slash command or interactive action call may take (default 30). */
    OutgoingIntegrationRequestsTimeout: number;
    /**
     * Space-separated hostnames, IPs and CIDRs that outgoing integration calls may reach although they are loopback,
     * private, link-local or the server's own (default "": none). Hostnames match the URL's host exactly; IPs and
     * CIDRs match the address the host resolves to.
     */
    AllowedUntrustedInternalConnections: string;
    /** Whether bot accounts may be created (default false, as Mattermost). */
    EnableBotAccountCreation: boolean;
  };
  TeamSettings: {
    /** The name the web client shows (page titles, the login page, emails' sender name when FeedbackName is empty); at most 30 characters. */
    SiteName: string;
    EnableOpenServer: boolean;
    EnableUserCreation: boolean;
    MaxNotificationsPerChannel: number;
    /** Seconds without activity after which an online user shows as away (Mattermost's default: 300). */
    UserStatusAwayTimeout: number;
  };
  WebSocketSettings: {
    /** How long a dropped connection can be resumed with its connection_id and sequence_number. */
    ReplayWindowSeconds: number;
    /** Events kept per connection for that resume (Mattermost keeps 128). */
    ReplayBufferSize: number;
    /** Parley's own: characters of those events kept per connection (the oldest go first), so large events cannot pile up. */
    ReplayBufferBytes: number;
    /** Parley's own: connections one user may hold per process, live or waiting to resume; past it the oldest give way. */
    MaxConnectionsPerUser: number;
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
  RateLimitSettings: {
    Enable: boolean;
    PerSec: number;
    MaxBurst: number;
    MemoryStoreSize: number;
    VaryByRemoteAddr: boolean;
    VaryByUser: boolean;
    VaryByHeader: string;
    /**
     * Parley's own: how many proxies in front of the server append to X-Forwarded-For. With VaryByHeader
     * X-Forwarded-For the key is the entry this many from the right (the client's address as the first trusted proxy
     * saw it); entries further left are the client's to choose.
     */
    TrustedProxyHops: number;
    /** Parley's own: posts per second per incoming webhook (0: no limit). */
    WebhookPerSec: number;
    WebhookMaxBurst: number;
  };
  FileSettings: {
    /** Off: uploads are refused (403); stored files stay readable. */
    EnableFileAttachments: boolean;
    /** Where files are stored: 'local' (a directory) is the only driver; read at start-up. */
    DriverName: string;
    /** The local driver's directory; read at start-up. */
    Directory: string;
    /** Largest file accepted, in bytes (Mattermost's default: 100 MB). */
    MaxFileSize: number;
    /**
     * Parley's own: bytes of files one user may have stored (live files, attached or not, and deleted ones not yet
     * removed); 0: no limit. Total rather than per day: it bounds the disk a user can take, not only its growth.
     */
    MaxUserStorageBytes: number;
    /** Parley's own: hours an upload attached to no post is kept before it is removed, record and bytes (0: kept). */
    UnattachedRetentionHours: number;
    /** Parley's own: hours the bytes of a deleted file (a deleted post's) are kept before they are removed (0: kept). */
    DeletedRetentionHours: number;
  };
  EmailSettings: {
    /** Whether mentioned (or DMed) users who are away or offline get an email (default false). */
    SendEmailNotifications: boolean;
    SMTPServer: string;
    /** A string, as Mattermost's. */
    SMTPPort: string;
    /** '' (none), 'TLS' (TLS from the start) or 'STARTTLS'. */
    ConnectionSecurity: '' | 'TLS' | 'STARTTLS';
    SMTPUsername: string;
    /** Never returned by GetConfig (masked). */
    SMTPPassword: string;
    /** The From name and address of notification emails. */
    FeedbackName: string;
    FeedbackEmail: string;
    /** Collect each user's notifications and send one email per interval (the user's email_interval preference). */
    EnableEmailBatching: boolean;
    /** Seconds between batch runs (default 30). */
    EmailBatchingInterval: number;
    /** 'full' (the message) or 'generic' (only who wrote where). */
    EmailNotificationContentsType: 'full' | 'generic';
  };
  ClusterSettings: {
    /** Several processes share real-time events (and rate limits) through Redis. */
    Enable: boolean;
    RedisURL: string;
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
      MaximumLoginAttempts: 10,
      LoginLockoutMinutes: 15,
      SessionLengthWebInHours: 720,
      ExperimentalStrictCSRFEnforcement: false,
      UniqueEmojiReactionLimitPerPost: 50,
      CollapsedThreads: 'always_on',
      EnableOutgoingWebhooks: true,
      EnableCommands: true,
      OutgoingIntegrationRequestsTimeout: 30,
      AllowedUntrustedInternalConnections: '',
      EnableBotAccountCreation: false,
    },
    TeamSettings: {
      SiteName: 'Parley',
      EnableOpenServer: false,
      EnableUserCreation: true,
      MaxNotificationsPerChannel: 1000,
      UserStatusAwayTimeout: 300,
    },
    WebSocketSettings: {
      ReplayWindowSeconds: 300,
      ReplayBufferSize: 128,
      ReplayBufferBytes: 1048576,
      MaxConnectionsPerUser: 16,
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
    RateLimitSettings: {
      Enable: false,
      PerSec: 10,
      MaxBurst: 100,
      MemoryStoreSize: 10000,
      VaryByRemoteAddr: true,
      VaryByUser: false,
      VaryByHeader: '',
      TrustedProxyHops: 1,
      WebhookPerSec: 10,
      WebhookMaxBurst: 100,
    },
    FileSettings: {
      EnableFileAttachments: true,
      DriverName: 'local',
      Directory: './data/files',
      MaxFileSize: 104857600,
      MaxUserStorageBytes: 10737418240,
      UnattachedRetentionHours: 168,
      DeletedRetentionHours: 24,
    },
    EmailSettings: {
      SendEmailNotifications: false,
      SMTPServer: 'localhost',
      SMTPPort: '10025',
      ConnectionSecurity: '',
      SMTPUsername: '',
      SMTPPassword: '',
      FeedbackName: '',
      FeedbackEmail: 'test@example.com',
      EnableEmailBatching: false,
      EmailBatchingInterval: 30,
      EmailNotificationContentsType: 'full',
    },
    ClusterSettings: {
      Enable: false,
      RedisURL: '',
    },
  };
}

/** Settings that only make sense per process (how to reach the database, where to listen); never stored in it. */
export const PROCESS_LOCAL: ReadonlyArray<[Section, string]> = [
  ['SqlSettings', 'DriverName'],
  ['SqlSettings', 'DataSource'],
  ['SqlSettings', 'QueryTimeout'],
  ['ServiceSettings', 'ListenAddress'],
  ['ClusterSettings', 'Enable'],
  ['ClusterSettings', 'RedisURL'],
  ['FileSettings', 'DriverName'],
  ['FileSettings', 'Directory'],
];

export const MASK = '********************************';
