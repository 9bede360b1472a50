import { useEffect, useState } from 'preact/hooks';
import { deleteIncoming, loadIncoming, regenSigningSecret, saveIncoming, type IncomingInput } from '../actions/integrations';
import type { Team } from '../api';
import type { FieldErrors } from '../integrations-errors';
import { curlExample, incomingHookUrl, integrationsPath } from '../integrations-routes';
import { navigate } from '../router';
import type { IncomingWebhook } from '../state/integrations-state';
import { useStore } from '../state/use-store';
import { FormField } from './FormField';
import { IntegrationItem, IntegrationList } from './IntegrationList';
import { CheckField, CopyField, Problem, Screen, SelectField, ViewLink } from './IntegrationsParts';

/** Incoming webhooks of a team: the list, the add and edit form, and the confirmation with the hook's URL. */

export function useHookUrl(hookId: string): string {
  const siteUrl = useStore((s) => s.config.SiteURL);
  return incomingHookUrl(siteUrl, location.origin, hookId);
}

/** The channels a hook may post to: the viewer's public and private channels of the team. */
export function useTeamChannelOptions(teamId: string, withAny?: string): Array<{ value: string; label: string }> {
  const ids = useStore((s) => s.teamChannels[teamId]);
  const channels = useStore((s) => s.channels);
  const list = (ids ?? [])
    .map((id) => channels[id])
    .filter((c) => c && c.delete_at === 0 && (c.type === 'O' || c.type === 'P'))
    .sort((a, b) => a.display_name.localeCompare(b.display_name))
    .map((c) => ({ value: c.id, label: `${c.display_name}${c.type === 'P' ? ' (private)' : ''}` }));
  return withAny !== undefined ? [{ value: '', label: withAny }, ...list] : [{ value: '', label: 'Select a channel' }, ...list];
}

export function ChannelName({ id }: { id: string }) {
  const channel = useStore((s) => s.channels[id]);
  if (!id) return <>any public channel</>;
  return <>{channel ? channel.display_name : 'a channel you cannot see'}</>;
}

function HookItem({ team, hook }: { team: Team; hook: IncomingWebhook }) {
  const url = useHookUrl(hook.id);
  const title = hook.display_name || hook.description || 'Incoming webhook';
  return (
    <IntegrationItem
      team={team}
      section="incoming_webhooks"
      id={hook.id}
      title={title}
      description={hook.display_name ? hook.description : ''}
      creator={{ id: hook.user_id, at: hook.create_at }}
      confirm={{ title: 'Delete incoming webhook', body: `Delete "${title}"? Integrations posting to its URL will stop working. This cannot be undone.` }}
      onDelete={() => deleteIncoming(hook.id)}
      facts={
        <>
          <dt>Channel</dt>
          <dd>
            <ChannelName id={hook.channel_id} />
            {hook.channel_locked ? ' (locked)' : ''}
          </dd>
          <dt>URL</dt>
          <dd class="integrations__mono">{url}</dd>
          {hook.username && (
            <>
              <dt>Username</dt>
              <dd>{hook.username}</dd>
            </>
          )}
        </>
      }
    />
  );
}

export function IncomingList({ team }: { team: Team }) {
  return (
    <IntegrationList
      team={team}
      section="incoming_webhooks"
      lead="Incoming webhooks let other services post messages into a channel by sending JSON to a secret URL."
      renderItem={(h) => <HookItem key={h.id} team={team} hook={h} />}
    />
  );
}

