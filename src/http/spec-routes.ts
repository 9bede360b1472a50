// The API's routes, read once from the spec: each operation with its parameters resolved, ordered for a router that
// takes the first route that matches (Express's), and its path written the way Express writes paths.

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export interface SpecParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Record<string, unknown>;
}

export interface SpecOperation {
  operationId: string;
  security?: Array<Record<string, unknown>>;
  parameters?: Array<SpecParameter | { $ref: string }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> } | { $ref: string }>;
}

export interface Spec {
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  security?: Array<Record<string, unknown>>;
}

/** One operation of the spec, with what the pipeline needs to know about it, resolved once. */
export interface Route {
  operationId: string;
  method: string;
  /** The path template, e.g. /api/v4/users/{user_id}. */
  path: string;
  operation: SpecOperation;
  parameters: SpecParameter[];
  /** Its `security` (or the spec's default) has no anonymous alternative: without a session it is a 401. */
  needsSession: boolean;
}

/** Whether an operation needs a session: its `security` (or the spec's default) has no empty alternative (`{}`). */
export function needsSession(operation: { security?: Array<Record<string, unknown>> }, spec: { security?: Array<Record<string, unknown>> }): boolean {
  const security = operation.security ?? spec.security ?? [];
  return security.length > 0 && !security.some((s) => Object.keys(s).length === 0);
}

function resolveParameter(spec: Spec, p: SpecParameter | { $ref: string }): SpecParameter {
  if (!('$ref' in p)) return p;
  const name = p.$ref.split('/').pop() as string;
  const found = spec.components?.parameters?.[name] as SpecParameter | undefined;
  if (!found) throw new Error(`spec: unresolved parameter ${p.$ref}`);
  return found;
}

/**
 * The spec's operations under `prefix` (the API's; /hooks/{hook_id} is served beside it), each with its parameters
 * resolved, in the order a router must try them: at the first segment where two paths differ, a literal segment
 * comes before a parameter (`/users/login` before `/users/{user_id}`), so the first route that matches is the one
 * the request names. A path defined twice for one method is refused at start-up.
 */
export function specRoutes(spec: Spec, prefix = '/api/v4/'): Route[] {
  const routes: Route[] = [];
  const seen = new Set<string>();
  for (const [path, item] of Object.entries(spec.paths)) {
    if (!path.startsWith(prefix)) continue;
    const shared = (item.parameters ?? []) as Array<SpecParameter | { $ref: string }>;
    for (const method of HTTP_METHODS) {
      const operation = item[method] as SpecOperation | undefined;
      if (!operation?.operationId) continue;
      const own = (operation.parameters ?? []).map((p) => resolveParameter(spec, p));
      // Operation-level parameters override path-level ones of the same name and location.
      const inherited = shared.map((p) => resolveParameter(spec, p)).filter((p) => !own.some((o) => o.name === p.name && o.in === p.in));
      const key = `${method} ${path.replace(/\{[^}]*\}/g, '{}')}`;
      if (seen.has(key)) throw new Error(`spec: ${method.toUpperCase()} ${path} is defined twice`);
      seen.add(key);
      routes.push({ operationId: operation.operationId, method: method.toUpperCase(), path, operation, parameters: [...inherited, ...own], needsSession: needsSession(operation, spec) });
    }
  }
  return routes.sort((a, b) => comparePaths(a.path, b.path));
}

const isParam = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

/**
 * A total order in which, at the first segment where two paths differ, a literal segment comes before a parameter
 * (literals among themselves alphabetically; parameters are all alike).
 */
export function comparePaths(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = isParam(x[i]);
    const q = isParam(y[i]);
    if (p && q) continue;
    if (p !== q) return p ? 1 : -1;
    if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length;
}

/** An OpenAPI path template as an Express route path: `/users/{user_id}` → `/users/:user_id`. */
export function expressPath(template: string): string {
  return template.replace(/\{([^}]+)\}/g, ':$1');
}
