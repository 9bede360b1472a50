import { useEffect } from 'preact/hooks';
import { channelTitle, retryBoot, useStore } from '../store';
import { ChannelHeader } from './ChannelHeader';
import { Composer } from './Composer';
import { Login } from './Login';
import { Logo } from './Logo';
import { PostList } from './PostList';
import { RightPanel } from './Rhs';
import { Sidebar } from './Sidebar';
import { TeamBar } from './TeamBar';
import { TypingIndicator } from './Typing';

function Splash() {
  return (
    <div class="splash" role="status" aria-live="polite">
      <Logo size={48} />
      <span class="sr-only">Loading Parley…</span>
    </div>
  );
}

function ServerDown() {
  return (
    <main class="login">
      <div class="login__card">
        <div class="login__brand">
          <Logo size={40} />
          <span>Parley</span>
        </div>
        <h1 class="login__title">Cannot connect to the server</h1>
        <div class="alert alert--down" role="alert">
          Parley cannot be reached right now. Check your connection, or try again in a moment.
        </div>
        <button type="button" class="btn btn--primary btn--block" onClick={retryBoot}>
          Try again
        </button>
      </div>
    </main>
  );
}

function ConnectionBanner() {
  const status = useStore((s) => s.ws);
  if (status !== 'reconnecting') return null;
  return (
    <div class="banner" role="status">
      Connection lost. Reconnecting… New messages will appear when the connection is back.
    </div>
  );
}

function Center() {
  const channelId = useStore((s) => s.currentChannelId);
  const channel = useStore((s) => (s.currentChannelId ? s.channels[s.currentChannelId] : undefined));
  const routeError = useStore((s) => s.routeError);
  const teams = useStore((s) => s.teams);
  const title = useStore((s) => (channel ? channelTitle(channel, s) : ''));
  if (routeError) {
    return (
      <main class="center center--empty" id="main">
        <div class="empty">
          <h1>Nothing here</h1>
          <p>{routeError}</p>
          <a href="/">Go to your channels</a>
        </div>
      </main>
    );
  }
  if (!teams.length) {
    return (
      <main class="center center--empty" id="main">
        <div class="empty">
          <h1>No teams yet</h1>
          <p>You are not a member of any team. Ask a team admin to add you.</p>
        </div>
      </main>
    );
  }
  if (!channel || !channelId) {
    return (
      <main class="center center--empty" id="main">
        <div class="post-list__loading">Loading…</div>
      </main>
    );
  }
  const label = channel.type === 'D' ? `Write to ${title}` : `Write to ${channel.type === 'P' ? '' : '#'}${title}`;
  return (
    <main class="center" id="main">
      <ConnectionBanner />
      <ChannelHeader channel={channel} />
      <PostList channelId={channelId} />
      <TypingIndicator typingKey={channelId} />
      <Composer channelId={channelId} label={label} placeholder={`${label}…`} />
    </main>
  );
}

function useDocumentTitle(): void {
  const channel = useStore((s) => (s.currentChannelId ? s.channels[s.currentChannelId] : undefined));
  const title = useStore((s) => (channel ? channelTitle(channel, s) : ''));
  const team = useStore((s) => s.teams.find((t) => t.id === s.currentTeamId));
  const mentions = useStore((s) => {
    let n = 0;
    for (const id of (s.currentTeamId && s.teamChannels[s.currentTeamId]) || []) if (id !== s.currentChannelId) n += s.members[id]?.mention_count ?? 0;
    return n;
  });
  useEffect(() => {
    const parts = [title && (channel?.type === 'O' ? title : title), team?.display_name, 'Parley'].filter(Boolean);
    document.title = `${mentions ? `(${mentions}) ` : ''}${parts.join(' - ')}`;
  }, [title, team, mentions]);
}

function Shell() {
  const rhs = useStore((s) => s.rhs);
  const ws = useStore((s) => s.ws);
  useDocumentTitle();
  return (
    <div class={`shell${rhs ? ' shell--rhs' : ''}`} data-live={ws}>
      <a class="skip-link" href="#main">
        Skip to messages
      </a>
      <TeamBar />
      <Sidebar />
      <Center />
      {rhs && <RightPanel rhs={rhs} />}
    </div>
  );
}

export function App() {
  const boot = useStore((s) => s.boot);
  const route = useStore((s) => s.route);
  const me = useStore((s) => s.me);
  if (boot === 'loading') return <Splash />;
  if (boot === 'down') return <ServerDown />;
  if (route.kind === 'login' || !me) {
    document.title = 'Log in - Parley';
    return <Login />;
  }
  return <Shell />;
}
