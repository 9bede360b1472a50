import { useEffect, useState } from 'preact/hooks';
import { createTeam } from '../actions/teams';
import { followLink } from '../links';
import { useStore } from '../state/use-store';
import { suggestTeamName, TEAM_DISPLAY_NAME_MAX, TEAM_NAME_MAX, TEAM_NAME_MESSAGES, teamNameProblem } from '../team-name';
import { Logo } from './Logo';
import { FormField } from './FormField';

/**
 * Creating a team (the first one after the first account, or another later): a display name, and the URL name
 * suggested from it (editable), checked as the server checks it before asking the server.
 */
export function CreateTeam() {
  const siteName = useStore((s) => s.config.SiteName) || 'Parley';
  const hasTeams = useStore((s) => s.teams.length > 0);
  const [displayName, setDisplayName] = useState('');
  const [name, setName] = useState('');
  const [nameEdited, setNameEdited] = useState(false);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<{ display_name?: string; name?: string; form?: string }>({});

  useEffect(() => {
    document.title = `Create a team - ${siteName}`;
  }, [siteName]);

  // An edited field's error goes: it was about the old value.
  const onDisplayName = (value: string) => {
    setDisplayName(value);
    if (!nameEdited) setName(suggestTeamName(value));
    setErrors((e) => ({ ...e, display_name: undefined, name: nameEdited ? e.name : undefined }));
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const next: typeof errors = {};
    const shown = displayName.trim();
    if (!shown) next.display_name = 'Enter a name for the team.';
    else if (Array.from(shown).length > TEAM_DISPLAY_NAME_MAX) next.display_name = `The name can be at most ${TEAM_DISPLAY_NAME_MAX} characters long.`;
    const problem = teamNameProblem(name);
    if (problem) next.name = TEAM_NAME_MESSAGES[problem];
    setErrors(next);
    if (next.display_name || next.name) return;
    setBusy(true);
    const result = await createTeam(shown, name);
    if (!result.ok) {
      setBusy(false);
      setErrors({ [result.field]: result.message });
    }
  };

  return (
    <main class="login">
      <div class="login__card">
        <div class="login__brand">
          <Logo size={40} />
          <span>{siteName}</span>
        </div>
        <h1 class="login__title">Create a team</h1>
        <p class="login__lead">A team is where people work together: it has its own channels and members. You can invite people once it exists.</p>
        {errors.form && (
          <div class="alert" role="alert">
            {errors.form}
          </div>
        )}
        <form class="login__form" onSubmit={submit} noValidate>
          <FormField label="Team name" name="display_name" autoFocus maxLength={TEAM_DISPLAY_NAME_MAX} value={displayName} onInput={onDisplayName} hint="Shown in menus and headings." error={errors.display_name} />
          <FormField
            label="Team URL"
            name="name"
            maxLength={TEAM_NAME_MAX}
            prefix={`${location.host}/`}
            value={name}
            onInput={(v) => {
              setNameEdited(true);
              setName(v);
              setErrors((e) => ({ ...e, name: undefined }));
            }}
            hint="2 to 64 lower-case letters, digits and dashes."
            error={errors.name}
          />
          <button type="submit" class="btn btn--primary btn--block" disabled={busy}>
            {busy ? 'Creating team…' : 'Create team'}
          </button>
        </form>
        {hasTeams && (
          <p class="login__alt">
            <a href="/" onClick={(e) => followLink(e, '/')}>
              Back to your channels
            </a>
          </p>
        )}
      </div>
    </main>
  );
}
