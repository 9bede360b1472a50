import type { Stores } from '../store';
import type { Channel, IncomingWebhook, UserRecord } from '../model';

const MAX_ENTRIES = 10000;

/** A size-bounded map that forgets its oldest entries first. */
class BoundedMap<V> {
  private readonly map = new Map<string, V>();

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  set(key: string, value: V): void {
    if (this.map.size >= MAX_ENTRIES) this.map.delete(this.map.keys().next().value as string);
    this.map.set(key, value);
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }
}

/**
 * The webhook hot path's cache of hooks, their creators and target channels. Entries are never trusted blindly:
 * the post's write transaction compares their versions with the database (WebhooksStore.probe) and the caller
 * retries uncached on any difference, so changes made by any process take effect on the very next request.
 */
export class WebhookCache {
  private readonly hooks = new BoundedMap<IncomingWebhook>();
  private readonly channels = new BoundedMap<Channel>();
  private readonly channelIds = new BoundedMap<string>();
  private readonly users = new BoundedMap<UserRecord>();
  /** Memberships known to exist ("channel/user"); absent ones are always read, so a new member is seen at once. */
  private readonly members = new BoundedMap<true>();

  constructor(private readonly stores: Stores) {}

  /** The cached hook, without reading the database: lets a caller answer at once when it is there. */
  cachedHook(id: string): IncomingWebhook | undefined {
    return this.hooks.get(id);
  }

  async hook(id: string, fresh: boolean): Promise<IncomingWebhook | undefined> {
    const cached = fresh ? undefined : this.hooks.get(id);
    if (cached) return cached;
    const hook = await this.stores.webhooks.get(id);
    if (hook) this.hooks.set(id, hook);
    else this.hooks.delete(id);
    return hook;
  }

  async channel(id: string, fresh: boolean): Promise<Channel | undefined> {
    const cached = fresh ? undefined : this.channels.get(id);
    if (cached) return cached;
    const channel = await this.stores.channels.get(id);
    if (channel) this.channels.set(id, channel);
    return channel;
  }

  async channelByName(teamId: string, name: string, fresh: boolean): Promise<Channel | undefined> {
    const key = `${teamId}/${name}`;
    const id = fresh ? undefined : this.channelIds.get(key);
    if (id) {
      const cached = this.channels.get(id);
      if (cached) return cached;
    }
    const channel = await this.stores.channels.getByName(teamId, name, false);
    if (channel) {
      this.channelIds.set(key, channel.id);
      this.channels.set(channel.id, channel);
    }
    return channel;
  }

  async user(id: string, fresh: boolean): Promise<UserRecord | undefined> {
    const cached = fresh ? undefined : this.users.get(id);
    if (cached) return cached;
    const user = await this.stores.users.get(id);
    if (user) this.users.set(id, user);
    return user;
  }

  async isMember(channelId: string, userId: string, fresh: boolean): Promise<boolean> {
    const key = `${channelId}/${userId}`;
    if (!fresh && this.members.get(key)) return true;
    const member = (await this.stores.channels.getMember(channelId, userId)) !== undefined;
    if (member) this.members.set(key, true);
    else this.members.delete(key);
    return member;
  }

  /** Drops what a failed freshness check may have found stale; the next lookups read the database. */
  forgetHook(id: string): void {
    const hook = this.hooks.get(id);
    this.hooks.delete(id);
    if (hook) {
      this.channels.delete(hook.channel_id);
      this.users.delete(hook.user_id);
    }
    this.channelIds.clear();
    this.members.clear();
  }
}
