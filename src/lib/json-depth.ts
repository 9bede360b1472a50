/**
 * The deepest nesting a request body may have. JSON.parse accepts any depth, but JSON.stringify, structuredClone,
 * schema validation and the database drivers recurse and overflow the stack at a few thousand levels (a 500 or a
 * crash). No real payload comes near this.
 */
export const MAX_JSON_DEPTH = 256;

/** True when a parsed JSON value nests arrays/objects more than `limit` levels deep (checked without recursion). */
export function nestingExceeds(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (depth > limit) return true;
    const children = Array.isArray(current) ? current : Object.values(current as Record<string, unknown>);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
