import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { buildRows } from '../post-rows';
import { channelPath } from '../router';
import { closeRhs } from '../actions/panels';
import { followLink } from '../links';
import type { Rhs as RhsState } from '../state/app-state';
import { channelTitle } from '../state/selectors';
import { useStore } from '../state/use-store';
import { PostAvatar, usePostAuthor } from './Avatar';
import { Composer } from './Composer';
import { returnFocus } from './focus';
import { SearchResults } from './Search';
import { PinnedPanel } from './PinnedPanel';
import { CloseIcon } from './icons';
import { Markdown } from './Markdown';
import { DateSeparator } from './DateSeparator';
import { PostItem } from './Post';
import { TypingIndicator } from './Typing';

function close(): void {
  closeRhs();
  returnFocus();
}

function Panel({ title, subtitle, closeLabel, children }: { title: string; subtitle?: string; closeLabel: string; children: ComponentChildren }) {
  const closeRef = useRef<HTMLButtonElement>(null);
  // Before the panel is painted: a key pressed as soon as it shows (Escape to close it) must already reach it. With a
  // plain effect, focus moved a frame later, and an Escape in between went to the page and was lost.
  useLayoutEffect(() => {
    closeRef.current?.focus();
  }, [title]);
  return (
    <aside
      class="rhs"
      aria-label={title}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !(e.target instanceof HTMLTextAreaElement && e.target.value)) {
          e.preventDefault();
          close();
        }
      }}
    >
      <header class="rhs__header">
        <div>
          <h2 class="rhs__title">{title}</h2>
          {subtitle && <div class="rhs__subtitle">{subtitle}</div>}
        </div>
        <button ref={closeRef} type="button" class="icon-button rhs__close" aria-label={closeLabel} title={closeLabel} onClick={close}>
          <CloseIcon size={20} />
        </button>
      </header>
      {children}
    </aside>
  );
}

function ThreadPanel({ rootId }: { rootId: string }) {
  const ids = useStore((s) => s.posts.threads[rootId]);
  const byId = useStore((s) => s.posts.byId);
  const root = byId[rootId];
  const channel = useStore((s) => (root ? s.channels[root.channel_id] : undefined));
  const channelName = useStore((s) => (channel ? channelTitle(channel, s) : ''));
  const rows = useMemo(() => buildRows(ids ?? (root ? [rootId] : []), byId, true), [ids, byId, rootId]);
  const body = useRef<HTMLDivElement>(null);
  const count = rows.filter((r) => r.kind === 'post').length;
  useEffect(() => {
    if (body.current) body.current.scrollTop = body.current.scrollHeight;
  }, [count]);
  return (
    <Panel title="Thread" subtitle={channelName} closeLabel="Close thread">
      <div class="rhs__body" ref={body} role="log" aria-label="Thread messages" tabIndex={0}>
        {!root && <div class="post-list__loading">Loading thread…</div>}
        {rows.map((row) =>
          row.kind === 'date' ? <DateSeparator key={row.key} day={row.day} /> : <PostItem key={row.key} post={byId[row.id]} continuation={row.continuation} replyContext={false} inThread />,
        )}
      </div>
      {root && (
        <div class="rhs__footer">
          <TypingIndicator typingKey={`thread:${rootId}`} />
          <Composer channelId={root.channel_id} rootId={rootId} label="Reply to thread" placeholder="Reply…" />
        </div>
      )}
    </Panel>
  );
}

function CardPanel({ postId }: { postId: string }) {
  const post = useStore((s) => s.posts.byId[postId]);
  const team = useStore((s) => s.teams.find((t) => t.id === s.currentTeamId));
  const channel = useStore((s) => (post ? s.channels[post.channel_id] : undefined));
  const author = usePostAuthor(post ?? ({ user_id: '', props: {} } as never));
  const card = typeof post?.props?.card === 'string' ? post.props.card : '';
  const href = team && channel && channel.type !== 'D' ? channelPath(team.name, channel.name) : undefined;
  return (
    <Panel title="Info" subtitle="Card" closeLabel="Close card">
      <div class="rhs__body rhs__card" tabIndex={0}>
        {post ? <Markdown class="card-markdown" text={card} /> : <p>This message is no longer available.</p>}
        {post && (
          <div class="rhs__card-meta">
            <span>Message by</span>
            <PostAvatar post={post} size={20} />
            <strong>{author}</strong>
            {href && (
              <a href={href} onClick={(e) => followLink(e, href)}>
                Jump
              </a>
            )}
          </div>
        )}
      </div>
    </Panel>
  );
}

export function RightPanel({ rhs }: { rhs: RhsState }) {
  if (rhs.kind === 'pinned') return <PinnedPanel channelId={rhs.channelId} />;
  if (rhs.kind === 'search') {
    return (
      <Panel title="Search Results" closeLabel="Close search results">
        <SearchResults />
      </Panel>
    );
  }
  return rhs.kind === 'thread' ? <ThreadPanel rootId={rhs.rootId} /> : <CardPanel postId={rhs.postId} />;
}
