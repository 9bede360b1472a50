import type { Channel } from '../api';
import { channelTitle, dmPartner } from '../state/selectors';
import { useStore } from '../state/use-store';
import { UserAvatar } from './Avatar';
import { ChannelMembersButton } from './ChannelHeaderActions';
import { ChannelMenu } from './ChannelMenu';
import { DrawerButton } from './Drawer';
import { HashIcon, LockIcon } from './icons';
import { SearchBox } from './Search';
import { PinnedButton } from './PinnedPanel';

export function ChannelHeader({ channel }: { channel: Channel }) {
  const title = useStore((s) => channelTitle(channel, s));
  const meId = useStore((s) => s.me?.id ?? '');
  // The header, as Mattermost shows it; the purpose when there is no header.
  const about = channel.header || channel.purpose || '';
  const icon = channel.type === 'D' ? <UserAvatar userId={dmPartner(channel, meId)} size={22} /> : channel.type === 'P' ? <LockIcon size={18} /> : <HashIcon size={18} />;
  return (
    <header class="channel-header">
      <DrawerButton />
      <div class="channel-header__main">
        <h1 class="channel-header__title">
          <span class="channel-header__icon">{icon}</span>
          <ChannelMenu channel={channel} title={title} />
        </h1>
        {about && (
          <p class="channel-header__purpose" title={about}>
            {about}
          </p>
        )}
      </div>
      <PinnedButton channel={channel} />
      <SearchBox />
      <ChannelMembersButton channel={channel} />
    </header>
  );
}
