import type { Channel } from '../api';
import { channelTitle, dmPartner } from '../state/selectors';
import { useStore } from '../state/use-store';
import { UserAvatar } from './Avatar';
import { HashIcon, LockIcon, MembersIcon } from './icons';

export function ChannelHeader({ channel }: { channel: Channel }) {
  const title = useStore((s) => channelTitle(channel, s));
  const meId = useStore((s) => s.me?.id ?? '');
  const count = useStore((s) => s.memberCounts[channel.id]);
  const about = channel.purpose || channel.header || '';
  const icon = channel.type === 'D' ? <UserAvatar userId={dmPartner(channel, meId)} size={22} /> : channel.type === 'P' ? <LockIcon size={18} /> : <HashIcon size={18} />;
  return (
    <header class="channel-header">
      <div class="channel-header__main">
        <h1 class="channel-header__title">
          <span class="channel-header__icon">{icon}</span>
          <span>{title}</span>
        </h1>
        {about && (
          <p class="channel-header__purpose" title={about}>
            {about}
          </p>
        )}
      </div>
      {count && channel.type !== 'D' && (
        <div class="channel-header__members" title="Members" aria-label={`${count.count}${count.more ? '+' : ''} members`} role="img">
          <MembersIcon size={18} />
          <span aria-hidden="true">
            {count.count}
            {count.more ? '+' : ''}
          </span>
        </div>
      )}
    </header>
  );
}
