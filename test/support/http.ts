// Raw HTTP for the suites that need exact bytes on the wire: exactly the given headers (no Content-Type unless given,
// which fetch and supertest would add), a raw or chunked body, a connection of its own or a given agent, a timeout.
import http from 'node:http';

export interface RawRequest {
  /** POST by default. */
  method?: string;
  /** Path and query, e.g. `/hooks/abc?x=1`. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /**
   * Send the body chunked (Transfer-Encoding: chunked, no Content-Length), in pieces of this many bytes. A
   * `Transfer-Encoding: chunked` header alone means pieces of 64 KiB.
   */
  chunked?: number;
  /** Give up when the connection is idle this long (default 30 s). */
  timeoutMs?: number;
  /** A connection of its own (no keep-alive) unless given: a request that breaks the framing can spoil a connection. */
  agent?: http.Agent;
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  /** The parsed body of an `application/json` answer, else undefined. */
  readonly json: any;
  /** The local port of the connection it came on (which connection a keep-alive agent used). */
  localPort: number;
}

/** Sends one request with exactly the given headers and reads the whole answer. */
export function send(url: string, r: RawRequest): Promise<RawAnswer> {
  const target = new URL(url);
  const method = r.method ?? 'POST';
  const payload = r.body === undefined ? undefined : typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : r.body;
  const headers: Record<string, string> = { ...(r.headers ?? {}) };
  const has = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);
  const chunked = r.chunked ?? (Object.entries(headers).some(([h, v]) => h.toLowerCase() === 'transfer-encoding' && v === 'chunked') ? 65536 : undefined);
  if (chunked) {
    if (!has('transfer-encoding')) headers['Transfer-Encoding'] = 'chunked';
  } else if (payload !== undefined && !has('content-length')) headers['Content-Length'] = String(payload.length);
  return new Promise((resolve, reject) => {
    const req = http.request({ agent: r.agent ?? false, method, hostname: target.hostname, port: target.port, path: r.path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        const text = body.toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          text,
          get json() {
            return res.headers['content-type'] === 'application/json' ? JSON.parse(text) : undefined;
          },
          localPort: req.socket?.localPort ?? 0,
        });
      });
      res.on('error', reject);
    });
    req.setTimeout(r.timeoutMs ?? 30000, () => req.destroy(new Error(`no answer within ${r.timeoutMs ?? 30000} ms: ${method} ${r.path}`)));
    req.on('error', reject);
    if (payload === undefined) req.end();
    else if (chunked) {
      for (let i = 0; i < payload.length; i += chunked) req.write(payload.subarray(i, i + chunked));
      req.end();
    } else req.end(payload);
  });
}

/** Header values Node's client accepts (the fuzzers only send what an HTTP client can put on the wire). */
export function isSendableHeaderValue(value: string): boolean {
  try {
    http.validateHeaderValue('x', value);
    return true;
  } catch {
    return false;
  }
}
