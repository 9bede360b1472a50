// Uploads that never finish politely: a declared Content-Length far over the limit with (almost) no body, or a
// chunked body streamed until the server answers. They record when the answer came, relative to what was sent.
import http from 'node:http';

export interface UploadResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Body bytes written before the response's status line arrived. */
  sentBeforeAnswer: number;
  /** Milliseconds from the start of the request to the status line. */
  ms: number;
}

export interface UploadOptions {
  path: string;
  headers?: Record<string, string>;
  /** Total body bytes to offer (the server should answer long before). */
  total: number;
  /** Size of each write; writes wait for the socket to drain. */
  chunk?: number;
  /** Declare the total as Content-Length instead of sending chunked. */
  declareLength?: boolean;
  /** Stop writing after this many bytes even with no answer yet (a client that declares more than it sends). */
  sendAtMost?: number;
  timeoutMs?: number;
  /** Keep-alive connection (no `Connection: close`); by default the request asks for the connection to close. */
  keepAlive?: boolean;
}

const piece = Buffer.alloc(1 << 20, 'x');

/**
 * Streams a body of `total` bytes (or up to `sendAtMost`) and resolves as soon as the status line and body of the
 * answer are in, whatever happens to the rest of the upload (the server may close the connection on it).
 */
export function upload(url: string, o: UploadOptions): Promise<UploadResult> {
  const target = new URL(url);
  const chunk = o.chunk ?? 65536;
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...(o.headers ?? {}) };
  if (o.declareLength) headers['Content-Length'] = String(o.total);
  else headers['Transfer-Encoding'] = 'chunked';
  const started = Date.now();
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    let finished = false;
    const agent = new http.Agent({ keepAlive: o.keepAlive ?? false });
    const req = http.request({ agent, method: 'POST', hostname: target.hostname, port: target.port, path: o.path, headers });
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer after ${sent} bytes sent`));
    }, o.timeoutMs ?? 30000);
    req.on('response', (res) => {
      answered = true;
      const sentBeforeAnswer = sent;
      const ms = Date.now() - started;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      const done = () => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        req.destroy();
        agent.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), sentBeforeAnswer, ms });
      };
      res.on('end', done);
      res.on('aborted', done);
      res.on('error', done);
    });
    req.on('error', (err) => {
      // Writing into a connection the server closed after answering is expected; only an unanswered error fails.
      if (!answered) {
        clearTimeout(timer);
        reject(err);
      }
    });
    const limit = Math.min(o.total, o.sendAtMost ?? o.total);
    const pump = () => {
      while (!answered && sent < limit && !req.destroyed) {
        const n = Math.min(chunk, limit - sent, piece.length);
        sent += n;
        if (!req.write(piece.subarray(0, n))) {
          req.once('drain', pump);
          return;
        }
      }
      // A declared length that is never reached: leave the request open and wait for the answer.
      if (sent >= o.total && !req.destroyed && !answered) req.end();
    };
    req.flushHeaders();
    pump();
  });
}
