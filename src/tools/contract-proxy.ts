// `npm run contract-proxy -- --target URL`: a proxy an integration author points a client at. Every request goes to
// the target unchanged and every answer comes back unchanged; on the side, each exchange is checked against the
// spec (src/tools/contract-check.ts) and reported.
import { createWriteStream, type WriteStream } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import { mediaType } from '../http/request-input';
import { baseUrl, parseListen } from '../lib/listen';
import { loadSpec } from '../spec';
import { ContractChecker, type BodySample, type ExchangeRecord } from './contract-check';
import { Tally, displayPath, formatEntry, formatSummary, type ReportEntry, type Summary } from './contract-report';

export interface ContractProxyOptions {
  /** The server to forward to, e.g. http://127.0.0.1:8065 (a path prefix is kept: https://host/chat). */
  target: string;
  /** Default 127.0.0.1:8066. */
  listen?: string;
  /** The bundled spec; default generated/openapi.json. */
  spec?: Record<string, unknown>;
  /** JSON and form bodies up to this many bytes are checked; larger ones pass through unchecked. Default 1 MiB. */
  maxCheckedBytes?: number;
  /** Send the target's host in the Host header instead of the client's (a target behind name-based virtual hosting). */
  rewriteHost?: boolean;
  /** Called with every exchange once it is checked. */
  onEntry?: (entry: ReportEntry) => void;
  /** A checker to share (it holds the compiled validators); default: a new one for `spec`, made ready before listening. */
  checker?: ContractChecker;
}

export interface ContractProxy {
  server: http.Server;
  /** Base URL, e.g. http://127.0.0.1:8066 */
  url: string;
  /** Resolves once every exchange that has begun is answered, checked and reported. */
  settled(): Promise<void>;
  summary(): Summary;
  close(): Promise<void>;
}

export const DEFAULT_LISTEN = '127.0.0.1:8066';
export const DEFAULT_MAX_CHECKED_BYTES = 1024 * 1024;

// Hop-by-hop headers belong to one connection, not to the exchange (RFC 9110 §7.6.1); Node frames each side itself.
// Transfer-Encoding stays: a chunked body is forwarded chunked.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade']);

function forwardedHeaders(raw: string[], host: string | undefined): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (HOP_BY_HOP.has(name)) continue;
    out.push(raw[i], name === 'host' && host ? host : raw[i + 1]);
  }
  return out;
}

/** The bodies kept for the check: JSON and forms (the types the checker reads), up to the cap; others only counted. */
class BodyTap {
  private chunks: Buffer[] = [];
  private kept = 0;
  private seen = 0;
  private over = false;

  constructor(
    private readonly type: string,
    private readonly keep: boolean,
    private readonly cap: number,
  ) {}

  add(chunk: Buffer): void {
    this.seen += chunk.length;
    if (!this.keep || this.over) return;
    if (this.kept + chunk.length > this.cap) {
      this.over = true;
      this.chunks = [];
      return;
    }
    this.chunks.push(chunk);
    this.kept += chunk.length;
  }

  sample(): BodySample {
    if (this.seen === 0) return { kind: 'none' };
    if (!this.keep) return { kind: 'opaque', type: this.type, size: this.seen };
    if (this.over) return { kind: 'skipped', reason: `larger than ${this.cap} bytes (${this.seen} bytes; raise --max-body)` };
    return { kind: 'bytes', bytes: Buffer.concat(this.chunks, this.kept) };
  }
}

const CHECKED_TYPES = /^(application\/json|application\/[^;]*\+json|application\/x-www-form-urlencoded)$/;

