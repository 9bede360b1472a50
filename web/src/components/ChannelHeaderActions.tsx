import { useEffect, useState } from 'preact/hooks';
import type { Channel } from '../api';
import { archiveChannel, leaveChannel } from '../actions/channel-manage';
import { restoreChannel } from '../actions/channel-lifecycle';
import { ensureIntegrationRights } from '../actions/integrations';
import { isTownSquare } from '../channel-name';
import { channelTitle, isSystemAdmin } from '../state/selectors';
import { useStore } from '../state/use-store';
import { ChannelMembersDialog } from './ChannelMembersDialog';
import { ConfirmDialog } from './ConfirmDialog';
import { EditChannelTextDialog } from './EditChannelTextDialog';
import { MembersIcon } from './icons';
import { ModalDialog } from './ModalDialog';
import '../styles/channels.css';

/** What the channel menu's items of this area open; `error` says why leaving or archiving failed. */
export type ChannelDialog = 'members' | 'header' | 'purpose' | 'archive' | 'unarchive' | 'leave' | { error: string };

/**
 * The channel menu's items (ChannelMenu, the channel's name in its header): members, edit header and purpose, leave,
 * archive. A direct or group channel has none; an archived one its members, and "Unarchive channel" for those who may
 * (RestoreChannel needs manage_team: the team's admins and system admins, as ensureIntegrationRights records them);
 * town-square cannot be left or archived.
 */
export function ChannelManageItems({ channel, close, open }: { channel: Channel; close: () => void; open: (d: ChannelDialog) => void }) {
  const archived = channel.delete_at > 0;
  const mayRestore = useStore((s) => isSystemAdmin(s) || s.integrations.canManage[channel.team_id] === true);
  useEffect(() => {
    if (archived && channel.team_id) void ensureIntegrationRights(channel.team_id);
  }, [archived, channel.team_id]);
  if (channel.type !== 'O' && channel.type !== 'P') return null;
  const fixed = isTownSquare(channel);
  const item = (label: string, onClick: () => void, danger = false) => (
    <button
      type="button"
      role="menuitem"
      class={`menu__item${danger ? ' menu__item--danger' : ''}`}
      onClick={() => {
        close();
        onClick();
      }}
    >
      {label}
    </button>
  );
  // A public channel is left at once (it can be joined again); a private one asks first, as Mattermost does.
  const leave = () => (channel.type === 'P' ? open('leave') : void leaveChannel(channel.id).then((r) => !r.ok && open({ error: r.message })));
  return (
    <>
      {item(channel.type === 'P' && !archived && !fixed ? 'Manage members' : 'View members', () => open('members'))}
      {!archived && item('Edit channel header', () => open('header'))}
      {!archived && item('Edit channel purpose', () => open('purpose'))}
      {!archived && !fixed && item('Leave channel', leave, true)}
      {!archived && !fixed && item('Archive channel', () => open('archive'), true)}
      {archived && mayRestore && item('Unarchive channel', () => open('unarchive'))}
    </>
  );
}

export function ChannelManageDialogs({ channel, dialog, onClose }: { channel: Channel; dialog?: ChannelDialog; onClose: () => void }) {
  const title = useStore((s) => channelTitle(channel, s));
  const [error, setError] = useState('');
  if (!dialog) return null;
  const run = async (action: (id: string) => Promise<{ ok: true } | { ok: false; message: string }>) => {
    const result = await action(channel.id);
    if (result.ok) onClose();
    else setError(result.message);
  };
  const failure = typeof dialog === 'object' ? dialog.error : error;
  if (failure) {
    return (
      <ModalDialog
        title="Something went wrong"
        onClose={() => {
          setError('');
          onClose();
        }}
      >
        <p role="alert">{failure}</p>
        <div class="dialog__actions">
          <button
            type="button"
            class="btn btn--secondary"
            onClick={() => {
              setError('');
              onClose();
            }}
          >
            Close
          </button>
        </div>
      </ModalDialog>
    );
  }
  if (dialog === 'members') return <ChannelMembersDialog channel={channel} onClose={onClose} />;
  if (dialog === 'header' || dialog === 'purpose') return <EditChannelTextDialog channel={channel} field={dialog} onClose={onClose} />;
  if (dialog === 'leave') {
    return (
      <ConfirmDialog
        title="Leave private channel"
        body={`Are you sure you wish to leave the private channel ${title}? You must be re-invited in order to rejoin this channel in the future.`}
        confirmLabel="Leave channel"
        onConfirm={() => void run(leaveChannel)}
        onCancel={onClose}
      />
    );
  }
  if (dialog === 'unarchive') {
    return (
      <ConfirmDialog
        title="Unarchive channel"
        body={`Are you sure you wish to unarchive the ${title} channel? It takes messages again and comes back to its members' sidebars.`}
        confirmLabel="Unarchive"
        onConfirm={() => void run(restoreChannel)}
        onCancel={onClose}
      />
    );
  }
  return (
    <ConfirmDialog
      title="Archive channel"
      body={`Are you sure you wish to archive the ${title} channel? It leaves everyone's sidebar and takes no new messages; its messages stay readable under Browse channels → Archived channels.`}
      confirmLabel="Archive"
      onConfirm={() => void run(archiveChannel)}
      onCancel={onClose}
    />
  );
}

/** The header's member count, a button opening the channel's members. */
export function ChannelMembersButton({ channel }: { channel: Channel }) {
  const count = useStore((s) => s.memberCounts[channel.id]);
  const [open, setOpen] = useState(false);
  if (!count || channel.type === 'D' || channel.type === 'G') return null;
  return (
    <>
      <button type="button" class="channel-header__members" aria-label={`${count.count}${count.more ? '+' : ''} members`} onClick={() => setOpen(true)}>
        <MembersIcon size={18} />
        <span aria-hidden="true">
          {count.count}
          {count.more ? '+' : ''}
        </span>
      </button>
      {open && <ChannelMembersDialog channel={channel} onClose={() => setOpen(false)} />}
    </>
  );
}
