import { useEffect, useState } from 'preact/hooks';
import { signUp, type SignUpField } from '../actions/session';
import { inviteInfo, type InviteInfo } from '../actions/teams';
import { followLink } from '../links';
import { loginPath, signupPath } from '../routes';
import { canSignUp } from '../state/selectors';
import { useStore } from '../state/use-store';
import { FormField } from './FormField';
import { Logo } from './Logo';

type Invite = { state: 'none' } | { state: 'loading' } | { state: 'ok'; team: InviteInfo } | { state: 'bad'; message: string };

/**
 * "Create account": the first account of an empty server (it becomes the system admin), an invited person's (the
 * invite link's team is joined with it), or anyone's where the server allows open sign-up.
 */
export function Signup() {
  const route = useStore((s) => s.route);
  const config = useStore((s) => s.config);
  const siteName = config.SiteName || 'Parley';
  const inviteId = route.kind === 'signup' ? route.inviteId : '';
  const first = config.NoAccounts === 'true';
  const [invite, setInvite] = useState<Invite>(inviteId ? { state: 'loading' } : { state: 'none' });
  const [email, setEmail] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ field: SignUpField; text: string } | null>(null);

  useEffect(() => {
    if (!inviteId) return setInvite({ state: 'none' });
    setInvite({ state: 'loading' });
    void inviteInfo(inviteId).then((r) => setInvite(r.ok ? { state: 'ok', team: r.team } : { state: 'bad', message: r.message }));
  }, [inviteId]);

  useEffect(() => {
    document.title = `Create account - ${siteName}`;
  }, [siteName]);

  const allowed = invite.state === 'ok' ? config.EnableUserCreation !== 'false' : canSignUp(config);
  const loginHref = loginPath(inviteId ? signupPath(inviteId) : undefined);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const missing = !email.trim() ? 'email' : !username.trim() ? 'username' : !password ? 'password' : null;
    if (missing) {
      setError({ field: missing, text: `Enter ${missing === 'email' ? 'your email address' : missing === 'username' ? 'a username' : 'a password'}.` });
      return;
    }
    setBusy(true);
    setError(null);
    const result = await signUp({ email: email.trim(), username: username.trim().toLowerCase(), password }, invite.state === 'ok' ? { id: inviteId, teamName: invite.team.name } : null);
    if (!result.ok) {
      setBusy(false);
      setError({ field: result.field, text: result.message });
    }
  };

  const fieldError = (f: SignUpField) => (error?.field === f ? error.text : undefined);
  return (
    <main class="login">
      <div class="login__card">
        <div class="login__brand">
          <Logo size={40} />
          <span>{siteName}</span>
        </div>
        <h1 class="login__title">{invite.state === 'ok' ? `Create an account to join ${invite.team.display_name}` : 'Create account'}</h1>
        {first && (
          <p class="notice">This is the first account on this server: it will be the system administrator. Next you create the first team.</p>
        )}
        {invite.state === 'loading' && <p role="status">Checking the invite link…</p>}
        {invite.state === 'bad' && (
          <div class="alert" role="alert">
            This invite link is not valid: {invite.message} Ask the person who sent it for a new one.
          </div>
        )}
        {invite.state !== 'loading' && invite.state !== 'bad' && !allowed && (
          <div class="alert" role="alert">
            This server does not allow creating an account here. Ask a system administrator for an invite link.
          </div>
        )}
        {error?.field === 'form' && (
          <div class="alert" role="alert">
            {error.text}
          </div>
        )}
        {invite.state !== 'loading' && invite.state !== 'bad' && allowed && (
          <form class="login__form" onSubmit={submit} noValidate>
            <FormField label="Email" type="email" name="email" autoComplete="email" autoFocus value={email} onInput={setEmail} error={fieldError('email')} />
            <FormField
              label="Username"
              name="username"
              autoComplete="username"
              maxLength={64}
              value={username}
              onInput={setUsername}
              hint="Lower-case letters, digits and . - _"
              error={fieldError('username')}
            />
            <FormField label="Password" type="password" name="password" autoComplete="new-password" value={password} onInput={setPassword} error={fieldError('password')} />
            <button type="submit" class="btn btn--primary btn--block" disabled={busy}>
              {busy ? 'Creating account…' : 'Create account'}
            </button>
          </form>
        )}
        {!first && (
          <p class="login__alt">
            Already have an account?{' '}
            <a href={loginHref} onClick={(e) => followLink(e, loginHref)}>
              Log in
            </a>
          </p>
        )}
      </div>
    </main>
  );
}
