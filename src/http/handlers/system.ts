import { authed, ok, type Handler } from '../operation';

export const GetPing: Handler<'GetPing'> = async ({ query, app }) => {
  const body = await app.system.ping(query.get_server_status === true);
  // With use_rest_semantics an unhealthy server answers 500, so plain HTTP health checks see it.
  return { status: body.status === 'OK' || !query.use_rest_semantics ? 200 : 500, body };
};

export const GetClientConfig: Handler<'GetClientConfig'> = async ({ query, session, app }) =>
  ok(await app.system.clientConfig(query.format, session), { headers: { 'Cache-Control': 'no-cache, no-store, must-revalidate' } });

export const GetConfig = authed<'GetConfig'>(async ({ session, app }) =>
  ok(app.system.getConfig(session), { headers: { 'Cache-Control': 'no-cache, no-store, must-revalidate' } }),
);

export const PatchConfig = authed<'PatchConfig'>(async ({ body, session, app }) =>
  ok(await app.system.patchConfig(body, session), { headers: { 'Cache-Control': 'no-cache, no-store, must-revalidate' } }),
);

export const GetClientLicense: Handler<'GetClientLicense'> = async ({ query, app }) => ok(app.system.clientLicense(query.format));

export const GetServerLimits = authed<'GetServerLimits'>(async ({ session, app }) => ok(await app.system.serverLimits(session)));
