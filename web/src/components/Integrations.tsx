import { useEffect } from 'preact/hooks';
import type { Team } from '../api';
import type { IntegrationSection, IntegrationsView } from '../integrations-routes';
import { integrationsPath } from '../integrations-routes';
import { followLink } from '../links';
import { isSystemAdmin } from '../state/selectors';
import { useStore } from '../state/use-store';
import { BotConfirm, BotForm, BotList } from './BotAccounts';
import { IncomingConfirm, IncomingForm, IncomingList } from './IncomingWebhooks';
import { Screen, ViewLink } from './IntegrationsParts';
import { DeliveryLog, OutgoingConfirm, OutgoingForm, OutgoingList } from './OutgoingWebhooks';
import { CommandConfirm, CommandForm, CommandList } from './SlashCommands';
import '../styles/integrations.css';

/**
 * The integrations page of a team (`/{team}/integrations/...`, Mattermost's): incoming and outgoing webhooks, slash
 * commands and bot accounts, for the team's admins and system admins. Everyone else is told they lack permission.
 */

const SECTIONS: Array<{ section: IntegrationSection; title: string; text: string; setting: string }> = [
  { section: 'incoming_webhooks', title: 'Incoming webhooks', text: 'Let other services post messages to a channel through a secret URL.', setting: 'EnableIncomingWebhooks' },
  { section: 'outgoing_webhooks', title: 'Outgoing webhooks', text: 'Send posts with trigger words to your service and post its answer.', setting: 'EnableOutgoingWebhooks' },
  { section: 'commands', title: 'Slash commands', text: 'Call your service when someone types /your-command.', setting: 'EnableCommands' },
  { section: 'bots', title: 'Bot accounts', text: 'Accounts for programs, signing in with access tokens.', setting: '' },
];

/** Whether a section is offered: turned on in the server's settings, and bots for system admins only (their default permissions). */
function useOffered(): (section: IntegrationSection) => boolean {
  const config = useStore((s) => s.config);
  const sysadmin = useStore(isSystemAdmin);
  return (section) => {
    const entry = SECTIONS.find((e) => e.section === section);
    if (section === 'bots') return sysadmin;
    return !entry?.setting || config[entry.setting] !== 'false';
  };
}

function Home({ team }: { team: Team }) {
  const offered = useOffered();
  const shown = SECTIONS.filter((e) => offered(e.section));
  return (
    <Screen title="Integrations">
      {shown.length === 0 && <p>Integrations are turned off on this server.</p>}
      <ul class="integrations__tiles">
        {shown.map((e) => (
          <li key={e.section}>
            <ViewLink class="integrations__tile" team={team.name} view={{ page: 'list', section: e.section }}>
              <span class="integrations__tile-title">{e.title}</span>
              <span class="integrations__tile-text">{e.text}</span>
            </ViewLink>
          </li>
        ))}
      </ul>
    </Screen>
  );
}

