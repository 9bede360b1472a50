// Schema-driven fast-check arbitraries ("Schemathesis-lite"): instances of the spec's request schemas, with hints
// that put real fixture ids where ids are expected, and mutations that break them in the ways clients do.
import fc from 'fast-check';

type Schema = Record<string, any>;

export interface Hints {
  /** Values to draw from for a property name (real ids, known names), mixed with generated ones. */
  [property: string]: fc.Arbitrary<unknown>;
}

export function resolve(spec: Schema, schema: Schema): Schema {
  let s = schema;
  while (s && typeof s.$ref === 'string') {
    const path = (s.$ref as string).replace(/^#\//, '').split('/');
    s = path.reduce((node: any, key) => node?.[key], spec);
  }
  return s ?? {};
}

/** Hostile values: wrong types, extremes, nulls in arrays, deep nesting, long and odd strings. */
export const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, true, false, 0, -1, 1.5, -0, 2 ** 53, -(2 ** 63), 1e308, '', ' ', '0', 'null', 'true', [], {}, [null], [null, null], [[]], [{}], { '': null }),
  fc.constantFrom('\u0000', '\ud800', '\udfff\ud800', '\u202e', 'é'.repeat(70), '😀'.repeat(70), '<script>', "'; DROP TABLE users; --", '%s%n', '../../etc/passwd'),
  fc.integer({ min: 1, max: 400000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 1, max: 5000 }).map((n) => Array.from({ length: n }, (_, i) => `id${i}`)),
  fc.integer({ min: 2, max: 3000 }).map((depth) => {
    let v: unknown = 1;
    for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
    return v;
  }),
);

/** An instance of `schema`, mostly valid. */
export function arbitraryFor(spec: Schema, schema: Schema, hints: Hints = {}, name = '', depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(spec, schema);
  if (name && hints[name]) return fc.oneof({ weight: 4, arbitrary: hints[name] }, { weight: 1, arbitrary: plain(spec, s, hints, depth) });
  return plain(spec, s, hints, depth);
}

function plain(spec: Schema, s: Schema, hints: Hints, depth: number): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]));
  if (s.anyOf || s.oneOf) return fc.oneof(...((s.anyOf ?? s.oneOf) as Schema[]).map((x) => arbitraryFor(spec, x, hints, '', depth + 1)));
  if (s.allOf) return arbitraryFor(spec, Object.assign({}, ...(s.allOf as Schema[]).map((x) => resolve(spec, x))), hints, '', depth);
  const type = Array.isArray(s.type) ? s.type[0] : s.type ?? (s.properties ? 'object' : undefined);
  switch (type) {
    case 'string':
      if (s.pattern === '^[a-z0-9]{26}$') return fc.stringMatching(/^[a-z0-9]{26}$/);
      return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 40, 80) });
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 2 ** 40 });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      if (depth > 3) return fc.constant([]);
      const items = arbitraryFor(spec, s.items ?? {}, hints, '', depth + 1);
      return fc.array(items, { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 4, 4) });
    }
    case 'object': {
      if (depth > 3) return fc.constant({});
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const required = new Set<string>((s.required as string[]) ?? []);
      const entries = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, arbitraryFor(spec, v, hints, k, depth + 1)]));
      const base = fc.record(entries, { requiredKeys: Object.keys(entries).filter((k) => required.has(k)) });
      if (s.additionalProperties && Object.keys(props).length === 0) {
        const values = typeof s.additionalProperties === 'object' ? arbitraryFor(spec, s.additionalProperties, hints, '', depth + 1) : fc.jsonValue({ maxDepth: 2 });
        return fc.dictionary(fc.string({ maxLength: 10 }), values, { maxKeys: 4 });
      }
      return base;
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A body for `schema`: valid, valid with fields replaced/removed/added, or any JSON at all. */
export function bodyFor(spec: Schema, schema: Schema, hints: Hints = {}): fc.Arbitrary<unknown> {
  const valid = arbitraryFor(spec, schema, hints);
  const s = resolve(spec, schema);
  const keys = Object.keys(s.properties ?? {});
  const mutated = fc
    .tuple(valid, fc.array(fc.tuple(keys.length ? fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 })) : fc.string({ maxLength: 8 }), hostile, fc.boolean()), { minLength: 1, maxLength: 3 }))
    .map(([v, changes]) => {
      if (!v || typeof v !== 'object' || Array.isArray(v)) return changes[0][1];
      const out: Record<string, unknown> = { ...(v as Record<string, unknown>) };
      for (const [k, value, remove] of changes) {
        if (remove && keys.length > 0) delete out[k];
        else out[k] = value;
      }
      return out;
    });
  const nested = nestedMutation(spec, s, hints);
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 4, arbitrary: mutated }, { weight: 1, arbitrary: nested }, { weight: 1, arbitrary: hostile });
}

/** For object schemas with object-valued sections (PatchConfig): mutate one level down. */
function nestedMutation(spec: Schema, s: Schema, hints: Hints): fc.Arbitrary<unknown> {
  const sections = Object.entries((s.properties ?? {}) as Record<string, Schema>).filter(([, v]) => resolve(spec, v).properties);
  if (sections.length === 0) return hostile;
  return fc.constantFrom(...sections).chain(([name, section]) => {
    const keys = Object.keys(resolve(spec, section).properties);
    return fc.tuple(arbitraryFor(spec, section, hints), fc.constantFrom(...keys), hostile).map(([v, k, value]) => ({ [name]: { ...(v as object), [k]: value } }));
  });
}
