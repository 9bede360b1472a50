import { Config, Section, defaultConfig } from './settings';
import { AppError } from '../model';

type Json = Record<string, unknown>;

/**
 * Applies a partial, Mattermost-shaped config onto a full one. Only known sections and keys are taken, and each
 * value must have the type of the default: a wrong type is a 400, not a silently broken server.
 */
export function applyPatch(base: Config, patch: unknown, where = 'config'): Config {
  const out = structuredClone(base) as unknown as Record<string, Json>;
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return base;
  const defaults = defaultConfig() as unknown as Record<string, Json>;
  for (const [section, values] of Object.entries(patch as Json)) {
    // Own keys only: `in` would take "constructor" or "__proto__" for a section and write through to Object. A null
    // section changes nothing, as a null key does below.
    if (!Object.hasOwn(defaults, section) || values === null || typeof values !== 'object' || Array.isArray(values)) continue;
    for (const [key, value] of Object.entries(values as Json)) {
      // Null is "not changed": Mattermost's config fields are pointers, and a null pointer leaves the setting as it is.
      if (!Object.hasOwn(defaults[section], key) || value === undefined || value === null) continue;
      const expected = typeof defaults[section][key];
      if (typeof value !== expected || (expected === 'number' && !Number.isFinite(value))) {
        throw AppError.badRequest('model.config.is_valid.app_error', `${where}: ${section}.${key} must be a ${expected}.`);
      }
      out[section][key] = value;
    }
  }
  return out as unknown as Config;
}

/** Reads `MM_<SECTION>_<KEY>` variables (case-insensitive, as Mattermost does) into a partial config. */
export function configFromEnv(env: NodeJS.ProcessEnv): Json {
  const defaults = defaultConfig() as unknown as Record<string, Json>;
  const out: Record<string, Json> = {};
  for (const section of Object.keys(defaults)) {
    for (const key of Object.keys(defaults[section])) {
      const raw = env[`MM_${section}_${key}`.toUpperCase()];
      if (raw === undefined) continue;
      const expected = typeof defaults[section][key];
      let value: unknown = raw;
      if (expected === 'boolean') value = /^(true|1|yes|on)$/i.test(raw.trim());
      else if (expected === 'number') value = Number(raw);
      (out[section] ??= {})[key] = value;
    }
  }
  return out;
}

export function sectionKeys(config: Json): Array<[Section, string]> {
  const keys: Array<[Section, string]> = [];
  for (const [section, values] of Object.entries(config)) {
    for (const key of Object.keys(values as Json)) keys.push([section as Section, key]);
  }
  return keys;
}
