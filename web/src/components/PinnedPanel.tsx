import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Channel } from '../api';
import { fullDateTime, timeOf } from '../format';
import { followLink } from '../links';
import { permalinkPath } from '../routes';
import { closeRhs } from '../actions/panels';
import { openPinned, setPinned } from '../actions/pins';
import { channelTitle } from '../state/selectors';
import { useStore } from '../state/use-store';
import { PostAvatar, usePostAuthor } from './Avatar';
import { rememberOpener, returnFocus } from './focus';
import { CloseIcon, PinIcon } from './icons';
import { Markdown } from './Markdown';
import type { ClientPost } from '../post-store';
import '../styles/reactions.css';

/** The channel header's button: the pinned count, opening (or closing) the pinned list in the right-hand panel. */
export function PinnedButton({ channel }: { channel: Channel }) {
  const count = useStore((s) => s.memberCounts[channel.id]?.pinned);
  const open = useStore((s) => s.rhs?.kind === 'pinned' && s.rhs.channelId === channel.id);
  if (channel.delete_at !== 0 && !count) return null;
  const n = count ?? 0;
  return (
    <button
      type="button"
      class={`channel-header__pinned${open ? ' is-active' : ''}`}
      aria-label={`${n} pinned ${n === 1 ? 'message' : 'messages'}`}
      title="Pinned messages"
      aria-pressed={open}
      onClick={(e) => {
        if (open) return closeRhs();
        rememberOpener(e.currentTarget);
        openPinned(channel.id);
      }}
    >
      <PinIcon size={18} />
      <span aria-hidden="true">{n}</span>
    </button>
  );
}

function PinnedItem({ post, teamName }: { post: ClientPost; teamName: string }) {
  const author = usePostAuthor(post);
  const [error, setError] = useState('');
  const href = teamName ? permalinkPath(teamName, post.id) : '';
  return (
    <article class="pinned-item" aria-label={`${author}, ${timeOf(post.create_at)}`} data-post-id={post.id}>
      <div class="pinned-item__head">
        <PostAvatar post={post} size={24} />
        <strong class="pinned-item__author">{author}</strong>
        <time class="post__time" dateTime={new Date(post.create_at).toISOString()} title={fullDateTime(post.create_at)}>
          {timeOf(post.create_at)}
        </time>
        <span class="pinned-item__actions">
          {href && (
            <a href={href} class="link-button" onClick={(e) => followLink(e, href)}>
              Jump
            </a>
          )}
          <button
            type="button"
            class="link-button"
            onClick={async () => {
              const err = await setPinned(post.id, false);
              if (err) setError(err);
            }}
          >
            Unpin
          </button>
        </span>
      </div>
      {post.message !== '' && <Markdown class="post__message" text={post.message} />}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
    </article>
  );
}

/** The right-hand panel's "Pinned messages" of a channel (GetPinnedPosts), newest first, kept live by post_edited. */
export function PinnedPanel({ channelId }: { channelId: string }) {
  const ids = useStore((s) => s.pins.byChannel[channelId]);
  const byId = useStore((s) => s.posts.byId);
  const error = useStore((s) => s.pins.errors[channelId]);
  const channel = useStore((s) => s.channels[channelId]);
  const title = useStore((s) => (channel ? channelTitle(channel, s) : ''));
  const teamName = useStore((s) => s.teams.find((t) => t.id === s.currentTeamId)?.name ?? '');
  const closeRef = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => {
    closeRef.current?.focus();
  }, [channelId]);
  const close = () => {
    closeRhs();
    returnFocus();
  };
  const posts = (ids ?? []).map((id) => byId[id]).filter((p): p is ClientPost => !!p);
  return (
    <aside
      class="rhs"
      aria-label="Pinned messages"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          close();
        }
      }}
    >
      <header class="rhs__header">
        <div>
          <h2 class="rhs__title">Pinned messages</h2>
          {title && <div class="rhs__subtitle">{title}</div>}
        </div>
        <button ref={closeRef} type="button" class="icon-button rhs__close" aria-label="Close pinned messages" title="Close pinned messages" onClick={close}>
          <CloseIcon size={20} />
        </button>
      </header>
      <div class="rhs__body pinned-list" role="region" aria-label="Pinned messages list" tabIndex={0}>
        {error && (
          <p class="form-error pinned-list__note" role="alert">
            {error}
          </p>
        )}
        {!ids && !error && <div class="post-list__loading">Loading pinned messages…</div>}
        {ids && posts.length === 0 && (
          <div class="pinned-list__empty">
            <PinIcon size={32} />
            <p>No pinned messages yet</p>
            <p class="hint">Pin important messages which are visible to the whole channel. Open the actions menu on a message and choose Pin to Channel to save it here.</p>
          </div>
        )}
        {posts.map((p) => (
          <PinnedItem key={p.id} post={p} teamName={teamName} />
        ))}
      </div>
    </aside>
  );
}
