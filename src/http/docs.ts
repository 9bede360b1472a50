import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../spec';

/** The docs page runs Redoc from this server: its own script, its own inline styles (Redoc injects them), no framing. */
export const DOCS_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The published contract: the bundled spec at /api/v4/openapi.json and the HTML reference at /api/v4/docs, whose
 * viewer script is served from the installed redoc package (no CDN: the page works offline). Returns false for any
 * other request.
 */
export function createDocs(spec: Record<string, unknown>): (req: IncomingMessage, res: ServerResponse) => boolean {
  const specBody = Buffer.from(JSON.stringify(spec));
  const html = readFileSync(join(projectRoot(), 'generated', 'docs.html'));
  const viewer = readFileSync(join(require.resolve('redoc/package.json'), '..', 'bundles', 'redoc.standalone.js'));
  const send = (res: ServerResponse, type: string, body: Buffer, headers: Record<string, string> = {}) => {
    res.statusCode = 200;
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Length', body.length);
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.end(body);
  };
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = (req.url ?? '').split('?')[0];
    if (path === '/api/v4/openapi.json') send(res, 'application/json', specBody);
    else if (path === '/api/v4/docs') send(res, 'text/html; charset=utf-8', html, { 'Content-Security-Policy': DOCS_CSP, 'X-Frame-Options': 'DENY' });
    else if (path === '/api/v4/docs/redoc.standalone.js') send(res, 'text/javascript; charset=utf-8', viewer, { 'Cache-Control': 'public, max-age=3600' });
    else return false;
    return true;
  };
}
