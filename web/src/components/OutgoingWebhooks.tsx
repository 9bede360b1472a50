import { useEffect, useState } from 'preact/hooks';
import { deleteOutgoing, deliveryKey, loadDeliveries, redeliver, regenOutgoingToken, saveOutgoing, type OutgoingInput } from '../actions/integrations';
import type { Team } from '../api';
import type { FieldErrors } from '../integrations-errors';
import { integrationsPath, splitList } from '../integrations-routes';
import { navigate } from '../router';
import type { IntegrationDelivery, OutgoingWebhook } from '../state/integrations-state';
import { useStore } from '../state/use-store';
import { FormField } from './FormField';
import { ChannelName, useTeamChannelOptions } from './IncomingWebhooks';
import { IntegrationItem, IntegrationList } from './IntegrationList';
import { AreaField, CopyField, DeliveryTable, Problem, Screen, SelectField, ViewLink } from './IntegrationsParts';

/** Outgoing webhooks of a team: the list, the add and edit form, the confirmation with the token, the delivery log. */

const TRIGGER_WHEN = [
  { value: '0', label: 'First word matches a trigger word exactly' },
  { value: '1', label: 'First word starts with a trigger word' },
];
const CONTENT_TYPES = [
  { value: 'application/x-www-form-urlencoded', label: 'application/x-www-form-urlencoded' },
  { value: 'application/json', label: 'application/json' },
];

/** A token with a way to replace it (outgoing webhooks and slash commands). */
export function TokenRow({ token, name, onRegenerate }: { token: string; name: string; onRegenerate: () => Promise<string | undefined> }) {
  const [problem, setProblem] = useState('');
  return (
    <>
      <dt>Token</dt>
      <dd>
        <span class="integrations__mono">{token}</span>{' '}
        <button type="button" class="link-button" onClick={async () => setProblem((await onRegenerate()) ?? '')}>
          Regenerate token <span class="sr-only">{`of ${name}`}</span>
        </button>
        <Problem text={problem} />
      </dd>
    </>
  );
}

function HookItem({ team, hook }: { team: Team; hook: OutgoingWebhook }) {
  const title = hook.display_name || 'Outgoing webhook';
  return (
    <IntegrationItem
      team={team}
      section="outgoing_webhooks"
      id={hook.id}
      title={title}
      description={hook.description}
      creator={{ id: hook.creator_id, at: hook.create_at }}
      deliveries
      confirm={{ title: 'Delete outgoing webhook', body: `Delete "${title}"? Posts will no longer be sent to its callback URLs. This cannot be undone.` }}
      onDelete={() => deleteOutgoing(hook.id)}
      facts={
        <>
          <dt>Channel</dt>
          <dd>
            <ChannelName id={hook.channel_id} />
          </dd>
          <dt>Trigger words</dt>
          <dd>{hook.trigger_words.length ? hook.trigger_words.join(', ') : 'none (every post in the channel)'}</dd>
          <dt>Trigger when</dt>
          <dd>{TRIGGER_WHEN[hook.trigger_when === 1 ? 1 : 0].label}</dd>
          <dt>Callback URLs</dt>
          <dd class="integrations__mono">{hook.callback_urls.join(', ')}</dd>
          <dt>Content type</dt>
          <dd>{hook.content_type}</dd>
          <TokenRow token={hook.token} name={title} onRegenerate={() => regenOutgoingToken(hook.id)} />
        </>
      }
    />
  );
}

export function OutgoingList({ team }: { team: Team }) {
  return (
    <IntegrationList
      team={team}
      section="outgoing_webhooks"
      lead="Outgoing webhooks send posts that start with a trigger word (or every post of a channel) to your service, and post its answer back. Every call is signed with the hook's token and kept in its delivery log."
      renderItem={(h) => <HookItem key={h.id} team={team} hook={h} />}
    />
  );
}

type OutgoingFields = { channel_id: string; display_name: string; description: string; trigger_words: string; trigger_when: string; callback_urls: string; content_type: string; username: string; icon_url: string };

