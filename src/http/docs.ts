import express from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../spec';

/**
 * The published contract: the bundled spec at /api/v4/openapi.json and the HTML reference at /api/v4/docs, whose
 * viewer script is served from the installed redoc package (no CDN: the page works offline).
 */
export function docsRouter(spec: Record<string, unknown>): express.Router {
  const router = express.Router();
  const specBody = Buffer.from(JSON.stringify(spec));
  const html = readFileSync(join(projectRoot(), 'generated', 'docs.html'));
  const viewer = join(require.resolve('redoc/package.json'), '..', 'bundles', 'redoc.standalone.js');
  router.get('/api/v4/openapi.json', (_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(specBody);
  });
  router.get('/api/v4/docs', (_req, res) => {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(html);
  });
  router.get('/api/v4/docs/redoc.standalone.js', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.sendFile(viewer);
  });
  return router;
}
