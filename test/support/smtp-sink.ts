// A real SMTP server for the email tests (nodemailer's smtp-server, in this process, on 127.0.0.1): it takes every
// message, keeps it parsed (envelope, headers, text and HTML parts), and can be stopped and started again on the same
// port (an SMTP server that goes down and comes back).
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { eventually } from './eventually';
import { freePort } from './process';

export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  /** Header names lower-cased; values unfolded and with RFC 2047 words decoded. */
  headers: Record<string, string>;
  subject: string;
  text: string;
  html: string;
  /** The user the session authenticated as ('' without AUTH). */
  authUser: string;
  /** The SMTP session (one per connection) the message came over. */
  sessionId: string;
  /** When the message's data ended (performance.now()). */
  receivedAt: number;
  raw: string;
}

export interface SmtpSink {
  host: string;
  port: number;
  messages: ReceivedMail[];
  /** Client connections open now. */
  openConnections(): number;
  /** Messages to this address. */
  to(address: string): ReceivedMail[];
  /** Waits (polling, with a deadline) until `count` messages to `address` arrived, and returns them. */
  waitFor(address: string, count?: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /**
   * While set, a message for which this holds (given its parsed parts) is answered 451 (a temporary failure: the sender
   * should try again later) and not kept.
   */
  refuse?: (mail: { subject: string; text: string; html: string }) => boolean;
  /** The server stops listening (connections are refused) until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface SinkOptions {
  port?: number;
  /** Require AUTH with this user and password (plain-text AUTH allowed: the tests run without TLS). */
  auth?: { user: string; pass: string };
  /** Do not listen until start() (an SMTP server that is down from the beginning). */
  down?: boolean;
}

export async function startSmtpSink(options: SinkOptions = {}): Promise<SmtpSink> {
  const port = options.port ?? (await freePort());
  const messages: ReceivedMail[] = [];
  let server: SMTPServer | undefined;
  const make = (): SMTPServer => {
    const config: SMTPServerOptions = {
      logger: false,
      // No reverse DNS lookup of 127.0.0.1 per connection.
      disableReverseLookup: true,
      disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      authOptional: !options.auth,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) return callback(null, { user: auth.username });
        return callback(new Error('Invalid username or password'));
      },
      onConnect(_session, callback) {
        open++;
        callback();
      },
      onClose() {
        open--;
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const parsed = parseMessage(raw);
          if (sink.refuse?.(parsed)) return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
          messages.push({
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            authUser: typeof session.user === 'string' ? session.user : '',
            sessionId: session.id,
            receivedAt: performance.now(),
            raw,
            ...parsed,
          });
          callback();
        });
      },
    };
    return new SMTPServer(config);
  };
  const start = async () => {
    if (server) return;
    const s = make();
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    server = s;
  };
  const stop = async () => {
    const s = server;
    server = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  if (!options.down) await start();
  const to = (address: string) => messages.filter((m) => m.envelopeTo.includes(address));
  let open = 0;
  const sink: SmtpSink = {
    host: '127.0.0.1',
    port,
    messages,
    openConnections: () => open,
    to,
    waitFor: (address, count = 1, timeoutMs = 15_000) =>
      eventually(
        () => {
          const got = to(address);
          if (got.length < count) throw new Error(`${got.length} of ${count} email(s) to ${address} arrived`);
          return got;
        },
        timeoutMs,
        50,
      ),
    stop,
    start,
    close: stop,
  };
  return sink;
}

// --- A small MIME reader: enough for what nodemailer writes (multipart/alternative, quoted-printable or base64). ---

interface Part {
  headers: Record<string, string>;
  body: string;
}

function splitHeaders(raw: string): Part {
  const normalized = raw.replace(/\r\n/g, '\n');
  const end = normalized.indexOf('\n\n');
  const head = end === -1 ? normalized : normalized.slice(0, end);
  const body = end === -1 ? '' : normalized.slice(end + 2);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] = decodeWords(line.slice(colon + 1).trim());
  }
  return { headers, body };
}

/** RFC 2047 encoded words (=?utf-8?B?...?= and =?utf-8?Q?...?=), adjacent ones joined. */
function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_m, _charset: string, enc: string, text: string) =>
      enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : qpBytes(text.replace(/_/g, ' ')).toString('utf8'),
    );
}

function qpBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes);
}

function decodeBody(part: Part): string {
  const encoding = (part.headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(part.body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return qpBytes(part.body.replace(/=\n/g, '')).toString('utf8');
  return part.body;
}

function collect(part: Part, out: { text: string; html: string }): void {
  const type = part.headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const sections = part.body.split(`--${boundary}`);
    // The preamble before the first boundary and the epilogue after the closing one are not parts.
    for (const section of sections.slice(1)) {
      if (section.startsWith('--')) break;
      collect(splitHeaders(section.replace(/^\n/, '')), out);
    }
    return;
  }
  const body = decodeBody(part);
  if (/^text\/html/i.test(type)) out.html += body;
  else if (/^text\/plain/i.test(type)) out.text += body;
}

export function parseMessage(raw: string): { headers: Record<string, string>; subject: string; text: string; html: string } {
  const top = splitHeaders(raw);
  const out = { text: '', html: '' };
  collect(top, out);
  return { headers: top.headers, subject: top.headers.subject ?? '', text: out.text.replace(/\n$/, ''), html: out.html };
}