/** The AppError id of an error answer, for the report line. */
function errorId(status: number, body: BodySample): string | undefined {
  if (status < 400 || body.kind !== 'bytes') return undefined;
  try {
    const id = (JSON.parse(body.bytes.toString('utf8')) as { id?: unknown }).id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

export async function startContractProxy(options: ContractProxyOptions): Promise<ContractProxy> {
  const target = new URL(options.target);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error(`--target must be an http:// or https:// URL, not "${options.target}"`);
  const prefix = target.pathname.replace(/\/+$/, '');
  const secure = target.protocol === 'https:';
  const targetPort = Number(target.port || (secure ? 443 : 80));
  const hostHeader = options.rewriteHost ? target.host : undefined;
  const cap = options.maxCheckedBytes ?? DEFAULT_MAX_CHECKED_BYTES;
  const checker = options.checker ?? new ContractChecker(options.spec ?? loadSpec());
  await checker.ready();
  const tally = new Tally();
  const agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  const transport = secure ? https : http;

  const pending = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };
  const report = async (ms: number, time: string, exchange: ExchangeRecord) => {
    const verdict = await checker.check(exchange);
    const entry: ReportEntry = {
      time,
      method: exchange.method,
      path: displayPath(exchange.url),
      status: exchange.status,
      ms,
      ...(verdict.operationId ? { operationId: verdict.operationId } : {}),
      ...(errorId(exchange.status, exchange.responseBody) ? { error: errorId(exchange.status, exchange.responseBody) } : {}),
      findings: verdict.findings,
      notes: verdict.notes,
      ...(verdict.unknown ? { unknown: verdict.unknown } : {}),
    };
    tally.add(entry);
    options.onEntry?.(entry);
  };

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const time = new Date().toISOString();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    let settle!: () => void;
    track(new Promise<void>((resolve) => (settle = resolve)));
    const requestType = mediaType(req.headers['content-type']);
    // A body without a Content-Type is read as JSON by the server, so it is checked as JSON.
    const requestTap = new BodyTap(requestType, requestType === '' || CHECKED_TYPES.test(requestType), cap);

    let answer: IncomingMessage | undefined;
    let responseTap: BodyTap | undefined;
    let failure: string | undefined;
    const upstream = transport.request(
      { host: target.hostname, port: targetPort, method, path: prefix + url, headers: forwardedHeaders(req.rawHeaders, hostHeader) as never, agent, servername: secure ? target.hostname : undefined },
      (a) => {
        answer = a;
        const responseType = mediaType(a.headers['content-type']);
        const tap = (responseTap = new BodyTap(responseType, CHECKED_TYPES.test(responseType), cap));
        res.writeHead(a.statusCode ?? 502, a.statusMessage, forwardedHeaders(a.rawHeaders, undefined));
        a.on('data', (chunk: Buffer) => tap.add(chunk));
        a.on('error', () => res.destroy());
        a.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      // The target is down or hung up: the client hears it from the proxy (502), the report says so.
      failure = err.message;
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const text = `contract-proxy: the target ${target.origin} did not answer: ${err.message}\n`;
      res.writeHead(502, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    });
    req.on('data', (chunk: Buffer) => requestTap.add(chunk));
    req.on('error', () => upstream.destroy());
    req.pipe(upstream);
    res.on('close', () => {
      // The client went away: so does the exchange with the target.
      if (!res.writableFinished) upstream.destroy();
      if (answer && !answer.complete) answer.destroy();
      if (!answer || !responseTap) {
        const note = failure ? `the target did not answer: ${failure}` : 'the client went away before the answer';
        const entry: ReportEntry = { time, method, path: displayPath(url), status: failure ? 502 : 0, ms: Math.round(performance.now() - started), findings: [], notes: [note] };
        tally.add(entry);
        options.onEntry?.(entry);
        settle();
        return;
      }
      const exchange: ExchangeRecord = {
        method,
        url,
        headers: req.headers,
        requestBody: requestTap.sample(),
        status: answer.statusCode ?? 0,
        responseHeaders: answer.headers,
        responseBody: answer.complete ? responseTap.sample() : { kind: 'skipped', reason: 'the answer was cut off' },
      };
      report(Math.round(performance.now() - started), time, exchange).then(settle, (err: unknown) => {
        process.stderr.write(`contract-proxy: checking ${method} ${displayPath(url)} failed: ${err instanceof Error ? err.stack : String(err)}\n`);
        settle();
      });
    });
  };

  /**
   * A WebSocket (GET /api/v4/websocket): the handshake is forwarded as sent, and once the target answers both sockets
   * are joined byte for byte. The handshake is checked and reported; the frames are not looked at.
   */
  const tunnel = (req: IncomingMessage, socket: net.Socket, head: Buffer) => {
    const started = performance.now();
    const time = new Date().toISOString();
    let settle!: () => void;
    track(new Promise<void>((resolve) => (settle = resolve)));
    const url = req.url ?? '/';
    const upstream = secure ? tls.connect({ host: target.hostname, port: targetPort, servername: target.hostname }) : net.connect({ host: target.hostname, port: targetPort });
    const fail = () => {
      upstream.destroy();
      socket.destroy();
    };
    socket.on('error', fail);
    upstream.on('error', (err) => {
      if (socket.writable && !upgraded) socket.end(`HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\ncontract-proxy: the target did not answer: ${err.message}\n`);
      fail();
      if (!upgraded) settle();
    });
    let upgraded = false;
    upstream.once(secure ? 'secureConnect' : 'connect', () => {
      const raw = req.rawHeaders;
      let lines = `${req.method} ${prefix}${url} HTTP/${req.httpVersion}\r\n`;
      for (let i = 0; i < raw.length; i += 2) lines += `${raw[i]}: ${raw[i].toLowerCase() === 'host' && hostHeader ? hostHeader : raw[i + 1]}\r\n`;
      upstream.write(`${lines}\r\n`);
      if (head.length > 0) upstream.write(head);
      socket.pipe(upstream);
    });
    upstream.once('data', (first: Buffer) => {
      upgraded = true;
      socket.write(first);
      upstream.pipe(socket);
      const status = Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(first.toString('latin1', 0, 32))?.[1] ?? 0);
      const exchange: ExchangeRecord = { method: req.method ?? 'GET', url, headers: req.headers, requestBody: { kind: 'none' }, status, responseHeaders: {}, responseBody: { kind: 'none' }, upgrade: true };
      report(Math.round(performance.now() - started), time, exchange).then(settle, settle);
    });
    upstream.on('close', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
  };

  const server = http.createServer(forward);
  server.on('upgrade', tunnel);
  const { host, port } = parseListen(options.listen ?? DEFAULT_LISTEN);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });

  const settled = async () => {
    while (pending.size > 0) await Promise.all([...pending]);
  };
  return {
    server,
    url: baseUrl(server.address() as AddressInfo),
    settled,
    summary: () => tally.get(),
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      agent.destroy();
      await settled();
    },
  };
}

