import { createPortal } from 'preact/compat';
import { useState } from 'preact/hooks';
import type { Channel } from '../api';
import { ChannelManageDialogs, ChannelManageItems, type ChannelDialog } from './ChannelHeaderActions';
import { ChannelNotifyDialog } from './ChannelNotifyDialog';
import { DropdownMenu } from './DropdownMenu';
import { ChevronDownIcon } from './icons';

/** The channel's name in its header, as a menu (as Mattermost's): the channel's notification preferences. */
export function ChannelMenu({ channel, title }: { channel: Channel; title: string }) {
  const [editing, setEditing] = useState(false);
  const [manage, setManage] = useState<ChannelDialog>();
  return (
    <>
      <DropdownMenu
        class="channel-menu"
        buttonClass="channel-menu__button"
        menuLabel="Channel"
        button={
          <>
            <span class="channel-menu__name">{title}</span>
            <span class="sr-only">, channel menu</span>
            <ChevronDownIcon size={16} />
          </>
        }
      >
        {(close) => (
          <>
            <ChannelManageItems channel={channel} close={close} open={setManage} />
            <button
              type="button"
              role="menuitem"
              class="menu__item"
              onClick={() => {
                close();
                setEditing(true);
              }}
            >
              Notification preferences
            </button>
          </>
        )}
      </DropdownMenu>
      {/* The menu sits in the header's h1: its dialogs are rendered at the body's end, outside the heading. */}
      {createPortal(
        <>
          {editing && <ChannelNotifyDialog channel={channel} onClose={() => setEditing(false)} />}
          <ChannelManageDialogs channel={channel} dialog={manage} onClose={() => setManage(undefined)} />
        </>,
        document.body,
      )}
    </>
  );
}
