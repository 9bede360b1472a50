import { useState } from 'preact/hooks';
import { BrowseChannels } from './BrowseChannels';
import { DmPicker } from './DmPicker';
import { DropdownMenu } from './DropdownMenu';
import { NewChannelDialog } from './NewChannelDialog';
import { PlusIcon } from './icons';
import '../styles/channels.css';

/** The "+" beside the sidebar's Channels: browse channels (public and archived), create a channel. */
export function AddChannelsMenu({ teamId, teamName }: { teamId: string; teamName: string }) {
  const [open, setOpen] = useState<'browse' | 'create'>();
  return (
    <>
      <DropdownMenu
        class="sidebar-add"
        buttonClass="sidebar-add__button"
        menuLabel="Add channels"
        button={
          <>
            <PlusIcon size={16} />
            <span class="sr-only">Add channels</span>
          </>
        }
      >
        {(close) => (
          <>
            <button type="button" role="menuitem" class="menu__item" onClick={() => (close(), setOpen('browse'))}>
              Browse channels
            </button>
            <button type="button" role="menuitem" class="menu__item" onClick={() => (close(), setOpen('create'))}>
              Create new channel
            </button>
          </>
        )}
      </DropdownMenu>
      {open === 'browse' && <BrowseChannels teamId={teamId} onClose={() => setOpen(undefined)} onCreate={() => setOpen('create')} />}
      {open === 'create' && <NewChannelDialog teamId={teamId} teamName={teamName} onClose={() => setOpen(undefined)} />}
    </>
  );
}

/** The "+" beside the sidebar's Direct messages: the people picker. */
export function DmPickerButton({ teamId }: { teamId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" class="sidebar-add__button" aria-label="Write a direct message" onClick={() => setOpen(true)}>
        <PlusIcon size={16} />
      </button>
      {open && <DmPicker teamId={teamId} onClose={() => setOpen(false)} />}
    </>
  );
}
