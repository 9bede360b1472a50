import { retryBoot } from '../actions/session';
import { channelTitle } from '../state/selectors';
import { useStore } from '../state/use-store';
import { followLink } from '../links';
import { AccountSettings } from './AccountSettings';
import { ArchivedNotice } from './ArchivedNotice';
import { Integrations } from './Integrations';
import { ChannelHeader } from './ChannelHeader';
import { CreateTeam } from './CreateTeam';
import { Composer } from './Composer';
import { ChannelDropArea } from './ComposerFiles';
import { Login } from './Login';
import { Logo } from './Logo';
import { NotifyBanner } from './NotifyBanner';
import { PostList } from './PostList';
import { RightPanel } from './Rhs';
import { Signup } from './Signup';
import { Sidebar } from './Sidebar';
import { SystemConsole } from './SystemConsole';
import { TeamBar } from './TeamBar';
import { Drawer } from './Drawer';
import { TypingIndicator } from './Typing';
import { useTabStatus } from './tab-status';

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
          <p>You are not a member of any team. Ask a team admin for an invite link, or create a team.</p>
          <a class="btn btn--primary" href="/create_team" onClick={(e) => followLink(e, '/create_team')}>
            Create a team
          </a>
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
    <ChannelDropArea channelId={channelId}>
      <ConnectionBanner />
      <NotifyBanner />
      <ChannelHeader channel={channel} />
      <PostList channelId={channelId} />
      <TypingIndicator typingKey={channelId} />
      {channel.delete_at > 0 ? <ArchivedNotice channel={channel} /> : <Composer channelId={channelId} label={label} placeholder={`${label}…`} />}
    </ChannelDropArea>
  );
}

/** The tab's title (with the unread mention count) and favicon (with the unread dot): components/tab-status.ts. */
function useDocumentTitle(): void {
  useTabStatus();
}

function Shell() {
  const rhs = useStore((s) => s.rhs);
  const account = useStore((s) => s.route.kind === 'account');
  const ws = useStore((s) => s.ws);
  const integrations = useStore((s) => s.route.kind === 'integrations');
  useDocumentTitle();
  return (
    <div class={`shell${rhs ? ' shell--rhs' : ''}`} data-live={ws}>
      <a class="skip-link" href="#main">
        Skip to messages
      </a>
      <Drawer>
        <TeamBar />
        <Sidebar />
      </Drawer>
      {account ? <AccountSettings /> : integrations ? <Integrations /> : <Center />}
      {rhs && !account && !integrations && <RightPanel rhs={rhs} />}
    </div>
  );
}

export function App() {
  const boot = useStore((s) => s.boot);
  const route = useStore((s) => s.route);
  const me = useStore((s) => s.me);
  const routeError = useStore((s) => s.routeError);
  const config = useStore((s) => s.config);
  if (boot === 'loading') return <Splash />;
  if (boot === 'down') return <ServerDown />;
  if (!me && route.kind === 'signup') return <Signup />;
  if (route.kind === 'login' || !me) {
    document.title = `Log in - ${config.SiteName || 'Parley'}`;
    return <Login />;
  }
  if (route.kind === 'createTeam') return <CreateTeam />;
  if (route.kind === 'console') return <SystemConsole />;
  // Signed in, an invite link is being used (routing joins its team and moves on).
  if (route.kind === 'signup') return routeError ? <Shell /> : <Splash />;
  return <Shell />;
}
