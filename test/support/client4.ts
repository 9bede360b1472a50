import { Client4 } from '@mattermost/client';

/**
 * @mattermost/client's Client4 on a running server (in this process or a spawned one), carrying the actor's session
 * token when one is given (anonymous otherwise, e.g. to call login itself).
 */
export function client4For(server: { url: string }, actor?: { token: string }): Client4 {
  const c = new Client4();
  c.setUrl(server.url);
  if (actor) c.setToken(actor.token);
  return c;
}
