import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Post } from '../api';
import { search, searchMore } from '../actions/search';
import { fullDateTime, shortDateOf, timeOf } from '../format';
import { followLink } from '../links';
import { permalinkPath } from '../router';
import { highlightTerms, markParts, type Highlight } from '../search-terms';
import { channelTitle } from '../state/selectors';
import { useStore } from '../state/use-store';
import { PostAvatar, usePostAuthor } from './Avatar';
import { SearchIcon } from './icons';
import { PostFiles } from './PostFiles';
import '../styles/files-search.css';

/** The search box of the header, and the results shown in the right-hand panel. */

export function SearchBox() {
  const current = useStore((s) => (s.rhs?.kind === 'search' ? s.search?.terms : undefined));
  const [text, setText] = useState(current ?? '');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (current !== undefined) setText(current);
  }, [current]);
  return (
    <form
      class="search-box"
      role="search"
      aria-label="Search messages"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) void search(text);
      }}
    >
      <SearchIcon size={16} class="search-box__icon" />
      <input
        ref={input}
        type="search"
        class="search-box__input"
        aria-label="Search"
        placeholder="Search"
        title="Search messages: words, &quot;phrases&quot;, from:username, in:channel, before:, after:, on:YYYY-MM-DD, -excluded"
        value={text}
        maxLength={1024}
        onInput={(e) => setText(e.currentTarget.value)}
      />
    </form>
  );
}

function Excerpt({ text, highlights }: { text: string; highlights: Highlight[] }) {
  const parts = useMemo(() => markParts(text, highlights), [text, highlights]);
  return (
    <p class="search-result__text">
      {parts.map((p, i) => (p.mark ? <mark key={i}>{p.text}</mark> : p.text))}
    </p>
  );
}

function Result({ post, highlights, teamName }: { post: Post; highlights: Highlight[]; teamName: string }) {
  const channel = useStore((s) => s.channels[post.channel_id]);
  const channelName = useStore((s) => (channel ? channelTitle(channel, s) : ''));
  const author = usePostAuthor(post);
  const href = permalinkPath(teamName, post.id);
  const where = channel ? (channel.type === 'D' ? `@${channelName}` : channel.type === 'G' ? channelName : `~${channelName}`) : 'a channel';
  return (
    <article class="search-result" aria-label={`${author} in ${where}, ${shortDateOf(post.create_at)} ${timeOf(post.create_at)}`}>
      <div class="search-result__channel">{where}</div>
      <div class="search-result__post">
        <PostAvatar post={post} size={32} />
        <div class="search-result__content">
          <div class="search-result__header">
            <span class="search-result__author">{author}</span>
            <time class="search-result__time" dateTime={new Date(post.create_at).toISOString()} title={fullDateTime(post.create_at)}>
              {shortDateOf(post.create_at)} {timeOf(post.create_at)}
            </time>
            <a class="search-result__jump" href={href} onClick={(e) => followLink(e, href)} aria-label={`Jump to ${author}'s message`}>
              Jump
            </a>
          </div>
          {post.message !== '' && <Excerpt text={post.message} highlights={highlights} />}
          <PostFiles metadata={post.metadata} />
        </div>
      </div>
    </article>
  );
}

export function SearchResults() {
  const found = useStore((s) => s.search);
  const byId = useStore((s) => s.posts.byId);
  const deleted = useStore((s) => s.posts.deleted);
  const teamName = useStore((s) => s.teams.find((t) => t.id === s.search?.teamId)?.name ?? '');
  const highlights = useMemo(() => highlightTerms(found?.terms ?? ''), [found?.terms]);
  if (!found) return null;
  // The client's own copy of a post found is the newer one (edited since); a post deleted since is left out.
  const posts = found.order.filter((id) => !deleted[id]).map((id) => byId[id] ?? found.posts[id]).filter(Boolean);
  return (
    <div class="rhs__body search-results" tabIndex={0} aria-busy={found.status === 'loading'}>
      <p class="search-results__summary" role="status">
        {found.status === 'loading'
          ? 'Searching…'
          : found.status === 'error'
            ? ''
            : posts.length === 0
              ? `No results for "${found.terms}"`
              : `${posts.length}${found.hasNext ? '+' : ''} ${posts.length === 1 ? 'result' : 'results'} for "${found.terms}"`}
      </p>
      {found.status === 'error' && (
        <p class="form-error" role="alert">
          {found.error}
        </p>
      )}
      {found.status === 'done' && posts.length === 0 && (
        <div class="search-results__empty">
          <p>Check the spelling or try another search. Filters: from:username, in:channel, on:, before:, after: (YYYY-MM-DD), "exact phrase", -excluded.</p>
        </div>
      )}
      {posts.map((p) => (
        <Result key={p.id} post={p} highlights={highlights} teamName={teamName} />
      ))}
      {found.status === 'done' && found.hasNext && (
        <button type="button" class="btn btn--secondary btn--small search-results__more" disabled={found.loadingMore} onClick={() => void searchMore()}>
          {found.loadingMore ? 'Loading…' : 'Show more results'}
        </button>
      )}
    </div>
  );
}
