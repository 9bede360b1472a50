import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import type OpenAPIBackend from 'openapi-backend';
import type { Context } from 'openapi-backend';
import { AppError, type Session } from '../model';
import { bootSettings, loadBootConfig } from '../config/load';
import { csrfError, findToken, passesCsrfCheck } from '../http/auth';
import { discardRest, readBody } from '../http/body';
import { methodNotAllowed, readCheckedInput, routeNotFound, undecodableParam } from '../http/request-input';
import { expressPath, specRoutes, type Route, type Spec } from '../http/spec-routes';
import { stampResponse } from '../http/stamp';
import { Validators, openContract } from '../http/validation';
import { hookIdFromUrl, receivePayload, writeOk } from '../http/webhook-endpoint';
import { writeError, writeJson } from '../http/writer';
import { newId } from '../lib/ids';
import { baseUrl, parseListen } from '../lib/listen';
import { loadSpec } from '../spec';
import { reservedPropsProblems } from '../webhook/reserved-props';
import { createPayloadValidator } from '../webhook/validate';

export interface MockOptions {
  /** Listen address, e.g. "127.0.0.1:0"; default: ServiceSettings.ListenAddress (MM_SERVICESETTINGS_LISTENADDRESS, ":8065"). */
  listen?: string;
  /** Environment for the config (MM_* variables); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The bundled spec; default generated/openapi.json. */
  spec?: Record<string, unknown>;
  /** One line per request, plus warnings a payload earns; default silent. */
  log?: (line: string) => void;
}

export interface MockServer {
  server: http.Server;
  /** Base URL, e.g. http://127.0.0.1:8065 */
  url: string;
  close(): Promise<void>;
}

interface Args {
  req: http.IncomingMessage;
  res: http.ServerResponse;
}

type Operation = NonNullable<ReturnType<OpenAPIBackend['getOperation']>>;

const STAMPED = new Set(['x-request-id', 'x-version-id']);

/** Reads a request body to its end and drops it. */
function drain(req: http.IncomingMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    if (req.complete) return resolve();
    req.on('end', resolve);
    req.on('error', reject);
    req.resume();
  });
}

/** The first 2xx response code of an operation, as written in the spec. */
function successCode(operation: Operation): string | undefined {
  return Object.keys(operation.responses ?? {})
    .filter((code) => /^2\d\d$/.test(code))
    .sort()[0];
}

/** Values for the headers a success response declares beyond the two every response gets (the login Token, ETag). */
function mockHeaders(operation: Operation, code: string): Record<string, string> {
  const response = (operation.responses?.[code] ?? {}) as { headers?: Record<string, { example?: unknown; schema?: { example?: unknown } }> };
  const out: Record<string, string> = {};
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    if (STAMPED.has(name.toLowerCase())) continue;
    const example = header.example ?? header.schema?.example;
    out[name] = example !== undefined ? String(example) : name.toLowerCase() === 'etag' ? `"${newId()}"` : newId();
  }
  return out;
}

/**
 * The mock's request listener, an Express app. Express routes each request, one route per operation of the spec
 * (registered in the server's precedence, so a path matches the same operation as on the server, and a path known
 * with other methods only is a 405); each route runs the server's own request stages (the session per the spec's
 * `security`, any token standing for a session; the CSRF rule; parameters and body through
 * src/http/request-input.ts), so a bad request gets the server's AppError; then the handler openapi-backend's
 * registry binds to the operationId answers its first 2xx response, with a body openapi-backend mocks from the
 * schema (or the spec's example). POST /hooks/{hook_id} runs the server's own intake (read → decode → validate), so
 * a payload gets the server's exact answer; any well-formed hook key is taken to exist.
 */
