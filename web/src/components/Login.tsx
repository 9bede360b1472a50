import { useState } from 'preact/hooks';
import { login, type LoginFailure } from '../actions/session';
import { followLink } from '../links';
import { canSignUp } from '../state/selectors';
import { useStore } from '../state/use-store';
import { Logo } from './Logo';

const MESSAGES: Record<LoginFailure, string> = {
  credentials: 'The email, username or password is incorrect. Please try again.',
  locked: 'Your account is locked because of too many failed login attempts. Ask a system administrator to reset your password.',
  down: 'Parley cannot be reached right now. Check your connection, or try again in a moment.',
  other: '',
};

export function Login() {
  const route = useStore((s) => s.route);
  const notice = useStore((s) => s.loginNotice);
  const siteName = useStore((s) => s.config.SiteName) || 'Parley';
  const signUpAllowed = useStore((s) => canSignUp(s.config));
  const [loginId, setLoginId] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ reason: LoginFailure; text: string } | null>(null);
  const redirectTo = route.kind === 'login' ? route.redirectTo : '';

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    if (!loginId.trim() || !password) {
      setError({ reason: 'credentials', text: 'Enter your email or username, and your password.' });
      return;
    }
    setBusy(true);
    setError(null);
    const result = await login(loginId.trim(), password, redirectTo);
    if (!result.ok) {
      setBusy(false);
      setError({ reason: result.reason, text: MESSAGES[result.reason] || result.message });
      if (result.reason === 'credentials') setPassword('');
    }
  };

  const invalid = error?.reason === 'credentials';
  return (
    <main class="login">
      <div class="login__card">
        <div class="login__brand">
          <Logo size={40} />
          <span>{siteName}</span>
        </div>
        <h1 class="login__title">Log in to your account</h1>
        {notice && !error && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        {error && (
          <div class={`alert alert--${error.reason}`} role="alert" id="login-error" data-reason={error.reason}>
            {error.text}
          </div>
        )}
        <form class="login__form" onSubmit={submit} noValidate>
          <label class="field">
            <span class="field__label">Email or username</span>
            <input
              class="input"
              name="login_id"
              autoComplete="username"
              autoFocus
              value={loginId}
              aria-invalid={invalid}
              aria-describedby={error ? 'login-error' : undefined}
              onInput={(e) => setLoginId(e.currentTarget.value)}
            />
          </label>
          <label class="field">
            <span class="field__label">Password</span>
            <input
              class="input"
              type="password"
              name="password"
              autoComplete="current-password"
              value={password}
              aria-invalid={invalid}
              aria-describedby={error ? 'login-error' : undefined}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </label>
          <button type="submit" class="btn btn--primary btn--block" disabled={busy}>
            {busy ? 'Logging in…' : 'Log in'}
          </button>
        </form>
        {signUpAllowed && (
          <p class="login__alt">
            Don't have an account?{' '}
            <a href="/signup_user_complete" onClick={(e) => followLink(e, '/signup_user_complete')}>
              Create an account
            </a>
          </p>
        )}
      </div>
    </main>
  );
}