function Nav({ team, view }: { team: Team; view: IntegrationsView }) {
  const offered = useOffered();
  const current = view.page === 'home' ? undefined : view.section;
  return (
    <nav class="integrations__nav" aria-label="Integrations">
      <ul>
        {SECTIONS.filter((e) => offered(e.section)).map((e) => {
          const href = integrationsPath(team.name, { page: 'list', section: e.section });
          return (
            <li key={e.section}>
              <a href={href} class={current === e.section ? 'is-active' : undefined} aria-current={current === e.section ? 'page' : undefined} onClick={(ev) => followLink(ev, href)}>
                {e.title}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

function Body({ team, view }: { team: Team; view: IntegrationsView }) {
  const offered = useOffered();
  if (view.page === 'home') return <Home team={team} />;
  const entry = SECTIONS.find((e) => e.section === view.section);
  if (!offered(view.section)) {
    return (
      <Screen title={entry?.title ?? 'Integrations'}>
        <p>{view.section === 'bots' ? 'Only system admins can manage bot accounts.' : `${entry?.title ?? 'This integration'} are turned off on this server. A system admin can turn them on in the System Console.`}</p>
      </Screen>
    );
  }
  switch (view.section) {
    case 'incoming_webhooks':
      if (view.page === 'add') return <IncomingForm team={team} />;
      if (view.page === 'edit') return <IncomingForm key={view.id} team={team} hookId={view.id} />;
      if (view.page === 'confirm') return <IncomingConfirm team={team} hookId={view.id} />;
      return <IncomingList team={team} />;
    case 'outgoing_webhooks':
      if (view.page === 'add') return <OutgoingForm team={team} />;
      if (view.page === 'edit') return <OutgoingForm key={view.id} team={team} hookId={view.id} />;
      if (view.page === 'confirm') return <OutgoingConfirm team={team} hookId={view.id} />;
      if (view.page === 'deliveries') return <OutgoingLog team={team} id={view.id} />;
      return <OutgoingList team={team} />;
    case 'commands':
      if (view.page === 'add') return <CommandForm team={team} />;
      if (view.page === 'edit') return <CommandForm key={view.id} team={team} commandId={view.id} />;
      if (view.page === 'confirm') return <CommandConfirm team={team} commandId={view.id} />;
      if (view.page === 'deliveries') return <CommandLog team={team} id={view.id} />;
      return <CommandList team={team} />;
    case 'bots':
      if (view.page === 'add') return <BotForm team={team} />;
      if (view.page === 'edit') return <BotForm key={view.id} team={team} botId={view.id} />;
      if (view.page === 'confirm') return <BotConfirm team={team} botId={view.id} />;
      return <BotList team={team} />;
  }
}

function OutgoingLog({ team, id }: { team: Team; id: string }) {
  const name = useStore((s) => s.integrations.outgoing?.find((h) => h.id === id)?.display_name) || 'outgoing webhook';
  return <DeliveryLog team={team} section="outgoing_webhooks" id={id} name={name} />;
}

function CommandLog({ team, id }: { team: Team; id: string }) {
  const trigger = useStore((s) => s.integrations.commands?.find((c) => c.id === id)?.trigger);
  return <DeliveryLog team={team} section="commands" id={id} name={trigger ? `/${trigger}` : 'slash command'} />;
}

export function Integrations() {
  const route = useStore((s) => s.route);
  const team = useStore((s) => s.teams.find((t) => t.id === s.currentTeamId));
  const allowed = useStore((s) => (s.currentTeamId ? s.integrations.canManage[s.currentTeamId] : undefined));
  const siteName = useStore((s) => s.config.SiteName) || 'Parley';
  useEffect(() => {
    document.title = ['Integrations', team?.display_name, siteName].filter(Boolean).join(' - ');
  }, [team?.display_name, siteName]);
  if (route.kind !== 'integrations' || !team) return null;
  const view = route.view;
  return (
    <main class="center integrations" id="main">
      <div class="integrations__scroll">
        <div class="integrations__inner">
          <a class="settings__back" href="/" onClick={(e) => followLink(e, '/')}>
            ← Back to your channels
          </a>
          <h1 class="integrations__title">
            <ViewLink team={team.name} view={{ page: 'home' }} class="integrations__title-link">
              Integrations
            </ViewLink>
          </h1>
          {allowed === undefined && <p>Loading…</p>}
          {allowed === false && (
            <div class="integrations__denied" role="alert">
              <h2>Permission denied</h2>
              <p>You do not have permission to manage the integrations of {team.display_name}. Ask a team admin or a system admin.</p>
            </div>
          )}
          {allowed && (
            <div class="integrations__layout">
              <Nav team={team} view={view} />
              <div class="integrations__body">
                <Body team={team} view={view} />
              </div>
            </div>
          )}
        </div>
      </div>
    </main>
  );
}