export function IncomingForm({ team, hookId }: { team: Team; hookId?: string }) {
  const existing = useStore((s) => (hookId ? s.integrations.incoming?.find((h) => h.id === hookId) : undefined));
  const loaded = useStore((s) => s.integrations.incoming !== undefined);
  const channels = useTeamChannelOptions(team.id);
  const usernameOverride = useStore((s) => s.config.EnablePostUsernameOverride === 'true');
  const iconOverride = useStore((s) => s.config.EnablePostIconOverride === 'true');
  const [f, setF] = useState<IncomingInput>({
    channel_id: existing?.channel_id ?? '',
    display_name: existing?.display_name ?? '',
    description: existing?.description ?? '',
    username: existing?.username ?? '',
    icon_url: existing?.icon_url ?? '',
    channel_locked: existing?.channel_locked ?? false,
  });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  if (hookId && !existing) return <Screen title="Edit incoming webhook">{loaded ? <p>This webhook does not exist, or you may not manage it.</p> : <p>Loading…</p>}</Screen>;
  const set = <K extends keyof IncomingInput>(key: K) => (value: IncomingInput[K]) => {
    setF((old) => ({ ...old, [key]: value }));
    setErrors((e) => ({ ...e, [key]: '' }));
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const result = await saveIncoming({ ...f, display_name: f.display_name.trim(), description: f.description.trim(), username: f.username.trim(), icon_url: f.icon_url.trim() }, existing);
    setBusy(false);
    if (!result.ok) return setErrors(result.errors);
    navigate(existing ? integrationsPath(team.name, { page: 'list', section: 'incoming_webhooks' }) : integrationsPath(team.name, { page: 'confirm', section: 'incoming_webhooks', id: result.value.id }));
  };
  return (
    <Screen title={existing ? 'Edit incoming webhook' : 'Add incoming webhook'}>
      <form class="integrations__form" onSubmit={submit} noValidate>
        <FormField label="Title" name="display_name" maxLength={64} value={f.display_name} onInput={set('display_name')} error={errors.display_name} hint="A name for the webhook, at most 64 characters." />
        <FormField label="Description" name="description" maxLength={500} value={f.description} onInput={set('description')} error={errors.description} hint="What the webhook is for, at most 500 characters." />
        <SelectField label="Channel" name="channel_id" value={f.channel_id} onChange={set('channel_id')} options={channels} error={errors.channel_id} hint="The channel the webhook posts to, unless a message names another." />
        <CheckField label="Lock to this channel" name="channel_locked" checked={f.channel_locked} onChange={set('channel_locked')} hint="When locked, messages can only be posted to the channel above." />
        <FormField
          label="Username"
          name="username"
          maxLength={64}
          value={f.username}
          onInput={set('username')}
          error={errors.username}
          hint={usernameOverride ? 'The name the posts are shown under, instead of yours.' : 'Used only when the system admin allows integrations to override usernames.'}
        />
        <FormField
          label="Profile picture URL"
          name="icon_url"
          maxLength={1024}
          value={f.icon_url}
          onInput={set('icon_url')}
          error={errors.icon_url}
          hint={iconOverride ? 'The picture the posts are shown with, instead of yours.' : 'Used only when the system admin allows integrations to override profile pictures.'}
        />
        <Problem text={errors.form ?? ''} />
        <div class="integrations__form-actions">
          <ViewLink class="btn btn--secondary" team={team.name} view={{ page: 'list', section: 'incoming_webhooks' }}>
            Cancel
          </ViewLink>
          <button type="submit" class="btn btn--primary" disabled={busy}>
            {existing ? 'Update' : 'Save'}
          </button>
        </div>
      </form>
      {existing && <SigningSecret hook={existing} />}
    </Screen>
  );
}

/** After adding: the hook's URL to copy, a curl command to try it, and the secret its buttons' calls are signed with. */
export function IncomingConfirm({ team, hookId }: { team: Team; hookId: string }) {
  const hook = useStore((s) => s.integrations.incoming?.find((h) => h.id === hookId));
  const url = useHookUrl(hookId);
  useEffect(() => {
    if (!hook) void loadIncoming(hookId);
  }, [hookId]);
  if (!hook) return <Screen title="Setup successful">{<p>Loading…</p>}</Screen>;
  return (
    <Screen title="Setup successful">
      <p>
        Your webhook <strong>{hook.display_name || 'Incoming webhook'}</strong> is ready. Send data to this URL. Treat it as a secret: anyone who has it can post to
        the channel.
      </p>
      <CopyField label="Webhook URL" value={url} />
      <CopyField label="Try it with curl" value={curlExample(url)} multiline />
      <SigningSecret hook={hook} />
      <div class="integrations__form-actions">
        <ViewLink class="btn btn--primary" team={team.name} view={{ page: 'list', section: 'incoming_webhooks' }}>
          Done
        </ViewLink>
      </div>
    </Screen>
  );
}

/** The secret the calls of the hook's buttons are signed with (Parley's), and a way to replace it. */
function SigningSecret({ hook }: { hook: IncomingWebhook }) {
  const [problem, setProblem] = useState('');
  const [done, setDone] = useState('');
  if (!hook.signing_secret) return null;
  return (
    <div class="integrations__secret">
      <CopyField label="Signing secret" value={hook.signing_secret} />
      <p class="hint">
        Calls of the buttons and menus in this webhook's messages carry an <code>X-Parley-Signature</code> made with this secret, so your integration can check that they come from
        this server.
      </p>
      <button
        type="button"
        class="btn btn--secondary btn--small"
        onClick={async () => {
          const err = await regenSigningSecret(hook.id);
          setProblem(err ?? '');
          setDone(err ? '' : 'A new signing secret was made. The old one no longer works.');
        }}
      >
        Regenerate signing secret
      </button>
      <p class="dialog__status" role="status">
        {done}
      </p>
      <Problem text={problem} />
    </div>
  );
}
