import { useContext, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { buildRows } from '../post-rows';
import { loadOlder } from '../actions/posts';
import { channelTitle } from '../state/selectors';
import { StoreContext, useStore } from '../state/use-store';
import { DateSeparator } from './DateSeparator';
import { ArrowDownIcon } from './icons';
import { PostItem } from './Post';
import { JumpToNewMessages, NewMessagesLine, useLineOutOfView } from './NewMessages';
import { firstUnreadId } from '../actions/unread';

/** Marks, once per page load, the moment the first channel's posts are on screen (the first-load figure). */
let firstPostsMarked = false;
function markFirstPosts(): void {
  if (firstPostsMarked) return;
  firstPostsMarked = true;
  performance.mark('parley:first-posts');
}

const NEAR_TOP = 400;
/** Rows rendered before the first paint; the rest of the page follows right after it (kept above, out of view). */
const FIRST_ROWS = 24;
/**
 * Rows added per frame after the first paint: the older rows arrive over a few frames, so no single task renders a
 * whole page of posts (each post's render is bounded, see markdown.ts; a page of them is bounded per frame here).
 */
const MORE_ROWS = 12;
const NEAR_BOTTOM = 60;

function useReplyCounts(): Record<string, number> {
  const byId = useStore((s) => s.posts.byId);
  return useMemo(() => {
    const counts: Record<string, number> = {};
    for (const p of Object.values(byId)) if (p.root_id) counts[p.root_id] = (counts[p.root_id] ?? 0) + 1;
    return counts;
  }, [byId]);
}

export function PostList({ channelId }: { channelId: string }) {
  const list = useStore((s) => s.posts.channels[channelId]);
  const byId = useStore((s) => s.posts.byId);
  const loadingOlder = useStore((s) => !!s.loadingOlder[channelId]);
  const error = useStore((s) => s.channelErrors[channelId]);
  const channel = useStore((s) => s.channels[channelId]);
  const title = useStore((s) => (channel ? channelTitle(channel, s) : ''));
  const replyCounts = useReplyCounts();
  const ids = list?.ids;
  const allRows = useMemo(() => buildRows(ids ?? [], byId), [ids, byId]);
  // On opening a channel only the newest rows are rendered at first: the reader sees the bottom of the list, and
  // rendering the whole page would only delay that. The older rows are added over the next frames.
  const [limit, setLimit] = useState(FIRST_ROWS);
  useEffect(() => {
    setLimit(FIRST_ROWS);
  }, [channelId]);
  const rowCount = allRows.length;
  useEffect(() => {
    if (limit !== Infinity && list?.loaded) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const raf = requestAnimationFrame(() => {
        timer = setTimeout(() => setLimit(limit + MORE_ROWS >= rowCount ? Infinity : limit + MORE_ROWS));
      });
      return () => {
        cancelAnimationFrame(raf);
        clearTimeout(timer);
      };
    }
  }, [limit, list?.loaded, rowCount]);
  const rows = limit === Infinity || allRows.length <= limit ? allRows : allRows.slice(allRows.length - limit);
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const before = useRef<{ firstId?: string; lastId?: string; height: number; top: number }>({ height: 0, top: 0 });
  const [unseen, setUnseen] = useState(0);

  const scrollToBottom = () => {
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
    atBottom.current = true;
    setUnseen(0);
  };

  // Keep the reading position: after older posts are prepended, at the bottom when new ones arrive there.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || !list?.loaded) return;
    const firstRow = rows.find((r) => r.kind === 'post');
    const firstId = firstRow?.kind === 'post' ? firstRow.id : undefined;
    const lastId = list.ids[list.ids.length - 1];
    const prev = before.current;
    if (prev.firstId === undefined && prev.lastId === undefined) {
      scrollToBottom();
      markFirstPosts();
    } else if (firstId !== prev.firstId && lastId === prev.lastId) {
      el.scrollTop = el.scrollHeight - prev.height + prev.top;
    } else if (lastId !== prev.lastId) {
      if (atBottom.current || byId[lastId ?? '']?.pending) scrollToBottom();
      else setUnseen((n) => n + 1);
    }
    before.current = { firstId, lastId, height: el.scrollHeight, top: el.scrollTop };
  }, [list, byId, rows]);

  // A new channel starts at the bottom.
  useLayoutEffect(() => {
    before.current = { height: 0, top: 0 };
    atBottom.current = true;
    setUnseen(0);
  }, [channelId]);

  // Images and embeds that load later must not push the newest post out of view.
  useEffect(() => {
    const el = content.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => {
      if (atBottom.current && scroller.current) scroller.current.scrollTop = scroller.current.scrollHeight;
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [channelId]);

  // A short first page may not fill the view: keep loading older posts until it scrolls (or there are none). And a
  // reader who scrolled to the top while the page's older rows were still being added gets the older page now.
  useEffect(() => {
    const el = scroller.current;
    const wantsOlder = el && (el.scrollHeight <= el.clientHeight + NEAR_TOP || el.scrollTop < NEAR_TOP);
    if (wantsOlder && list?.loaded && limit === Infinity && list.hasOlder && !loadingOlder) void loadOlder(channelId);
  }, [list, loadingOlder, channelId, limit]);

  // A permalink's post: brought into view once it is rendered (the list then stops following the bottom).
  const highlight = useStore((s) => s.highlightPostId);
  const shownHighlight = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!highlight) shownHighlight.current = undefined;
    if (!highlight || shownHighlight.current === highlight) return;
    const el = content.current?.querySelector(`[data-post-id="${CSS.escape(highlight)}"]`);
    if (!el) return;
    shownHighlight.current = highlight;
    atBottom.current = false;
    el.scrollIntoView({ block: 'center' });
    if (scroller.current) before.current = { ...before.current, height: scroller.current.scrollHeight, top: scroller.current.scrollTop };
  }, [highlight, rows]);

  // The "New messages" line (actions/unread.ts) and, when it is out of view above, "Jump to new messages".
  const store = useContext(StoreContext);
  const lineAt = useStore((s) => s.unread.line[channelId]);
  const meId = useStore((s) => s.me?.id ?? '');
  const firstUnread = useMemo(() => firstUnreadId(ids ?? [], byId, lineAt, meId), [ids, byId, lineAt, meId]);
  const oldestHeld = ids?.length ? byId[ids[0]] : undefined;
  // More unread posts than the page holds: the line is further back than what is loaded.
  const lineNotLoaded = lineAt !== undefined && !firstUnread && !!list?.hasOlder && !!oldestHeld && oldestHeld.create_at > lineAt;
  const lineAbove = useLineOutOfView(scroller, !!firstUnread, `${firstUnread}:${rows.length}`);
  const jumpToNew = async () => {
    for (let i = 0; i < 20 && !scroller.current?.querySelector('[data-new-messages]'); i++) {
      const held = store.get().posts.channels[channelId];
      if (!held?.hasOlder) break;
      setLimit(Infinity);
      await loadOlder(channelId);
      await new Promise((r) => requestAnimationFrame(r));
    }
    const line = scroller.current?.querySelector('[data-new-messages]');
    if (!line) return;
    atBottom.current = false;
    line.scrollIntoView({ block: 'start' });
    if (scroller.current) before.current = { ...before.current, height: scroller.current.scrollHeight, top: scroller.current.scrollTop };
  };

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    // Only the reader scrolling up leaves the bottom: content growing under us (an image loading) does not, even
    // when its scroll event arrives after the growth.
    const nearBottom = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM;
    if (nearBottom) atBottom.current = true;
    else if (el.scrollTop < before.current.top - 1) atBottom.current = false;
    if (atBottom.current && unseen) setUnseen(0);
    before.current = { ...before.current, height: el.scrollHeight, top: el.scrollTop };
    if (el.scrollTop < NEAR_TOP && limit === Infinity && list?.hasOlder && !loadingOlder) void loadOlder(channelId);
  };

  return (
    <div class="post-list-wrap">
      <div class="post-list" ref={scroller} onScroll={onScroll} tabIndex={0} role="log" aria-label={`Messages in ${title}`} aria-busy={!list?.loaded}>
        <div ref={content} class="post-list__content">
          {list?.loaded && !list.hasOlder && rows === allRows && (
            <div class="channel-intro">
              <h2>Beginning of {title}</h2>
              {channel?.purpose && <p>{channel.purpose}</p>}
            </div>
          )}
          {(loadingOlder || (list?.loaded && list.hasOlder)) && <div class="post-list__loading" aria-hidden={!loadingOlder}>{loadingOlder ? 'Loading older messages…' : ''}</div>}
          {!list?.loaded && !error && <div class="post-list__loading">Loading messages…</div>}
          {error && <div class="post-list__error" role="alert">{error}</div>}
          {rows.map((row) =>
            row.kind === 'date' ? (
              <DateSeparator key={row.key} day={row.day} />
            ) : (
              [row.id === firstUnread && <NewMessagesLine key="new-messages" />,
              <PostItem key={row.key} post={byId[row.id]} continuation={row.continuation} replyContext={row.replyContext} replyCount={Math.max(byId[row.id]?.reply_count ?? 0, replyCounts[row.id] ?? 0)} />]
            ),
          )}
        </div>
      </div>
      {(lineAbove || lineNotLoaded) && <JumpToNewMessages onJump={() => void jumpToNew()} />}
      {unseen > 0 && (
        <button type="button" class="new-messages" onClick={scrollToBottom}>
          <ArrowDownIcon size={14} /> New messages
        </button>
      )}
    </div>
  );
}
