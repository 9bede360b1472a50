import { existsSync, readFileSync } from 'node:fs';
import { Config, defaultConfig } from './settings';
import { applyPatch, configFromEnv } from './merge';
import { configProblem } from './validate';

export interface BootConfig {
  /** Defaults overlaid with the config file: what seeds the shared, database-stored config on first start. */
  base: Config;
  /** `MM_<SECTION>_<KEY>` overrides: they win over everything, in this process only. */
  env: Record<string, unknown>;
  /** Where the file came from, for the start-up log. */
  file: string | null;
}

/** The config file is `$MM_CONFIG`, else `./config/config.json` when present; it is optional. */
export function loadBootConfig(env: NodeJS.ProcessEnv = process.env): BootConfig {
  const file = env.MM_CONFIG ?? (existsSync('config/config.json') ? 'config/config.json' : null);
  let base = defaultConfig();
  if (file) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`cannot read config file ${file}: ${(err as Error).message}`);
    }
    base = applyPatch(base, parsed, file);
  }
  return { base, env: configFromEnv(env), file };
}

/**
 * The settings a process needs before it can reach the shared config: database and listen address. A config file or
 * environment that breaks the config's rules stops the start, naming the rule.
 */
export function bootSettings(boot: BootConfig): Config {
  const settings = applyPatch(boot.base, boot.env, 'environment');
  const problem = configProblem(settings);
  if (problem) throw new Error(`invalid configuration: ${problem.message}`);
  return settings;
}
