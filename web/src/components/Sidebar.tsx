import { useEffect, useRef, useState } from 'preact/hooks';
import type { Channel } from '../api';
import { channelPath, navigate } from '../router';
import { channelTitle, dmPartner, isUnread, logout, useStore } from '../store';
import { UserAvatar } from './Avatar';
import { ChevronDownIcon, HashIcon, LockIcon } from './icons';

/** Follows a same-page link without a reload; modified clicks (new tab, …) are left to the browser. */
export function followLink(e: MouseEvent, href: string): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(href);
}

export function dmPath(team: string, username: string): string {
  return `/${encodeURIComponent(team)}/messages/@${encodeURIComponent(username)}`;
}

function ChannelLink({ channel, teamName }: { channel: Channel; teamName: string }) {
  const member = useStore((s) => s.members[channel.id]);
  const active = useStore((s) => s.currentChannelId === channel.id);
  const title = useStore((s) => channelTitle(channel, s));
  const meId = useStore((s) => s.me?.id ?? '');
  const partner = useStore((s) => (channel.type === 'D' ? s.users[dmPartner(channel, meId)] : undefined));
  const unread = isUnread(channel, member) && !active;
  const unreadCount = Math.max(0, (channel.total_msg_count ?? 0) - (member?.msg_count ?? 0));
  // Every direct message counts as a mention, as in Mattermost.
  const mentions = active ? 0 : channel.type === 'D' ? unreadCount : member?.mention_count ?? 0;
  const href = channel.type === 'D' && partner ? dmPath(teamName, partner.username) : channelPath(teamName, channel.name);
  const icon = channel.type === 'D' ? <UserAvatar userId={dmPartner(channel, meId)} size={20} /> : channel.type === 'P' ? <LockIcon size={16} /> : <HashIcon size={16} />;
  const cls = ['sidebar__item'];
  if (active) cls.push('is-active');
  if (unread) cls.push('is-unread');
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

function Section({ title, channels, teamName }: { title: string; channels: Channel[]; teamName: string }) {
  const id = `section-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <section class="sidebar__section" aria-labelledby={id}>
      <h2 id={id} class="sidebar__section-title">{title}</h2>
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
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    const onDoc = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', onDoc);
    ref.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    return () => document.removeEventListener('mousedown', onDoc);
  }, [open]);
  if (!me) return null;
  return (
    <div class="user-menu" ref={ref}>
      <button
        ref={buttonRef}
        type="button"
        class="user-menu__button"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <UserAvatar userId={me.id} size={24} />
        <span class="user-menu__name">{me.username}</span>
        <span class="sr-only">, account menu</span>
        <ChevronDownIcon size={16} />
      </button>
      {open && (
        <div
          class="menu"
          role="menu"
          aria-label="Account"
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              setOpen(false);
              buttonRef.current?.focus();
            }
          }}
        >
          <div class="menu__label" role="presentation">
            Signed in as <strong>@{me.username}</strong>
          </div>
          <button type="button" role="menuitem" class="menu__item" onClick={() => void logout()}>
            Log out
          </button>
        </div>
      )}
    </div>
  );
}

export function Sidebar() {
  const teamId = useStore((s) => s.currentTeamId);
  const team = useStore((s) => s.teams.find((t) => t.id === s.currentTeamId));
  const ids = useStore((s) => (teamId ? s.teamChannels[teamId] : undefined));
  const channels = useStore((s) => s.channels);
  // Direct channels are named and sorted by the other user's name: re-render when users arrive.
  useStore((s) => s.users);
  const list = (ids ?? []).map((id) => channels[id]).filter((c): c is Channel => !!c && c.delete_at === 0);
  const byTitle = (a: Channel, b: Channel) => channelTitle(a).localeCompare(channelTitle(b));
  const open = list.filter((c) => c.type === 'O' || c.type === 'P').sort(byTitle);
  const direct = list.filter((c) => c.type === 'D' || c.type === 'G').sort(byTitle);
  return (
    <nav class="sidebar" aria-label="Channels">
      <div class="sidebar__header">
        <div class="sidebar__team" title={team?.display_name}>{team?.display_name ?? 'Parley'}</div>
        <UserMenu />
      </div>
      <div class="sidebar__scroll">
        {team && <Section title="Channels" channels={open} teamName={team.name} />}
        {team && direct.length > 0 && <Section title="Direct messages" channels={direct} teamName={team.name} />}
      </div>
    </nav>
  );
}
