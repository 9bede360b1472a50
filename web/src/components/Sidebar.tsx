import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Channel, Team } from '../api';
import { ensureIntegrationRights } from '../actions/integrations';
import { logout } from '../actions/session';
import { integrationsPath } from '../integrations-routes';
import { dmPath, followLink } from '../links';
import { channelPath, navigate } from '../router';
import { channelTitle, dmPartner, isSystemAdmin, isUnread } from '../state/selectors';
import { isMuted } from '../notify';
import { useStore } from '../state/use-store';
import { DropdownMenu } from './DropdownMenu';
import { InviteDialog } from './InviteDialog';
import { DndCustomDialog, STATUS_NAMES, StatusAvatar, StatusMenuItems, useMyStatus } from './Status';
import { AddChannelsMenu, DmPickerButton } from './SidebarActions';
import { TeamDialogs, TeamMenuItems, type TeamDialog } from './TeamDialogs';
import { ChevronDownIcon, HashIcon, LockIcon } from './icons';

function ChannelLink({ channel, teamName }: { channel: Channel; teamName: string }) {
  const member = useStore((s) => s.members[channel.id]);
  const active = useStore((s) => s.currentChannelId === channel.id);
  const title = useStore((s) => channelTitle(channel, s));
  const meId = useStore((s) => s.me?.id ?? '');
  const partner = useStore((s) => (channel.type === 'D' ? s.users[dmPartner(channel, meId)] : undefined));
  // The open channel reads as unread only when the user marked it so (Mark as Unread).
  const manual = useStore((s) => s.unread.manual[channel.id] === true);
  const unread = isUnread(channel, member) && (!active || manual);
  const unreadCount = Math.max(0, (channel.total_msg_count ?? 0) - (member?.msg_count ?? 0));
  // Every direct message counts as a mention, as in Mattermost.
  const mentions = active ? 0 : channel.type === 'D' ? unreadCount : member?.mention_count ?? 0;
  const href = channel.type === 'D' && partner ? dmPath(teamName, partner.username) : channelPath(teamName, channel.name);
  const icon = channel.type === 'D' ? <StatusAvatar userId={dmPartner(channel, meId)} size={20} /> : channel.type === 'P' ? <LockIcon size={16} /> : <HashIcon size={16} />;
  const cls = ['sidebar__item'];
  if (active) cls.push('is-active');
  if (unread) cls.push('is-unread');
  // Muted (mark_unread "mention"): dimmed and not bold; mentions still counted (notifications.css).
  if (isMuted(member)) cls.push('is-muted');
  return (
    <li>
      <a class={cls.join(' ')} href={href} aria-current={active ? 'page' : undefined} data-channel={channel.name} onClick={(e) => followLink(e, href)}>
        <span class="sidebar__icon">{icon}</span>
        <span class="sidebar__name">{title}</span>
        {mentions > 0 && (
          <span class="badge" aria-hidden="true">
            {mentions > 99 ? '99+' : mentions}
          </span>
        )}
        {(unread || mentions > 0) && <span class="sr-only">{`, unread${mentions > 0 ? `, ${mentions} ${mentions === 1 ? 'mention' : 'mentions'}` : ''}`}</span>}
      </a>
    </li>
  );
}

