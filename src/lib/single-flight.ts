/**
 * One run per key at a time: a call for a key whose run is in flight waits for that run's outcome instead of starting
 * its own. A run that fails lets the next waiter run for itself (the failure may have been the first caller's alone).
 */
export class SingleFlight<T> {
  private readonly running = new Map<string, Promise<T>>();

  async run(key: string, fn: () => Promise<T>): Promise<T> {
    for (;;) {
      const current = this.running.get(key);
      if (!current) break;
      try {
        return await current;
      } catch {
        // Its caller gets that error; this one tries for itself.
      }
    }
    const run = fn();
    this.running.set(key, run);
    try {
      return await run;
    } finally {
      if (this.running.get(key) === run) this.running.delete(key);
    }
  }

  get size(): number {
    return this.running.size;
  }
}
