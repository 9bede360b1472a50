import type { Channel, ChannelMember, Team } from '../api-types';
import type { AppState } from './app-state';

/** Derived values of the state: plain functions of it, shared by components and actions. */

/** The other member of a direct channel (`<idA>__<idB>`); the viewer's own id for a self-DM. */
export function dmPartner(channel: Channel, meId: string): string {
  const [a, b] = channel.name.split('__');
  return a === meId ? b : a;
}

/** A channel's name as shown: a direct channel is named for the other member. */
export function channelTitle(channel: Channel, s: Pick<AppState, 'users' | 'me'>): string {
  if (channel.type === 'D') {
    const other = s.users[dmPartner(channel, s.me?.id ?? '')];
    return other ? other.username : 'Direct message';
  }
  return channel.display_name || channel.name;
}

export function isUnread(channel: Channel, member: ChannelMember | undefined): boolean {
  return !!member && (channel.total_msg_count ?? 0) > member.msg_count;
}

/** A membership with everything in the channel read. */
export function readMember(member: ChannelMember, channel: Channel | undefined): ChannelMember {
  return { ...member, msg_count: Math.max(member.msg_count, channel?.total_msg_count ?? 0), mention_count: 0 };
}

export function sortTeams(teams: Team[]): Team[] {
  return [...teams].sort((a, b) => a.display_name.localeCompare(b.display_name));
}

export function isSystemAdmin(s: AppState): boolean {
  return (s.me?.roles ?? '').split(' ').includes('system_admin');
}

/**
 * Whether a visitor may create an account without an invite link, as the server decides it: the first account
 * always; after it, only with user creation on and an open server.
 */
export function canSignUp(config: AppState['config']): boolean {
  if (config.NoAccounts === 'true') return true;
  return config.EnableUserCreation === 'true' && config.EnableOpenServer === 'true';
}