function Section({ title, channels, teamName, action }: { title: string; channels: Channel[]; teamName: string; action?: ComponentChildren }) {
  const id = `section-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <section class="sidebar__section" aria-labelledby={id}>
      <div class="sidebar__section-head">
        <h2 id={id} class="sidebar__section-title">{title}</h2>
        {action}
      </div>
      <ul class="sidebar__list">
        {channels.map((c) => (
          <ChannelLink key={c.id} channel={c} teamName={teamName} />
        ))}
      </ul>
    </section>
  );
}

function UserMenu() {
  const me = useStore((s) => s.me);
  const { status } = useMyStatus();
  const [customDnd, setCustomDnd] = useState(false);
  const [statusError, setStatusError] = useState('');
  if (!me) return null;
  return (
    <>
    <DropdownMenu
      class="user-menu"
      buttonClass="user-menu__button"
      menuLabel="Account"
      button={
        <>
          <StatusAvatar userId={me.id} size={24} />
          <span class="user-menu__name">{me.username}</span>
          <span class="sr-only">{`${status ? `, ${STATUS_NAMES[status]}` : ''}, account menu`}</span>
          <ChevronDownIcon size={16} />
        </>
      }
    >
      {(close) => (
        <>
          <div class="menu__label" role="presentation">
            Signed in as <strong>@{me.username}</strong>
          </div>
          <StatusMenuItems close={close} onCustomDnd={() => setCustomDnd(true)} onError={setStatusError} />
          <button
            type="button"
            role="menuitem"
            class="menu__item"
            onClick={() => {
              close();
              navigate('/settings/profile');
            }}
          >
            Account settings
          </button>
          <button type="button" role="menuitem" class="menu__item" onClick={() => void logout()}>
            Log out
          </button>
        </>
      )}
    </DropdownMenu>
    {customDnd && <DndCustomDialog onClose={() => setCustomDnd(false)} />}
    {statusError && (
      <p class="form-error status-error" role="alert">
        {statusError}
      </p>
    )}
    </>
  );
}

/** The team's name, as a menu: invite people (the team's invite link), create another team. */
function TeamMenu({ team }: { team: Team }) {
  const [inviting, setInviting] = useState(false);
  const [teamDialog, setTeamDialog] = useState<TeamDialog>();
  const admin = useStore(isSystemAdmin);
  // Integrations: for the team's admins and system admins only (actions/integrations.ts asks the server once).
  const integrations = useStore((s) => s.integrations.canManage[team.id] === true);
  useEffect(() => {
    void ensureIntegrationRights(team.id);
  }, [team.id]);
  return (
    <>
      <DropdownMenu
        class="team-menu"
        buttonClass="sidebar__team team-menu__button"
        menuLabel="Team"
        button={
          <>
            <span class="team-menu__name" title={team.display_name}>
              {team.display_name}
            </span>
            <span class="sr-only">, team menu</span>
            <ChevronDownIcon size={16} />
          </>
        }
      >
        {(close) => (
          <>
            <button
              type="button"
              role="menuitem"
              class="menu__item"
              onClick={() => {
                close();
                setInviting(true);
              }}
            >
              Invite people
            </button>
            <button
              type="button"
              role="menuitem"
              class="menu__item"
              onClick={() => {
                close();
                navigate('/create_team');
              }}
            >
              Create a team
            </button>
            <TeamMenuItems team={team} close={close} open={setTeamDialog} />
            {integrations && (
              <button
                type="button"
                role="menuitem"
                class="menu__item"
                onClick={() => {
                  close();
                  navigate(integrationsPath(team.name, { page: 'home' }));
                }}
              >
                Integrations
              </button>
            )}
            {admin && (
              <button
                type="button"
                role="menuitem"
                class="menu__item"
                onClick={() => {
                  close();
                  navigate('/admin_console');
                }}
              >
                System Console
              </button>
            )}
          </>
        )}
      </DropdownMenu>
      {inviting && <InviteDialog team={team} onClose={() => setInviting(false)} />}
      <TeamDialogs team={team} dialog={teamDialog} onClose={() => setTeamDialog(undefined)} />
    </>
  );
}

export function Sidebar() {
  const teamId = useStore((s) => s.currentTeamId);
  const team = useStore((s) => s.teams.find((t) => t.id === s.currentTeamId));
  const ids = useStore((s) => (teamId ? s.teamChannels[teamId] : undefined));
  const channels = useStore((s) => s.channels);
  // Direct channels are named and sorted by the other user's name: re-render when users arrive.
  const users = useStore((s) => s.users);
  const me = useStore((s) => s.me);
  const list = (ids ?? []).map((id) => channels[id]).filter((c): c is Channel => !!c && c.delete_at === 0);
  const byTitle = (a: Channel, b: Channel) => channelTitle(a, { users, me }).localeCompare(channelTitle(b, { users, me }));
  const open = list.filter((c) => c.type === 'O' || c.type === 'P').sort(byTitle);
  const direct = list.filter((c) => c.type === 'D' || c.type === 'G').sort(byTitle);
  return (
    <nav class="sidebar" aria-label="Channels">
      <div class="sidebar__header">
        {team ? <TeamMenu team={team} /> : <div class="sidebar__team">Parley</div>}
        <UserMenu />
      </div>
      <div class="sidebar__scroll">
        {team && <Section title="Channels" channels={open} teamName={team.name} action={<AddChannelsMenu teamId={team.id} teamName={team.name} />} />}
        {team && <Section title="Direct messages" channels={direct} teamName={team.name} action={<DmPickerButton teamId={team.id} />} />}
      </div>
    </nav>
  );
}
