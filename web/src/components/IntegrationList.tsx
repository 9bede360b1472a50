import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Team } from '../api';
import type { IntegrationSection } from '../integrations-routes';
import type { Command, IncomingWebhook, IntegrationsState, OutgoingWebhook } from '../state/integrations-state';
import { useStore } from '../state/use-store';
import { ConfirmDialog } from './ConfirmDialog';
import { Problem, Screen, ViewLink, formatTime } from './IntegrationsParts';

/**
 * What the lists of incoming webhooks, outgoing webhooks and slash commands share: the list screen (its Add link,
 * loading, empty and error states) and one item of it (its facts, who made it, Delivery log, Edit, and Delete with a
 * confirmation). Each section says only what differs: its words, its facts and its delete action.
 */

type ManagedSection = Exclude<IntegrationSection, 'bots'>;

function Creator({ id, at }: { id: string; at: number }) {
  const user = useStore((s) => s.users[id]);
  return <span class="hint">{`Created by ${user ? `@${user.username}` : 'someone'} on ${formatTime(at)}`}</span>;
}

/** What each section lists, where the state keeps it, and its words. */
interface Listed {
  incoming_webhooks: IncomingWebhook;
  outgoing_webhooks: OutgoingWebhook;
  commands: Command;
}
const byTitle = (a: { id: string; display_name: string }, b: { id: string; display_name: string }) => (a.display_name || a.id).localeCompare(b.display_name || b.id);
const LISTS: { [S in ManagedSection]: { title: string; noun: string; items: (i: IntegrationsState) => Listed[S][] | undefined; order: (a: Listed[S], b: Listed[S]) => number } } = {
  incoming_webhooks: { title: 'Incoming webhooks', noun: 'incoming webhook', items: (i) => i.incoming, order: byTitle },
  outgoing_webhooks: { title: 'Outgoing webhooks', noun: 'outgoing webhook', items: (i) => i.outgoing, order: byTitle },
  commands: { title: 'Slash commands', noun: 'slash command', items: (i) => i.commands, order: (a, b) => a.trigger.localeCompare(b.trigger) },
};

/** A section's list screen: the Add link, what the list is for, then loading, the load's error, empty, or the items. */
export function IntegrationList<S extends ManagedSection>({ team, section, lead, renderItem }: { team: Team; section: S; lead: ComponentChildren; renderItem: (item: Listed[S]) => ComponentChildren }) {
  const list = LISTS[section] as (typeof LISTS)[S];
  const items = useStore((s) => list.items(s.integrations));
  const error = useStore((s) => s.integrations.errors[section]);
  const sorted = [...(items ?? [])].sort(list.order);
  return (
    <Screen
      title={list.title}
      actions={
        <ViewLink class="btn btn--primary" team={team.name} view={{ page: 'add', section }}>
          {`Add ${list.noun}`}
        </ViewLink>
      }
    >
      <p class="integrations__lead">{lead}</p>
      <Problem text={error ?? ''} />
      {!items && !error && <p class="integrations__empty">Loading…</p>}
      {items && sorted.length === 0 && <p class="integrations__empty">{`No ${list.noun}s yet.`}</p>}
      {sorted.length > 0 && <ul class="integrations__list">{sorted.map(renderItem)}</ul>}
    </Screen>
  );
}

export interface IntegrationItemProps {
  team: Team;
  section: ManagedSection;
  id: string;
  /** The item's name, also what its buttons name for a screen reader. */
  title: string;
  /** The heading, where it shows more than the title. */
  heading?: ComponentChildren;
  description?: string;
  /** The `<dt>`/`<dd>` pairs of the item's facts. */
  facts: ComponentChildren;
  creator: { id: string; at: number };
  /** Whether the item keeps a delivery log (outgoing webhooks and slash commands). */
  deliveries?: boolean;
  confirm: { title: string; body: string };
  /** Deletes the item: the server's refusal in words, or undefined. */
  onDelete: () => Promise<string | undefined>;
}

export function IntegrationItem({ team, section, id, title, heading, description, facts, creator, deliveries, confirm, onDelete }: IntegrationItemProps) {
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState('');
  return (
    <li class="integrations__item">
      <div class="integrations__item-main">
        <h3 class="integrations__item-title">{heading ?? title}</h3>
        {description && <p class="integrations__item-desc">{description}</p>}
        <dl class="integrations__facts">{facts}</dl>
        <Creator id={creator.id} at={creator.at} />
        <Problem text={problem} />
      </div>
      <div class="integrations__item-actions">
        {deliveries && section !== 'incoming_webhooks' && (
          <ViewLink class="btn btn--secondary btn--small" team={team.name} view={{ page: 'deliveries', section, id }}>
            Delivery log <span class="sr-only">{`of ${title}`}</span>
          </ViewLink>
        )}
        <ViewLink class="btn btn--secondary btn--small" team={team.name} view={{ page: 'edit', section, id }}>
          Edit <span class="sr-only">{title}</span>
        </ViewLink>
        <button type="button" class="btn btn--secondary btn--small" onClick={() => setConfirming(true)}>
          Delete <span class="sr-only">{title}</span>
        </button>
      </div>
      {confirming && (
        <ConfirmDialog
          title={confirm.title}
          body={confirm.body}
          confirmLabel="Delete"
          onCancel={() => setConfirming(false)}
          onConfirm={async () => {
            setConfirming(false);
            setProblem((await onDelete()) ?? '');
          }}
        />
      )}
    </li>
  );
}
