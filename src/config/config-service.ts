import type { ConfigStore } from '../store/config-store';
import { applyPatch } from './merge';
import { BootConfig } from './load';
import { Config, MASK, PROCESS_LOCAL } from './settings';
import { configProblem } from './validate';

/**
 * The live configuration of this process. The patchable part lives in the database so every process sharing it
 * agrees; each process polls a version number (one indexed read) and reloads when another process patched it.
 * Environment overrides always win, as in Mattermost.
 */
export class ConfigService {
  private stored: Config;
  private version = 0;
  private timer: NodeJS.Timeout | undefined;
  private effective: Config;
  private patching: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: ConfigStore,
    private readonly boot: BootConfig,
  ) {
    this.stored = boot.base;
    this.effective = this.compute();
  }

  async init(): Promise<void> {
    await this.store.seed(JSON.stringify(this.boot.base), Date.now());
    await this.reload();
  }

  get(): Config {
    return this.effective;
  }

  /** Merges a partial config into the shared one and returns the new effective config. */
  patch(patch: unknown): Promise<Config> {
    // One patch at a time in this process, so two requests cannot both merge onto the same old copy.
    const run = this.patching.then(() => this.applyAndSave(patch));
    this.patching = run.catch(() => undefined);
    return run;
  }

  private async applyAndSave(patch: unknown): Promise<Config> {
    const masked = stripMasked(patch);
    let next: Config;
    let version: number;
    // Merge onto what is stored now, not onto this process's last poll, and save only if no other process saved
    // in between (compare-and-swap on the version): concurrent patches from several processes all survive.
    for (;;) {
      await this.reload();
      next = applyPatch(this.stored, masked, 'config');
      const problem = configProblem(next);
      if (problem) throw problem;
      version = Math.max(Date.now(), this.version + 1);
      if (await this.store.save(JSON.stringify(next), version, this.version)) break;
    }
    this.stored = next;
    this.version = version;
    this.effective = this.compute();
    return this.effective;
  }

  /** The config as an administrator sees it: secrets masked. */
  forDisplay(): Config {
    const shown = structuredClone(this.effective);
    if (shown.SqlSettings.DataSource) shown.SqlSettings.DataSource = MASK;
    if (shown.EmailSettings.SMTPPassword) shown.EmailSettings.SMTPPassword = MASK;
    return shown;
  }

  async refresh(): Promise<void> {
    const version = await this.store.version();
    if (version !== this.version) await this.reload();
  }

  startPolling(intervalMs = 1000): void {
    let polling = false;
    this.timer = setInterval(() => {
      // One poll at a time: with the database hung, overlapping polls would pile up and hold pooled connections.
      if (polling) return;
      polling = true;
      this.refresh()
        .catch(() => {
          // The database is unreachable: keep serving with the last known config until it returns.
        })
        .finally(() => {
          polling = false;
        });
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async reload(): Promise<void> {
    const row = await this.store.load();
    if (!row) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.value);
    } catch {
      return;
    }
    this.stored = applyPatch(this.boot.base, parsed, 'stored config');
    this.version = row.version;
    this.effective = this.compute();
  }

  private compute(): Config {
    const out = structuredClone(this.stored) as unknown as Record<string, Record<string, unknown>>;
    const base = this.boot.base as unknown as Record<string, Record<string, unknown>>;
    // Where to listen and which database to use are this process's own business, never another process's patch.
    for (const [section, key] of PROCESS_LOCAL) out[section][key] = base[section][key];
    return applyPatch(out as unknown as Config, this.boot.env, 'environment');
  }
}

function stripMasked(patch: unknown): unknown {
  if (!patch || typeof patch !== 'object') return patch;
  const copy = structuredClone(patch) as Record<string, Record<string, unknown>>;
  for (const section of Object.values(copy)) {
    if (section && typeof section === 'object') {
      for (const [key, value] of Object.entries(section)) if (value === MASK) delete section[key];
    }
  }
  return copy;
}