export async function createMockListener(options: Omit<MockOptions, 'listen'> = {}): Promise<http.RequestListener> {
  const spec = options.spec ?? loadSpec();
  const { ServiceSettings: settings } = bootSettings(loadBootConfig(options.env ?? process.env));
  const log = options.log ?? (() => undefined);
  const validatePayload = createPayloadValidator(spec);
  // The server's routes in the server's order (src/http/spec-routes.ts), so a path matches the same operation.
  const routes = specRoutes(spec as unknown as Spec);
  // openapi-backend, as the server holds it: the operations, their validators (the server's request stage) and the
  // mock answers; its own routing is not used (Express routes).
  const api = await openContract(spec as unknown as Spec);
  const validators = new Validators(api, routes);
  const mockHandler = async (c: Context, { res }: Args) => {
    const operationId = c.operation.operationId as string;
    const code = successCode(c.operation);
    for (const [name, value] of Object.entries(code ? mockHeaders(c.operation, code) : {})) res.setHeader(name, value);
    // A success that is not JSON (a file, a picture): a few bytes stand for it, with its declared media type
    // (application/octet-stream where any type is declared, as for GetFile).
    const media = Object.keys(((code && c.operation.responses?.[code]) as { content?: Record<string, unknown> } | undefined)?.content ?? {});
    if (media.length > 0 && !media.includes('application/json')) {
      const bytes = Buffer.from('mock file');
      res.statusCode = Number(code);
      res.setHeader('Content-Type', media[0].includes('*') ? 'application/octet-stream' : media[0]);
      res.setHeader('Content-Length', bytes.length);
      res.end(bytes);
      return;
    }
    const { status, mock } = api.mockResponseForOperation(operationId, code ? { code: Number(code) } : {});
    writeJson(res, status, mock);
  };
  api.register(Object.fromEntries(routes.map((route) => [route.operationId, mockHandler])));

  const hook = async (req: http.IncomingMessage, res: http.ServerResponse, hookId: string): Promise<string[]> => {
    const payload = await receivePayload(req, hookId, {
      maximumPayloadSizeBytes: settings.MaximumPayloadSizeBytes,
      incomingWebhooksEnabled: () => settings.EnableIncomingWebhooks,
      validatePayload,
    });
    writeOk(res);
    // The server accepts these and silently overwrites or drops them; the mock says so.
    return reservedPropsProblems(payload).map((p) => `warning: ${p.path.slice(1).replace(/\//g, '.')}: ${p.message}`);
  };

  const serve = (route: Route) => {
    const operation = api.getOperation(route.operationId) as Operation;
    const handler = api.handlers[route.operationId] as (c: Context, args: Args) => Promise<void>;
    const upload = Boolean(route.operation.requestBody?.content?.['multipart/form-data']);
    return async (req: Request, res: Response): Promise<void> => {
      res.locals.upload = upload;
      // The session before the body (the server's 401 for an operation whose `security` requires one), then the
      // CSRF rule for a cookie-borne token (any X-CSRF-Token stands for the session's).
      const found = findToken(req);
      if (!found && route.needsSession) throw AppError.unauthorized();
      const sentCsrf = req.headers['x-csrf-token'];
      const session = { csrfToken: typeof sentCsrf === 'string' ? sentCsrf : '' } as Session;
      if (found && !passesCsrfCheck(req, session, found.fromCookie, settings.ExperimentalStrictCSRFEnforcement)) throw csrfError();
      const url = req.originalUrl;
      const q = url.indexOf('?');
      const params = { ...req.params } as Record<string, string>;
      const input = await readCheckedInput(req, validators.for(route.operationId), params, q < 0 ? '' : url.slice(q + 1), settings.MaximumPayloadSizeBytes);
      // An upload (UploadFile): the mock keeps nothing, so its bytes are read and dropped, never held.
      if (input.streamed) await drain(req);
      const request = { method: req.method, path: req.path, headers: req.headers, params, query: input.query, requestBody: input.body, body: input.body, cookies: {} };
      await handler({ api, operation, request, validation: { valid: true, errors: null }, security: {}, response: undefined } as unknown as Context, { req, res });
    };
  };

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use((req: Request, res: Response, next: NextFunction) => {
    const requestId = stampResponse(res);
    res.locals.requestId = requestId;
    const warnings: string[] = [];
    res.locals.warnings = warnings;
    // A slash command's response URL: its body read as the server reads it (JSON must parse; any other type is text),
    // then "ok" (the mock keeps no response URLs: any id is taken to be one).
    if (req.method === 'POST' && req.url.startsWith('/hooks/commands/')) {
      readBody(req, settings.MaximumPayloadSizeBytes)
        .then((body) => {
          if ((req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase() === 'application/json') {
            try {
              JSON.parse(body.toString('utf8'));
            } catch {
              throw AppError.badRequest('web.command_webhook.parse.app_error', 'Unable to parse incoming data.');
            }
          }
          writeOk(res);
        })
        .catch(next);
      return;
    }
    const isHook = req.method === 'POST' && req.url.startsWith('/hooks/');
    res.on('finish', () => {
      log(`${req.method} ${isHook ? '/hooks/{hook_id}' : req.originalUrl.split('?')[0]} ${res.statusCode}`);
      for (const warning of warnings) log(`  ${warning}`);
    });
    if (!isHook) {
      if (req.method === 'GET') res.setHeader('Expires', '0');
      next();
      return;
    }
    hook(req, res, hookIdFromUrl(req.url)).then((w) => warnings.push(...w), next);
  });

  // Case-sensitive and strict (a trailing slash is another path), as the server's router.
  const router = express.Router({ caseSensitive: true, strict: true });
  for (const route of routes) router[route.method.toLowerCase() as 'get' | 'put' | 'post' | 'delete' | 'patch'](expressPath(route.path), serve(route));
  // A path the spec has, with another method: 405. Registered after every operation, so a literal path that lacks the
  // method still falls back to a parameter path that has it (GET /users/login is GetUser), as on the server.
  for (const path of new Set(routes.map((r) => r.path))) router.all(expressPath(path), () => Promise.reject(methodNotAllowed()));
  app.use(router);
  app.use(() => Promise.reject(routeNotFound()));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    // Express could not decode a path parameter (a malformed %-escape): as on the server.
    const refused = err instanceof URIError ? undecodableParam() : err;
    // An upload refused before its body was read (401, a bad parameter): the rest is dropped, not read.
    if (res.locals.upload && !req.complete && req.listenerCount('data') === 0) discardRest(req);
    writeError(res, refused, res.locals.requestId as string);
  });
  return app as unknown as http.RequestListener;
}

