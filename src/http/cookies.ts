/**
 * The cookies of a browser session, as Mattermost's web app expects them: MMAUTHTOKEN carries the session token
 * (HttpOnly: page scripts never see it), MMUSERID the user's id and MMCSRF the token the page sends back in
 * X-CSRF-Token on every state-changing request (readable by the page, useless to another site, which cannot read it).
 */
export const AUTH_COOKIE = 'MMAUTHTOKEN';
export const USER_COOKIE = 'MMUSERID';
export const CSRF_COOKIE = 'MMCSRF';

export interface SessionCookies {
  token: string;
  userId: string;
  csrfToken: string;
  expiresAt: number;
  now: number;
  /** Over HTTPS (a SiteURL starting https://) the cookies are marked Secure. */
  secure: boolean;
}

function cookie(name: string, value: string, maxAgeSeconds: number, expires: Date, opts: { httpOnly: boolean; secure: boolean }): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', `Max-Age=${maxAgeSeconds}`, `Expires=${expires.toUTCString()}`, 'SameSite=Lax'];
  if (opts.httpOnly) parts.push('HttpOnly');
  if (opts.secure) parts.push('Secure');
  return parts.join('; ');
}

/** The Set-Cookie values that open a browser session. */
export function sessionCookies(s: SessionCookies): string[] {
  const maxAge = Math.max(0, Math.round((s.expiresAt - s.now) / 1000));
  const expires = new Date(s.expiresAt);
  return [
    cookie(AUTH_COOKIE, s.token, maxAge, expires, { httpOnly: true, secure: s.secure }),
    cookie(USER_COOKIE, s.userId, maxAge, expires, { httpOnly: false, secure: s.secure }),
    cookie(CSRF_COOKIE, s.csrfToken, maxAge, expires, { httpOnly: false, secure: s.secure }),
  ];
}

/** The Set-Cookie values that end one (logout): every session cookie expired. */
export function clearedCookies(secure: boolean): string[] {
  const past = new Date(0);
  return [AUTH_COOKIE, USER_COOKIE, CSRF_COOKIE].map((name) => cookie(name, '', 0, past, { httpOnly: name === AUTH_COOKIE, secure }));
}
