// The reads behind notify-rules.ts: a post's channel members with their settings and status, who started or took part
// in its thread (threads not collapsed) or follows it (collapsed), read only for posts that can notify anyone. Most posts name nobody: for those nothing is read
// (a direct or group message, an @-mention, a word that is someone's mention key or first name, or a reply where
// `comments` may apply is what makes a post worth the members query).

import type { Channel } from '../model';
import type { StoreSet, Stores } from '../store';
import type { NotifyAudienceRow } from '../store/channels-store';
import type { Deps } from './deps';
import {
  type NotifyConfig,
  type NotifyDecision,
  type NotifyMember,
  type NotifyPost,
  type ScannedPost,
  commentsApply,
  decideNotifications,
  effectiveStatus,
  hasAtMention,
  mentionKeysOf,
  scanPost,
} from './notify-rules';

/** How often the keyword pre-check re-reads who has keywords (changes made by this process apply at once). */
const KEYWORDS_REFRESH_MS = 10_000;
/** Users with keywords held in memory at most. */
const KEYWORD_HOLDERS_MAX = 200_000;

interface Holder {
  keys: string[];
  firstName: string;
  comments: boolean;
}

/**
 * Which words are someone's mention key or first name, and whether anyone has `comments` on: an in-memory pre-check
 * so a post that can mention nobody costs no query. A false "maybe" only costs the members query; the decision itself
 * always reads the members' current settings. Changes made by another process are seen within KEYWORDS_REFRESH_MS.
 */
export class KeywordIndex {
  private readonly holders = new Map<string, Holder>();
  private keys = new Set<string>();
  private firstNames = new Set<string>();
  private commenters = 0;
  private loadedAt = -Infinity;
  private loading?: Promise<void>;

  constructor(private readonly stores: Stores) {}

  /** A user's notify_props or first name changed in this process. */
  update(user: { id: string; first_name: string; notify_props: Record<string, string>; delete_at?: number }): void {
    const holder = user.delete_at ? undefined : holderOf(user);
    if (holder) this.holders.set(user.id, holder);
    else if (!this.holders.delete(user.id)) return;
    this.rebuild();
  }

  /**
   * Whether the words may hold someone's keyword, or (for a reply) someone may be told by `comments`. Never reads:
   * it runs inside the post's transaction. Before the first load everything is a "maybe".
   */
  mayNotify(scan: ScannedPost, reply: boolean, comments: boolean): boolean {
    if (this.loadedAt === -Infinity) return true;
    if (reply && comments && this.commenters > 0) return true;
    // Sizes first: the post's words are split only when asked for (scanPost), and with no keys anywhere they never are.
    return (this.keys.size > 0 && intersects(this.keys, scan.words.lower)) || (this.firstNames.size > 0 && intersects(this.firstNames, scan.words.exact));
  }

  /**
   * Re-reads who has keywords when the last read is older than KEYWORDS_REFRESH_MS: waited for the first time only,
   * later in the background while the old answer serves. Called outside any transaction (before a post's commit).
   */
  async refresh(): Promise<void> {
    if (Date.now() - this.loadedAt <= KEYWORDS_REFRESH_MS) return;
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    if (this.loadedAt === -Infinity) await this.loading;
    else this.loading.catch(() => undefined);
  }

  private async load(): Promise<void> {
    const rows = await this.stores.users.notifyKeywordHolders(KEYWORD_HOLDERS_MAX);
    this.holders.clear();
    for (const u of rows) {
      const h = holderOf(u);
      if (h) this.holders.set(u.id, h);
    }
    this.rebuild();
    this.loadedAt = Date.now();
  }

  private rebuild(): void {
    const keys = new Set<string>();
    const firstNames = new Set<string>();
    let commenters = 0;
    for (const h of this.holders.values()) {
      for (const k of h.keys) keys.add(k);
      if (h.firstName) firstNames.add(h.firstName);
      if (h.comments) commenters++;
    }
    this.keys = keys;
    this.firstNames = firstNames;
    this.commenters = commenters;
  }
}

/** Whether two sets share an element, walking the smaller one. */
function intersects(a: Set<string>, b: Set<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const x of small) if (large.has(x)) return true;
  return false;
}

function holderOf(u: { first_name: string; notify_props: Record<string, string> }): Holder | undefined {
  const keys = mentionKeysOf(u.notify_props);
  const firstName = u.notify_props.first_name === 'true' ? u.first_name : '';
  const comments = u.notify_props.comments === 'any' || u.notify_props.comments === 'root';
  return keys.length > 0 || firstName || comments ? { keys, firstName, comments } : undefined;
}

const indexes = new WeakMap<Stores, KeywordIndex>();

/** The one keyword index of a set of stores (the post writer reads it; PatchUser updates it). */
export function keywordIndexFor(stores: Stores): KeywordIndex {
  let index = indexes.get(stores);
  if (!index) {
    index = new KeywordIndex(stores);
    indexes.set(stores, index);
  }
  return index;
}