/** Starts the mock on `listen` (default: the configured ListenAddress, ":8065"). */
export async function startMock(options: MockOptions = {}): Promise<MockServer> {
  const listener = await createMockListener(options);
  const address = options.listen ?? bootSettings(loadBootConfig(options.env ?? process.env)).ServiceSettings.ListenAddress;
  const { host, port } = parseListen(address);
  const server = http.createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    url: baseUrl(server.address() as AddressInfo),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const USAGE = `Usage: npm run mock [-- --listen HOST:PORT | --port PORT]

Serves every operation of generated/openapi.json with a mock response valid for its schema, and
POST /hooks/{hook_id} with the real server's payload checks. Default address: ServiceSettings.ListenAddress
(MM_SERVICESETTINGS_LISTENADDRESS, else ":8065"); PORT in the environment also sets the port.
`;

function listenFromArgs(argv: string[], env: NodeJS.ProcessEnv): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => inline ?? argv[++i];
    if (flag === '--listen') return value();
    if (flag === '--port') return `:${value()}`;
    if (flag === '--help' || flag === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    throw new Error(`unknown argument "${argv[i]}"\n\n${USAGE}`);
  }
  return env.PORT ? `:${env.PORT}` : undefined;
}

async function main(): Promise<void> {
  const spec = loadSpec();
  const mock = await startMock({
    listen: listenFromArgs(process.argv.slice(2), process.env),
    spec,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  const methods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);
  const operations = Object.values(spec.paths as Record<string, Record<string, unknown>>).reduce((n, item) => n + Object.keys(item).filter((k) => methods.has(k)).length, 0);
  process.stdout.write(`Parley mock listening on ${mock.url} (${operations} operations from generated/openapi.json)\n`);
  const stop = () => void mock.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`parley mock: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
