// The API's routes, compiled once from the spec: a request is matched to its operation in one walk over its path
// segments, whatever the number of operations.

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

export type Match = { route: Route; params: Record<string, string> } | { error: 404 | 405 };

interface Node {
  literal: Map<string, Node>;
  param?: { name: string; node: Node };
  routes: Map<string, Route>;
}

const newNode = (): Node => ({ literal: new Map(), routes: new Map() });

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

/** A `{name}` path segment's parameter name, or undefined for a literal segment. */
function paramName(segment: string): string | undefined {
  return segment.startsWith('{') && segment.endsWith('}') ? segment.slice(1, -1) : undefined;
}

/** Decodes a path segment; a malformed escape is kept as sent (it then fails the parameter's schema or lookup). */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export class RouteTable {
  private readonly root = newNode();
  readonly routes: Route[] = [];

  /** Every operation whose path starts with `prefix` (the API's; /hooks/{hook_id} is served beside it). */
  constructor(spec: Spec, prefix = '/api/v4/') {
    for (const [path, item] of Object.entries(spec.paths)) {
      if (!path.startsWith(prefix)) continue;
      const shared = (item.parameters ?? []) as Array<SpecParameter | { $ref: string }>;
      for (const method of HTTP_METHODS) {
        const operation = item[method] as SpecOperation | undefined;
        if (!operation?.operationId) continue;
        const own = (operation.parameters ?? []).map((p) => resolveParameter(spec, p));
        // Operation-level parameters override path-level ones of the same name and location.
        const inherited = shared.map((p) => resolveParameter(spec, p)).filter((p) => !own.some((o) => o.name === p.name && o.in === p.in));
        const route: Route = {
          operationId: operation.operationId,
          method: method.toUpperCase(),
          path,
          operation,
          parameters: [...inherited, ...own],
          needsSession: needsSession(operation, spec),
        };
        this.add(route);
      }
    }
  }

  private add(route: Route): void {
    let node = this.root;
    for (const segment of route.path.split('/').slice(1)) {
      const name = paramName(segment);
      if (name === undefined) {
        let next = node.literal.get(segment);
        if (!next) node.literal.set(segment, (next = newNode()));
        node = next;
      } else {
        if (node.param && node.param.name !== name) throw new Error(`spec: ${route.path} names a parameter {${name}} where another path has {${node.param.name}}`);
        node.param ??= { name, node: newNode() };
        node = node.param.node;
      }
    }
    if (node.routes.has(route.method)) throw new Error(`spec: ${route.method} ${route.path} is defined twice`);
    node.routes.set(route.method, route);
    this.routes.push(route);
  }

  /**
   * The operation for a method and a path (without its query). A literal segment wins over a parameter
   * (`/users/login` before `/users/{user_id}`), falling back to the parameter when the literal branch leads nowhere.
   * A path that exists with other methods only is a 405, any other a 404.
   */
  match(method: string, path: string): Match {
    const segments = path.split('/').slice(1);
    const params: Record<string, string> = {};
    let pathFound = false;
    const walk = (node: Node, i: number): Route | undefined => {
      if (i === segments.length) {
        if (node.routes.size === 0) return undefined;
        pathFound = true;
        return node.routes.get(method) ?? (method === 'HEAD' ? node.routes.get('GET') : undefined);
      }
      const segment = segments[i];
      const literal = node.literal.get(segment);
      if (literal) {
        const found = walk(literal, i + 1);
        if (found) return found;
      }
      if (node.param && segment !== '') {
        const found = walk(node.param.node, i + 1);
        if (found) {
          params[node.param.name] = decodeSegment(segment);
          return found;
        }
      }
      return undefined;
    };
    const route = walk(this.root, 0);
    if (route) return { route, params };
    return { error: pathFound ? 405 : 404 };
  }
}
