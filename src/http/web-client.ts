import type { IncomingMessage, ServerResponse } from 'node:http';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { projectRoot } from '../spec';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};

/**
 * The page's own policy: scripts and styles only from this server, no plugins, no framing (clickjacking). Images
 * may come from anywhere over http(s): webhook posts show the icon URL and attachment images their senders chose.
 */
export const WEB_CLIENT_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  'img-src * data: blob:',
  "connect-src 'self' ws: wss:",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const NOT_PAGES = /^\/(api|hooks)(\/|$)/;

interface Asset {
  body: Buffer;
  gzip?: Buffer;
  type: string;
  /** Content-hashed file names never change: cached for a year; index.html is always revalidated. */
  immutable: boolean;
}

function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) {
        walk(full);
        continue;
      }
      const body = readFileSync(full);
      const type = TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
      const compressible = /^(text\/|application\/json|image\/svg)/.test(type) && body.length > 1024;
      const path = '/' + relative(dir, full).split(sep).join('/');
      assets.set(path, { body, gzip: compressible ? gzipSync(body, { level: 9 }) : undefined, type, immutable: /-[A-Z0-9]{8,}\.\w+$/.test(name) });
    }
  };
  walk(dir);
  return assets;
}

/**
 * The client built beside this server: compiled, this file is <build>/src/http/web-client.js and the client
 * <build>/web (dist/web, or the directory a test build chose); run from source (ts-jest), dist/web.
 */
function builtWebDir(): string {
  return __filename.endsWith('.js') ? join(__dirname, '..', '..', 'web') : join(projectRoot(), 'dist', 'web');
}

/**
 * Serves the browser client built by `npm run build` into dist/web: its files by path, and index.html for every other
 * page path (`/{team}/channels/{channel}` is a route of the client, so a bookmark or a reload works). Files are read
 * once at start-up (the whole client is a few hundred kilobytes) and gzipped once. Returns false for what it does not
 * serve (no build, not a GET): the caller answers those.
 */
export function createWebClient(dir = builtWebDir()): (req: IncomingMessage, res: ServerResponse) => boolean {
  if (!existsSync(join(dir, 'index.html'))) return () => false;
  const assets = loadAssets(dir);
  const index = assets.get('/index.html') as Asset;
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = (req.url ?? '/').split('?')[0];
    let asset = assets.get(path);
    // A path with an extension names a file: a missing one is a 404, not the page (a broken script tag stays visible).
    // API and webhook paths are never pages: `GET /hooks/{key}` must not answer 200 with the client.
    if (!asset) {
      if (extname(path) !== '' || NOT_PAGES.test(path)) return false;
      asset = index;
    }
    const gzip = asset.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const body = gzip ? (asset.gzip as Buffer) : asset.body;
    res.statusCode = 200;
    res.setHeader('Content-Type', asset.type);
    res.setHeader('Content-Length', body.length);
    res.setHeader('Cache-Control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (asset.gzip) res.setHeader('Vary', 'Accept-Encoding');
    if (gzip) res.setHeader('Content-Encoding', 'gzip');
    if (asset.type.startsWith('text/html')) {
      res.setHeader('Content-Security-Policy', WEB_CLIENT_CSP);
      res.setHeader('X-Frame-Options', 'DENY');
    }
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
