import { useState } from 'preact/hooks';
import { createBotToken, forgetNewToken, revokeBotToken, saveBot, setBotEnabled, type BotInput } from '../actions/integrations';
import type { Team } from '../api';
import type { FieldErrors } from '../integrations-errors';
import { integrationsPath } from '../integrations-routes';
import { navigate } from '../router';
import type { Bot, UserAccessToken } from '../state/integrations-state';
import { useStore } from '../state/use-store';
import { ConfirmDialog } from './ConfirmDialog';
import { FormField } from './FormField';
import { AreaField, CopyField, Problem, Screen, ViewLink, formatTime } from './IntegrationsParts';

/** Bot accounts: enabled and disabled bots, adding and editing them, disabling and enabling, their access tokens. */

/** A token's secret, shown once: the person copies it, then it is forgotten. */
function NewToken({ token }: { token: string }) {
  return (
    <div class="integrations__new-token" role="group" aria-label="New token">
      <CopyField label="Access token" value={token} />
      <p class="hint">Copy it now: it is shown only once. Use it as <code>Authorization: Bearer &lt;token&gt;</code>.</p>
      <button type="button" class="btn btn--secondary btn--small" onClick={forgetNewToken}>
        I copied it
      </button>
    </div>
  );
}

function TokenItem({ bot, token }: { bot: Bot; token: UserAccessToken }) {
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState('');
  const label = token.description || token.id;
  return (
    <li class="integrations__token">
      <span>
        <strong>{label}</strong> <span class="hint">{`id ${token.id}${token.is_active ? '' : ', inactive'}`}</span>
      </span>
      <button type="button" class="btn btn--secondary btn--small" onClick={() => setConfirming(true)}>
        Revoke <span class="sr-only">{`token ${label}`}</span>
      </button>
      <Problem text={problem} />
      {confirming && (
        <ConfirmDialog
          title="Revoke token"
          body={`Revoke the token "${label}" of @${bot.username}? Anything using it stops working at once.`}
          confirmLabel="Revoke"
          onCancel={() => setConfirming(false)}
          onConfirm={async () => {
            setConfirming(false);
            setProblem((await revokeBotToken(bot.user_id, token.id)) ?? '');
          }}
        />
      )}
    </li>
  );
}

function Tokens({ bot }: { bot: Bot }) {
  const tokens = useStore((s) => s.integrations.botTokens[bot.user_id]);
  const fresh = useStore((s) => (s.integrations.newToken?.userId === bot.user_id ? s.integrations.newToken : undefined));
  const [adding, setAdding] = useState(false);
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const create = async (e: Event) => {
    e.preventDefault();
    const result = await createBotToken(bot.user_id, description.trim());
    if (!result.ok) return setErrors({ token_description: result.errors.token_description ?? Object.values(result.errors)[0] });
    setAdding(false);
    setDescription('');
    setErrors({});
  };
  return (
    <div class="integrations__tokens">
      <h4 class="integrations__subhead">Access tokens</h4>
      {tokens && tokens.length === 0 && <p class="hint">No tokens.</p>}
      {tokens && tokens.length > 0 && (
        <ul class="integrations__token-list">
          {tokens.map((t) => (
            <TokenItem key={t.id} bot={bot} token={t} />
          ))}
        </ul>
      )}
      {fresh && <NewToken token={fresh.token} />}
      {adding ? (
        <form class="integrations__token-form" onSubmit={create} noValidate>
          <FormField label="Token description" name="token_description" autoFocus value={description} onInput={setDescription} error={errors.token_description} />
          <div class="integrations__form-actions">
            <button type="button" class="btn btn--secondary btn--small" onClick={() => setAdding(false)}>
              Cancel
            </button>
            <button type="submit" class="btn btn--primary btn--small">
              Save token
            </button>
          </div>
        </form>
      ) : (
        bot.delete_at === 0 && (
          <button type="button" class="btn btn--secondary btn--small" onClick={() => setAdding(true)}>
            Create new token <span class="sr-only">{`for @${bot.username}`}</span>
          </button>
        )
      )}
    </div>
  );
}

function BotItem({ team, bot }: { team: Team; bot: Bot }) {
  const owner = useStore((s) => s.users[bot.owner_id]);
  const [problem, setProblem] = useState('');
  const name = bot.display_name ? `${bot.display_name} (@${bot.username})` : `@${bot.username}`;
  return (
    <li class={`integrations__item${bot.delete_at ? ' is-disabled' : ''}`}>
      <div class="integrations__item-main">
        <h3 class="integrations__item-title">
          {name} <span class="integrations__bot-badge">BOT</span>
        </h3>
        {bot.description && <p class="integrations__item-desc">{bot.description}</p>}
        <span class="hint">{`Managed by ${owner ? `@${owner.username}` : 'someone'}, created on ${formatTime(bot.create_at)}`}</span>
        {bot.delete_at === 0 ? <Tokens bot={bot} /> : <p class="hint">Disabled: its tokens do not work until it is enabled again.</p>}
        <Problem text={problem} />
      </div>
      <div class="integrations__item-actions">
        {bot.delete_at === 0 && (
          <ViewLink class="btn btn--secondary btn--small" team={team.name} view={{ page: 'edit', section: 'bots', id: bot.user_id }}>
            Edit <span class="sr-only">{`@${bot.username}`}</span>
          </ViewLink>
        )}
        <button type="button" class="btn btn--secondary btn--small" onClick={async () => setProblem((await setBotEnabled(bot.user_id, bot.delete_at !== 0)) ?? '')}>
          {bot.delete_at === 0 ? 'Disable' : 'Enable'} <span class="sr-only">{`@${bot.username}`}</span>
        </button>
      </div>
    </li>
  );
}