export function OutgoingForm({ team, hookId }: { team: Team; hookId?: string }) {
  const existing = useStore((s) => (hookId ? s.integrations.outgoing?.find((h) => h.id === hookId) : undefined));
  const loaded = useStore((s) => s.integrations.outgoing !== undefined);
  const channels = useTeamChannelOptions(team.id, 'Any public channel (trigger words needed)');
  const [f, setF] = useState<OutgoingFields>({
    channel_id: existing?.channel_id ?? '',
    display_name: existing?.display_name ?? '',
    description: existing?.description ?? '',
    trigger_words: (existing?.trigger_words ?? []).join('\n'),
    trigger_when: String(existing?.trigger_when ?? 0),
    callback_urls: (existing?.callback_urls ?? []).join('\n'),
    content_type: existing?.content_type ?? 'application/x-www-form-urlencoded',
    username: existing?.username ?? '',
    icon_url: existing?.icon_url ?? '',
  });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  if (hookId && !existing) return <Screen title="Edit outgoing webhook">{loaded ? <p>This webhook does not exist, or you may not manage it.</p> : <p>Loading…</p>}</Screen>;
  const set = (key: keyof OutgoingFields) => (value: string) => {
    setF((old) => ({ ...old, [key]: value }));
    setErrors((e) => ({ ...e, [key]: '' }));
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const input: OutgoingInput = {
      team_id: team.id,
      channel_id: f.channel_id,
      display_name: f.display_name.trim(),
      description: f.description.trim(),
      trigger_words: splitList(f.trigger_words, 'lines'),
      trigger_when: Number(f.trigger_when),
      callback_urls: splitList(f.callback_urls, 'lines'),
      content_type: f.content_type,
      username: f.username.trim(),
      icon_url: f.icon_url.trim(),
    };
    const result = await saveOutgoing(input, existing);
    setBusy(false);
    if (!result.ok) return setErrors(result.errors);
    navigate(existing ? integrationsPath(team.name, { page: 'list', section: 'outgoing_webhooks' }) : integrationsPath(team.name, { page: 'confirm', section: 'outgoing_webhooks', id: result.value.id }));
  };
  return (
    <Screen title={existing ? 'Edit outgoing webhook' : 'Add outgoing webhook'}>
      <form class="integrations__form" onSubmit={submit} noValidate>
        <FormField label="Title" name="display_name" maxLength={64} value={f.display_name} onInput={set('display_name')} error={errors.display_name} />
        <FormField label="Description" name="description" maxLength={500} value={f.description} onInput={set('description')} error={errors.description} />
        <SelectField label="Content type" name="content_type" value={f.content_type} onChange={set('content_type')} options={CONTENT_TYPES} error={errors.content_type} hint="How the post is sent to your service." />
        <SelectField label="Channel" name="channel_id" value={f.channel_id} onChange={set('channel_id')} options={channels} error={errors.channel_id} hint="A channel to watch, or any public channel of the team. A channel or trigger words (or both) are needed." />
        <AreaField label="Trigger words (one per line)" name="trigger_words" value={f.trigger_words} onInput={set('trigger_words')} error={errors.trigger_words} hint="Without trigger words, every post in the channel is sent." />
        <SelectField label="Trigger when" name="trigger_when" value={f.trigger_when} onChange={set('trigger_when')} options={TRIGGER_WHEN} />
        <AreaField label="Callback URLs (one per line)" name="callback_urls" value={f.callback_urls} onInput={set('callback_urls')} error={errors.callback_urls} hint="Each matching post is sent to every URL." />
        <FormField label="Username" name="username" maxLength={64} value={f.username} onInput={set('username')} error={errors.username} hint="The name your service's answers are shown under (when the system admin allows it)." />
        <FormField label="Profile picture URL" name="icon_url" maxLength={1024} value={f.icon_url} onInput={set('icon_url')} error={errors.icon_url} />
        <Problem text={errors.form ?? ''} />
        <div class="integrations__form-actions">
          <ViewLink class="btn btn--secondary" team={team.name} view={{ page: 'list', section: 'outgoing_webhooks' }}>
            Cancel
          </ViewLink>
          <button type="submit" class="btn btn--primary" disabled={busy}>
            {existing ? 'Update' : 'Save'}
          </button>
        </div>
      </form>
    </Screen>
  );
}

/** After adding an outgoing webhook or a command: its token, to put in the integration's checks. */
export function TokenConfirm({ team, kind, name, token, section }: { team: Team; kind: string; name: string; token: string; section: 'outgoing_webhooks' | 'commands' }) {
  return (
    <Screen title="Setup successful">
      <p>
        Your {kind} <strong>{name}</strong> is ready. Every call carries this token (and an <code>X-Parley-Signature</code> made with it): check it in your integration.
      </p>
      <CopyField label="Token" value={token} />
      <div class="integrations__form-actions">
        <ViewLink class="btn btn--primary" team={team.name} view={{ page: 'list', section }}>
          Done
        </ViewLink>
      </div>
    </Screen>
  );
}

export function OutgoingConfirm({ team, hookId }: { team: Team; hookId: string }) {
  const hook = useStore((s) => s.integrations.outgoing?.find((h) => h.id === hookId));
  if (!hook) return <Screen title="Setup successful">{<p>Loading…</p>}</Screen>;
  return <TokenConfirm team={team} kind="outgoing webhook" name={hook.display_name || 'Outgoing webhook'} token={hook.token} section="outgoing_webhooks" />;
}

/** A delivery log, kept fresh while it is shown (every few seconds, and at once after a redelivery). */
export function DeliveryLog({ team, section, id, name }: { team: Team; section: 'outgoing_webhooks' | 'commands'; id: string; name: string }) {
  const deliveries = useStore((s) => s.integrations.deliveries[deliveryKey(section, id)]);
  const [problem, setProblem] = useState('');
  const [status, setStatus] = useState('');
  useEffect(() => {
    const timer = setInterval(() => void loadDeliveries(section, id), 3000);
    return () => clearInterval(timer);
  }, [section, id]);
  const refresh = async () => setProblem((await loadDeliveries(section, id)) ?? '');
  const again = async (d: IntegrationDelivery) => {
    const err = await redeliver(id, d.id);
    setProblem(err ?? '');
    setStatus(err ? '' : 'The call was queued again. It appears here when it is made.');
    await loadDeliveries(section, id);
  };
  return (
    <Screen
      title={`Delivery log: ${name}`}
      actions={
        <button type="button" class="btn btn--secondary" onClick={() => void refresh()}>
          Refresh
        </button>
      }
    >
      <p class="integrations__lead">The last 100 calls, newest first: when, the answer's status, how long it took and what went wrong. Tokens and bodies are never kept.</p>
      <p class="dialog__status" role="status">
        {status}
      </p>
      <Problem text={problem} />
      {deliveries ? <DeliveryTable deliveries={deliveries} onRedeliver={section === 'outgoing_webhooks' ? (d) => void again(d) : undefined} /> : <p>Loading…</p>}
      <div class="integrations__form-actions">
        <ViewLink class="btn btn--secondary" team={team.name} view={{ page: 'list', section }}>
          {section === 'outgoing_webhooks' ? 'Back to outgoing webhooks' : 'Back to slash commands'}
        </ViewLink>
      </div>
    </Screen>
  );
}