export function notifyConfigOf(deps: Deps): NotifyConfig {
  const config = deps.config.get();
  return {
    maxNotificationsPerChannel: config.TeamSettings.MaxNotificationsPerChannel,
    sendEmailNotifications: config.EmailSettings?.SendEmailNotifications === true,
    collapsedThreads: config.ServiceSettings.CollapsedThreads,
  };
}

/**
 * Works out notification decisions for posts, reading through `db` (a transaction's stores or the pool's) and
 * reading each channel's members and each thread's participants at most once.
 */
export class PostNotifier {
  private readonly audiences = new Map<string, Promise<NotifyAudienceRow[]>>();
  private readonly threads = new Map<string, Promise<Map<string, 'root' | 'replied'>>>();
  private readonly followed = new Map<string, Promise<ReadonlySet<string>>>();
  /** Each post's texts scanned once, however often it is decided (a collapsed-threads reply: twice). */
  private readonly scans = new WeakMap<NotifyPost, ScannedPost>();
  private readonly config: NotifyConfig;
  private readonly now: number;
  private readonly awayAfterMs: number;

  constructor(
    private readonly db: StoreSet,
    private readonly deps: Deps,
  ) {
    this.config = notifyConfigOf(deps);
    this.now = deps.now();
    this.awayAfterMs = deps.config.get().TeamSettings.UserStatusAwayTimeout * 1000;
  }

  /** Threads collapsed (ServiceSettings.CollapsedThreads): replies are told to their thread's followers. */
  get threadsCollapsed(): boolean {
    return !commentsApply(this.config);
  }

  /**
   * The decision for a post, or undefined when it can notify nobody (nothing was read). `followers`: a reply's thread
   * followers (followersOf) when threads are collapsed; without them the reply is decided as followed by nobody.
   */
  async decide(post: NotifyPost, channel: Channel, followers?: ReadonlySet<string>): Promise<NotifyDecision | undefined> {
    let scan = this.scans.get(post);
    if (!scan) this.scans.set(post, (scan = scanPost(post)));
    const reply = post.root_id !== '';
    const comments = reply && commentsApply(this.config) && channel.type !== 'D' && channel.type !== 'G';
    const worthReading =
      channel.type === 'D' ||
      channel.type === 'G' ||
      hasAtMention(scan.keys) ||
      keywordIndexFor(this.deps.stores).mayNotify(scan, reply, comments);
    if (!worthReading) {
      // No member can be mentioned: the followers are still told (no members read, no desktop decided here).
      if (!followers || followers.size === 0) return undefined;
      return decideNotifications(post, { id: channel.id, type: channel.type, memberCount: 0 }, [], this.config, { scan, followers });
    }
    const rows = await this.audience(channel.id);
    const roles = comments ? await this.threadRoles(post.root_id) : undefined;
    const members: NotifyMember[] = rows.map((r) => ({
      userId: r.userId,
      username: r.username,
      firstName: r.firstName,
      isBot: r.isBot,
      notifyProps: r.notifyProps,
      channelNotifyProps: r.channelNotifyProps,
      status: effectiveStatus(r.stored, r.lastActivityAt, this.now, this.awayAfterMs),
      threadRole: roles?.get(r.userId),
    }));
    return decideNotifications(post, { id: channel.id, type: channel.type, memberCount: rows.length }, members, this.config, { scan, followers });
  }

  /**
   * Who follows a thread, read once per thread by this notifier: the post writer asks after the transaction's thread
   * writes, so a reply's own followers (the root's author on a first reply, whoever it mentions) are among them.
   */
  followersOf(rootId: string): Promise<ReadonlySet<string>> {
    let ids = this.followed.get(rootId);
    if (!ids) {
      ids = this.db.threads.followers(rootId).then((rows) => new Set(rows.map((r) => r.user_id)));
      this.followed.set(rootId, ids);
    }
    return ids;
  }

  /** The users a post mentions (mention counts and `posted`), [] when it can mention nobody. */
  async mentioned(post: NotifyPost, channel: Channel): Promise<string[]> {
    return (await this.decide(post, channel))?.mentioned ?? [];
  }

  private audience(channelId: string): Promise<NotifyAudienceRow[]> {
    let rows = this.audiences.get(channelId);
    if (!rows) {
      rows = this.db.channels.notifyAudience(channelId);
      this.audiences.set(channelId, rows);
    }
    return rows;
  }

  private threadRoles(rootId: string): Promise<Map<string, 'root' | 'replied'>> {
    let roles = this.threads.get(rootId);
    if (!roles) {
      roles = (async () => {
        const out = new Map<string, 'root' | 'replied'>();
        const thread = (await this.db.threads.getMany([rootId])).get(rootId);
        for (const id of thread?.participants ?? []) out.set(id, 'replied');
        const [root] = await this.db.posts.getMany([rootId]);
        // A webhook's root post was not "started" by the hook's creator.
        if (root && root.props.from_webhook !== 'true') out.set(root.user_id, 'root');
        return out;
      })();
      this.threads.set(rootId, roles);
    }
    return roles;
  }
}