const USAGE = `Usage: npm run contract-proxy -- --target URL [--listen HOST:PORT] [--report FILE] [--max-body BYTES] [--rewrite-host]

Forwards every request to the target server unchanged (WebSockets too) and checks each request and each answer
against the API spec (generated/openapi.json), with express-openapi-validator. Point your client at the proxy.

  --target URL       the server, e.g. http://127.0.0.1:8065 (required)
  --listen ADDRESS   where the proxy listens (default ${DEFAULT_LISTEN})
  --report FILE      also write one JSON line per exchange to FILE
  --max-body BYTES   JSON and form bodies up to this size are checked (default ${DEFAULT_MAX_CHECKED_BYTES})
  --rewrite-host     send the target's host in the Host header (default: the client's, unchanged)

A summary is printed on Ctrl-C (SIGINT) or SIGTERM; the exit status is 1 when any finding was reported, else 0.
`;

interface Cli {
  target: string;
  listen?: string;
  report?: string;
  maxCheckedBytes?: number;
  rewriteHost: boolean;
}

export function parseArgs(argv: string[]): Cli {
  const cli: Partial<Cli> & { rewriteHost: boolean } = { rewriteHost: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value\n\n${USAGE}`);
      return v;
    };
    if (flag === '--target') cli.target = value();
    else if (flag === '--listen') cli.listen = value();
    else if (flag === '--report') cli.report = value();
    else if (flag === '--max-body') {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 0) throw new Error(`--max-body must be a number of bytes\n\n${USAGE}`);
      cli.maxCheckedBytes = n;
    } else if (flag === '--rewrite-host') cli.rewriteHost = true;
    else if (flag === '--help' || flag === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument "${argv[i]}"\n\n${USAGE}`);
  }
  if (!cli.target) throw new Error(`--target is required\n\n${USAGE}`);
  return cli as Cli;
}

async function main(): Promise<void> {
  const cli = parseArgs(process.argv.slice(2));
  let file: WriteStream | undefined;
  if (cli.report) {
    file = createWriteStream(cli.report, { flags: 'w' });
    await new Promise<void>((resolve, reject) => file?.once('open', () => resolve()).once('error', reject));
  }
  const proxy = await startContractProxy({
    target: cli.target,
    listen: cli.listen,
    maxCheckedBytes: cli.maxCheckedBytes,
    rewriteHost: cli.rewriteHost,
    onEntry: (entry) => {
      process.stdout.write(`${formatEntry(entry)}\n`);
      file?.write(`${JSON.stringify(entry)}\n`);
    },
  });
  process.stdout.write(`contract-proxy: ${proxy.url} → ${cli.target}, checking against generated/openapi.json${cli.report ? `, report in ${cli.report}` : ''}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // Exchanges under way get a moment to finish and be reported; WebSockets are cut.
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, 2000).unref());
    void Promise.race([proxy.close(), deadline]).then(() => {
      const summary = proxy.summary();
      process.stdout.write(`\n${formatSummary(summary)}\n`);
      const exit = () => process.exit(summary.withFindings > 0 ? 1 : 0);
      if (file) file.end(exit);
      else exit();
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`contract-proxy: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  });
}
