import { useState } from 'preact/hooks';
import { deleteCommand, regenCommandToken, saveCommand, type CommandInput } from '../actions/integrations';
import type { Team } from '../api';
import type { FieldErrors } from '../integrations-errors';
import { integrationsPath } from '../integrations-routes';
import { navigate } from '../router';
import type { Command } from '../state/integrations-state';
import { useStore } from '../state/use-store';
import { FormField } from './FormField';
import { IntegrationItem, IntegrationList } from './IntegrationList';
import { CheckField, Problem, Screen, SelectField, ViewLink } from './IntegrationsParts';
import { TokenConfirm, TokenRow } from './OutgoingWebhooks';

/** A team's custom slash commands: the list, the add and edit form, the confirmation with the token. */

const METHODS = [
  { value: 'P', label: 'POST' },
  { value: 'G', label: 'GET' },
];

function CommandItem({ team, command }: { team: Team; command: Command }) {
  const title = command.display_name || `/${command.trigger}`;
  return (
    <IntegrationItem
      team={team}
      section="commands"
      id={command.id}
      title={title}
      heading={
        <>
          {title} <span class="integrations__trigger">{`/${command.trigger}`}</span>
        </>
      }
      description={command.description}
      creator={{ id: command.creator_id, at: command.create_at }}
      deliveries
      confirm={{ title: 'Delete slash command', body: `Delete /${command.trigger}? Typing it will no longer call your service. This cannot be undone.` }}
      onDelete={() => deleteCommand(command.id)}
      facts={
        <>
          <dt>Request</dt>
          <dd class="integrations__mono">{`${command.method === 'G' ? 'GET' : 'POST'} ${command.url}`}</dd>
          {command.auto_complete && (
            <>
              <dt>Autocomplete</dt>
              <dd>{[`/${command.trigger}`, command.auto_complete_hint, command.auto_complete_desc && `— ${command.auto_complete_desc}`].filter(Boolean).join(' ')}</dd>
            </>
          )}
          <TokenRow token={command.token} name={title} onRegenerate={() => regenCommandToken(command.id)} />
        </>
      }
    />
  );
}

export function CommandList({ team }: { team: Team }) {
  return (
    <IntegrationList
      team={team}
      section="commands"
      lead="A slash command calls your service when someone types it in a channel, and shows its answer. Built-in commands (/me, /join, …) are always there."
      renderItem={(c) => <CommandItem key={c.id} team={team} command={c} />}
    />
  );
}

type CommandFields = Omit<CommandInput, 'team_id'>;

export function CommandForm({ team, commandId }: { team: Team; commandId?: string }) {
  const existing = useStore((s) => (commandId ? s.integrations.commands?.find((c) => c.id === commandId) : undefined));
  const loaded = useStore((s) => s.integrations.commands !== undefined);
  const [f, setF] = useState<CommandFields>({
    display_name: existing?.display_name ?? '',
    description: existing?.description ?? '',
    trigger: existing?.trigger ?? '',
    url: existing?.url ?? '',
    method: existing?.method === 'G' ? 'G' : 'P',
    username: existing?.username ?? '',
    icon_url: existing?.icon_url ?? '',
    auto_complete: existing?.auto_complete ?? false,
    auto_complete_hint: existing?.auto_complete_hint ?? '',
    auto_complete_desc: existing?.auto_complete_desc ?? '',
  });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  if (commandId && !existing) return <Screen title="Edit slash command">{loaded ? <p>This command does not exist, or you may not manage it.</p> : <p>Loading…</p>}</Screen>;
  const set = <K extends keyof CommandFields>(key: K) => (value: CommandFields[K]) => {
    setF((old) => ({ ...old, [key]: value }));
    setErrors((e) => ({ ...e, [key]: '' }));
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const result = await saveCommand({ ...f, team_id: team.id, trigger: f.trigger.trim(), url: f.url.trim(), display_name: f.display_name.trim(), description: f.description.trim() }, existing);
    setBusy(false);
    if (!result.ok) return setErrors(result.errors);
    navigate(existing ? integrationsPath(team.name, { page: 'list', section: 'commands' }) : integrationsPath(team.name, { page: 'confirm', section: 'commands', id: result.value.id }));
  };
  return (
    <Screen title={existing ? 'Edit slash command' : 'Add slash command'}>
      <form class="integrations__form" onSubmit={submit} noValidate>
        <FormField label="Title" name="display_name" maxLength={64} value={f.display_name} onInput={set('display_name')} error={errors.display_name} />
        <FormField label="Description" name="description" maxLength={128} value={f.description} onInput={set('description')} error={errors.description} />
        <FormField label="Command trigger word" name="trigger" prefix="/" maxLength={128} value={f.trigger} onInput={set('trigger')} error={errors.trigger} hint="One word, without the slash and without spaces (for example deploy)." />
        <FormField label="Request URL" name="url" maxLength={1024} value={f.url} onInput={set('url')} error={errors.url} hint="The http or https URL your service answers at." />
        <SelectField label="Request method" name="method" value={f.method} onChange={(v) => set('method')(v === 'G' ? 'G' : 'P')} options={METHODS} error={errors.method} />
        <FormField label="Response username" name="username" maxLength={64} value={f.username} onInput={set('username')} error={errors.username} />
        <FormField label="Response icon" name="icon_url" maxLength={1024} value={f.icon_url} onInput={set('icon_url')} error={errors.icon_url} hint="The URL of a picture for the answers' posts." />
        <CheckField label="Autocomplete" name="auto_complete" checked={f.auto_complete} onChange={set('auto_complete')} hint="Offer the command when someone types a slash in the message box." />
        {f.auto_complete && (
          <>
            <FormField label="Autocomplete hint" name="auto_complete_hint" value={f.auto_complete_hint} onInput={set('auto_complete_hint')} error={errors.auto_complete_hint} hint="The arguments, for example [service]." />
            <FormField label="Autocomplete description" name="auto_complete_desc" value={f.auto_complete_desc} onInput={set('auto_complete_desc')} error={errors.auto_complete_desc} />
          </>
        )}
        <Problem text={errors.form ?? ''} />
        <div class="integrations__form-actions">
          <ViewLink class="btn btn--secondary" team={team.name} view={{ page: 'list', section: 'commands' }}>
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

export function CommandConfirm({ team, commandId }: { team: Team; commandId: string }) {
  const command = useStore((s) => s.integrations.commands?.find((c) => c.id === commandId));
  if (!command) return <Screen title="Setup successful">{<p>Loading…</p>}</Screen>;
  return <TokenConfirm team={team} kind="slash command" name={`/${command.trigger}`} token={command.token} section="commands" />;
}
