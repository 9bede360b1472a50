import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAPIBackend, { type Context, type Document, type Request as RouteRequest } from 'openapi-backend';
import { AppError } from '../model';
import { bootSettings, loadBootConfig } from '../config/load';
import { tokenFromRequest } from '../http/auth';
import { readBody } from '../http/body';
import { stampResponse } from '../http/stamp';
import { hookIdFromUrl, receivePayload, writeOk } from '../http/webhook-endpoint';
import { writeError, writeJson } from '../http/writer';
import { newId } from '../lib/ids';
import { baseUrl, parseListen } from '../lib/listen';
import { loadSpec } from '../spec';
import { reservedPropsProblems } from '../webhook/reserved-props';
import { createPayloadValidator } from '../webhook/validate';
import { routerErrorHandlers } from '../http/router-errors';

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

const JSON_TYPE = /^application\/(.+\+)?json\s*(;|$)/i;
const NO_BODY = new Set(['GET', 'HEAD', 'DELETE']);
const STAMPED = new Set(['x-request-id', 'x-version-id']);

/** Reads a request body to its end and drops it. */
function drain(req: http.IncomingMessage): Promise<void> {
  return new Promise((resolve, reject) => {
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

/** Query parameters the operation declares; the rest are dropped, as the server ignores them (Client4 sends extras). */
function declaredQuery(operation: Operation | undefined, query: Record<string, string | string[]>): Record<string, string | string[]> {
  if (!operation) return query;
  const names = new Set(
    ((operation.parameters ?? []) as Array<{ in?: string; name?: string }>).filter((p) => p.in === 'query').map((p) => p.name),
  );
  return Object.fromEntries(Object.entries(query).filter(([name]) => names.has(name)));
}

function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    out[key] = values.length === 1 ? values[0] : values;
  }
  return out;
}

function invalidParams(c: Context): AppError {
  const detail = (c.validation.errors ?? [])
    .map((e) => `${e.instancePath || '(request)'} ${e.message ?? ''}`.trim())
    .join('; ');
  return new AppError('api.context.invalid_param.app_error', `Invalid or missing parameters: ${detail}`.slice(0, 500), 400, detail);
}

/**
 * The mock's request listener. Every operation of the spec answers its first 2xx response with a body
 * openapi-backend mocks from the schema (or the spec's example); requests are checked against the spec first
 * (400/401 as AppError, unknown query parameters ignored as the server does). POST /hooks/{hook_id} runs the
 * server's own intake (read → decode → validate), so a payload gets the server's exact answer; any well-formed
 * hook key is taken to exist.
 */
export async function createMockListener(options: Omit<MockOptions, 'listen'> = {}): Promise<http.RequestListener> {
  const spec = options.spec ?? loadSpec();
  const settings = bootSettings(loadBootConfig(options.env ?? process.env)).ServiceSettings;
  const log = options.log ?? (() => undefined);
  const validatePayload = createPayloadValidator(spec);

  const api = new OpenAPIBackend({ definition: structuredClone(spec) as unknown as Document, quick: true, validate: true, coerceTypes: true });
  await api.init();
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
  const register: Record<string, typeof mockHandler> = {};
  for (const operation of api.getOperations()) {
    if (operation.operationId) register[operation.operationId] = mockHandler;
  }
  api.register({
    ...register,
    ...routerErrorHandlers,
    validationFail: async (c: Context) => {
      throw invalidParams(c);
    },
  });
  // Any token will do: the mock has no sessions, but a client that forgets to send one gets the server's 401.
  api.registerSecurityHandler('bearerAuth', (_c: Context, { req }: Args) => tokenFromRequest(req) !== null);

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

  const route = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://mock.invalid');
    let body: unknown;
    const multipart = /^multipart\/form-data\s*(;|$)/i.test(req.headers['content-type'] ?? '');
    if (multipart) {
      // An upload (UploadFile): the mock keeps nothing, so its bytes are read and dropped, never held.
      await drain(req);
      body = {};
    } else if (!NO_BODY.has(req.method ?? 'GET')) {
      const raw = await readBody(req, settings.MaximumPayloadSizeBytes);
      const contentType = req.headers['content-type'] ?? '';
      if (raw.length > 0 && (contentType === '' || JSON_TYPE.test(contentType))) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch (err) {
          throw AppError.badRequest('api.context.invalid_body_param.app_error', 'The request body is not valid JSON.', (err as Error).message);
        }
      }
    }
    const request: RouteRequest = { method: req.method ?? 'GET', path: url.pathname, headers: req.headers as never, query: queryObject(url.searchParams), body };
    request.query = declaredQuery(api.matchOperation(request), request.query as Record<string, string | string[]>);
    await api.handleRequest(request, { req, res } satisfies Args);
  };

  return (req, res) => {
    const requestId = stampResponse(res);
    const url = req.url ?? '/';
    const isHook = req.method === 'POST' && url.startsWith('/hooks/');
    const work = isHook ? hook(req, res, hookIdFromUrl(url)) : route(req, res).then(() => []);
    void work
      .catch((err: unknown) => {
        writeError(res, err, requestId);
        return [];
      })
      .then((warnings) => {
        log(`${req.method} ${isHook ? '/hooks/{hook_id}' : url.split('?')[0]} ${res.statusCode}`);
        for (const warning of warnings) log(`  ${warning}`);
      });
  };
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
