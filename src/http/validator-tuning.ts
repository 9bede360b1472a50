// Speed-ups for express-openapi-validator's per-request work, with its behaviour unchanged: its answers for a given
// input are kept instead of recomputed. Measured by `npm run bench` (validation on vs off); see BENCHMARKS.md.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createRequire } from 'node:module';

type PathToRegexp = ((path: unknown, options?: Record<string, unknown>) => unknown) & { memoized?: boolean };

/**
 * express-openapi-validator finds a request's route by compiling every route of the spec with path-to-regexp, one
 * after the other until one matches, on every request it has not seen (see cacheRouteLookups). Compiling is pure
 * (same route and options, same pattern), so the patterns it compiles are kept. Only string routes with the options
 * it passes are kept; anything else is compiled as before. (The router of Express compiles its own routes once,
 * through another entry point of the module.)
 */
export function memoizeValidatorRoutes(): void {
  const fromValidator = createRequire(require.resolve('express-openapi-validator'));
  const module = fromValidator('path-to-regexp') as { pathToRegexp: PathToRegexp };
  const compile = module.pathToRegexp;
  if (compile.memoized) return;
  // Route → compiled pattern per combination of the two flags the validator passes. The route strings are the
  // validator's own, the same objects on every request, so the lookup is a hash hit, not a string build.
  const cache = new Map<string, unknown[]>();
  const memoized: PathToRegexp = (path, options = {}) => {
    if (typeof path !== 'string') return compile(path, options);
    let flags = 0;
    for (const key in options) {
      if (key === 'sensitive') flags |= options.sensitive ? 1 : 0;
      else if (key === 'strict') flags |= options.strict ? 2 : 0;
      else return compile(path, options);
    }
    let compiled = cache.get(path);
    if (!compiled) {
      compiled = [];
      cache.set(path, compiled);
    }
    return (compiled[flags] ??= compile(path, options));
  };
  memoized.memoized = true;
  module.pathToRegexp = memoized;
}

/** What the validator's metadata middleware puts on `req.openapi` once it has found a request's route. */
interface RouteMatch {
  expressRoute: string;
  openApiRoute: string;
  pathParams: Record<string, string>;
  schema: unknown;
  serial: number;
  _responseSchema?: unknown;
}

/** Distinct method + path pairs whose route is remembered (the hot ones: a channel's posts, CreatePost, a hook). */
export const ROUTE_CACHE_SIZE = 2000;

/**
 * The validator's metadata middleware finds a request's route by trying every route of the spec in turn, on every
 * request: about 15 µs, a quarter of what validation costs a request. Its answer depends only on the method and the
 * path (the routes and the app's routing flags are fixed), so the answer for a method + path is kept, in a bounded
 * map, and later requests for the same one get a fresh copy of it. Unmatched paths and errors (404, 405, a malformed
 * path) are never kept: they go through the validator every time.
 */
export function cacheRouteLookups(middlewares: RequestHandler[], size = ROUTE_CACHE_SIZE): RequestHandler[] {
  return middlewares.map((mw) => (mw.name === 'metadataMiddleware' ? cachedMetadata(mw, size) : mw));
}

function cachedMetadata(metadata: RequestHandler, size: number): RequestHandler {
  const known = new Map<string, RouteMatch>();
  return function metadataMiddleware(req: Request, res: Response, next: NextFunction) {
    const r = req as Request & { openapi?: RouteMatch };
    // The key is what the validator matches on: the method and the original URL without its query.
    const key = `${req.method} ${req.originalUrl.split('?')[0]}`;
    const hit = known.get(key);
    if (hit) {
      // Fresh objects per request: the request validator coerces path parameters in place.
      r.openapi = { ...hit, pathParams: { ...hit.pathParams } };
      req.params = r.openapi.pathParams;
      return next();
    }
    return metadata(req, res, (err?: unknown) => {
      const found = r.openapi;
      if (!err && found) {
        if (known.size >= size) known.delete(known.keys().next().value as string);
        known.set(key, { ...found, pathParams: { ...found.pathParams } });
      }
      next(err);
    });
  };
}