export function BotList({ team }: { team: Team }) {
  const bots = useStore((s) => s.integrations.bots);
  const error = useStore((s) => s.integrations.errors.bots);
  const creation = useStore((s) => s.config.EnableBotAccountCreation === 'true');
  const sorted = [...(bots ?? [])].sort((a, b) => a.username.localeCompare(b.username));
  const enabled = sorted.filter((b) => b.delete_at === 0);
  const disabled = sorted.filter((b) => b.delete_at !== 0);
  return (
    <Screen
      title="Bot accounts"
      actions={
        creation && (
          <ViewLink class="btn btn--primary" team={team.name} view={{ page: 'add', section: 'bots' }}>
            Add bot account
          </ViewLink>
        )
      }
    >
      <p class="integrations__lead">Bots are accounts for programs: they post as themselves and sign in with access tokens only.</p>
      {!creation && <p class="notice">Creating bot accounts is turned off on this server. A system admin can turn it on (ServiceSettings.EnableBotAccountCreation).</p>}
      <Problem text={error ?? ''} />
      {!bots && !error && <p class="integrations__empty">Loading…</p>}
      {bots && sorted.length === 0 && <p class="integrations__empty">No bot accounts yet.</p>}
      {enabled.length > 0 && (
        <>
          <h3 class="integrations__group">Enabled</h3>
          <ul class="integrations__list">
            {enabled.map((b) => (
              <BotItem key={b.user_id} team={team} bot={b} />
            ))}
          </ul>
        </>
      )}
      {disabled.length > 0 && (
        <>
          <h3 class="integrations__group">Disabled</h3>
          <ul class="integrations__list">
            {disabled.map((b) => (
              <BotItem key={b.user_id} team={team} bot={b} />
            ))}
          </ul>
        </>
      )}
    </Screen>
  );
}

export function BotForm({ team, botId }: { team: Team; botId?: string }) {
  const existing = useStore((s) => (botId ? s.integrations.bots?.find((b) => b.user_id === botId) : undefined));
  const loaded = useStore((s) => s.integrations.bots !== undefined);
  const creation = useStore((s) => s.config.EnableBotAccountCreation === 'true');
  const [f, setF] = useState<BotInput>({ username: existing?.username ?? '', display_name: existing?.display_name ?? '', description: existing?.description ?? '' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  if (botId && !existing) return <Screen title="Edit bot account">{loaded ? <p>This bot does not exist, or you may not manage it.</p> : <p>Loading…</p>}</Screen>;
  if (!botId && !creation) {
    return (
      <Screen title="Add bot account">
        <p class="notice">Creating bot accounts is turned off on this server. A system admin can turn it on (ServiceSettings.EnableBotAccountCreation).</p>
      </Screen>
    );
  }
  const set = (key: keyof BotInput) => (value: string) => {
    setF((old) => ({ ...old, [key]: value }));
    setErrors((e) => ({ ...e, [key]: '' }));
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const result = await saveBot({ username: f.username.trim(), display_name: f.display_name.trim(), description: f.description.trim() }, existing);
    if (!result.ok) {
      setBusy(false);
      return setErrors(result.errors);
    }
    // As Mattermost's web app: a new bot gets a first token, shown once on the next screen.
    if (!existing) await createBotToken(result.value.user_id, 'Default Token');
    setBusy(false);
    navigate(existing ? integrationsPath(team.name, { page: 'list', section: 'bots' }) : integrationsPath(team.name, { page: 'confirm', section: 'bots', id: result.value.user_id }));
  };
  return (
    <Screen title={existing ? 'Edit bot account' : 'Add bot account'}>
      <form class="integrations__form" onSubmit={submit} noValidate>
        <FormField label="Username" name="username" prefix="@" maxLength={64} value={f.username} onInput={set('username')} error={errors.username} hint="Lower-case letters, digits and . - _; it must start with a letter." />
        <FormField label="Display name" name="display_name" maxLength={64} value={f.display_name} onInput={set('display_name')} error={errors.display_name} />
        <AreaField label="Description" name="description" value={f.description} onInput={set('description')} error={errors.description} hint="What the bot does, at most 1024 characters." />
        <Problem text={errors.form ?? ''} />
        <div class="integrations__form-actions">
          <ViewLink class="btn btn--secondary" team={team.name} view={{ page: 'list', section: 'bots' }}>
            Cancel
          </ViewLink>
          <button type="submit" class="btn btn--primary" disabled={busy}>
            {existing ? 'Update' : 'Create bot account'}
          </button>
        </div>
      </form>
    </Screen>
  );
}

export function BotConfirm({ team, botId }: { team: Team; botId: string }) {
  const bot = useStore((s) => s.integrations.bots?.find((b) => b.user_id === botId));
  const fresh = useStore((s) => (s.integrations.newToken?.userId === botId ? s.integrations.newToken : undefined));
  return (
    <Screen title="Setup successful">
      <p>{bot ? `The bot @${bot.username} is ready.` : 'The bot is ready.'} Add it to the teams and channels it works in, and give your program its token.</p>
      {fresh ? (
        <>
          <CopyField label="Access token" value={fresh.token} />
          <p class="hint">Copy it now: it is shown only once. Use it as <code>Authorization: Bearer &lt;token&gt;</code>.</p>
        </>
      ) : (
        <p class="hint">Its token was shown once. Create a new one from the bot's card when you need it.</p>
      )}
      <div class="integrations__form-actions">
        <button
          type="button"
          class="btn btn--primary"
          onClick={() => {
            forgetNewToken();
            navigate(integrationsPath(team.name, { page: 'list', section: 'bots' }));
          }}
        >
          Done
        </button>
      </div>
    </Screen>
  );
}
