import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { ByteRange } from '../app/file-storage';
import type { FileDownload } from '../app/files';

/** Media types a browser shows by itself without running anything (Mattermost's list): served inline. */
const INLINE = ['image/jpeg', 'image/png', 'image/bmp', 'image/gif', 'image/tiff', 'image/webp', 'video/avi', 'video/mpeg', 'video/mp4', 'audio/mpeg', 'audio/wav'];

/** Types a browser would run as a page or a script: served as text/plain (as Mattermost does). */
const ACTIVE = ['application/javascript', 'application/ecmascript', 'text/javascript', 'text/ecmascript', 'application/x-javascript', 'text/html'];

/** The Content-Type a stored file is served with. */
export function servedType(mimeType: string): string {
  const type = mimeType.trim().toLowerCase();
  if (type === '') return 'application/octet-stream';
  if (ACTIVE.some((t) => type.startsWith(t))) return 'text/plain';
  return mimeType;
}

/** Go's url.PathEscape, as Mattermost escapes file names in Content-Disposition. */
export function pathEscape(name: string): string {
  return encodeURIComponent(name)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%(24|26|2B|2C|3A|3B|3D|40)/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Mattermost's Content-Disposition: inline only for the safe media types and without `download`. */
export function contentDisposition(name: string, type: string, forceDownload: boolean): string {
  const inline = !forceDownload && INLINE.some((t) => type.toLowerCase().startsWith(t));
  const escaped = pathEscape(name);
  return `${inline ? 'inline' : 'attachment'};filename="${escaped}"; filename*=UTF-8''${escaped}`;
}

/** One satisfiable range of `bytes=a-b`, `bytes=a-` or `bytes=-n`; anything else (several ranges too) is the whole file. */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec((header ?? '').trim());
  if (!m || (m[1] === '' && m[2] === '') || size === 0) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start > end || start >= size) return undefined;
  return { start, end };
}

/**
 * Streams a stored file as the answer, with Mattermost's headers: its type (never one a browser would run),
 * Content-Disposition, private caching for a day, Last-Modified, no framing. `If-Modified-Since` gets a 304, a
 * single satisfiable `Range` a 206 (video and audio players seek with it). A storage failure after the headers went
 * out cuts the connection, so a client never takes a short body for the file.
 */
export async function writeFile(req: IncomingMessage, res: ServerResponse, file: FileDownload, forceDownload: boolean): Promise<void> {
  const type = servedType(file.contentType);
  const modified = new Date(Math.floor(file.lastModified / 1000) * 1000);
  const since = Date.parse(req.headers['if-modified-since'] ?? '');
  const notModified = Number.isFinite(since) && modified.getTime() <= since;
  const range = notModified ? undefined : parseRange(req.headers.range, file.size);
  // Opened before any header is set: a file missing from storage is answered as an error, not as an empty file.
  const body = notModified ? undefined : await file.open(range);
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Disposition', contentDisposition(file.name, type, forceDownload));
  res.setHeader('Cache-Control', 'private, max-age=86400');
  res.setHeader('X-Frame-Options', 'DENY');
  // `sandbox` on top of Mattermost's frame-ancestors: a file opened as a page can run nothing in this origin.
  res.setHeader('Content-Security-Policy', "frame-ancestors 'none'; sandbox");
  res.setHeader('Last-Modified', modified.toUTCString());
  res.setHeader('Accept-Ranges', 'bytes');
  // The API's `Expires: 0` is for JSON reads; a file is cached (privately) for a day, as in Mattermost.
  res.removeHeader('Expires');
  if (!body) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = range ? 206 : 200;
  if (range) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
  res.setHeader('Content-Length', range ? range.end - range.start + 1 : file.size);
  if (req.method === 'HEAD') {
    body.destroy();
    res.end();
    return;
  }
  try {
    await pipeline(body, res);
  } catch {
    res.destroy();
  }
}
