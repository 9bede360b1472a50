/**
 * At most `limit` holders at once; up to `maxWaiting` more wait in order. Past that, `acquire` rejects at once (the
 * caller answers "busy") instead of queueing without bound: a burst of logins must not grow memory or latency forever.
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly limit: number,
    private readonly maxWaiting: number,
  ) {}

  async run<T>(fn: () => Promise<T>, busy: () => Error): Promise<T> {
    await this.acquire(busy);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private acquire(busy: () => Error): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.maxWaiting) return Promise.reject(busy());
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    // The slot passes straight to the next waiter: `active` stays the same.
    if (next) next();
    else this.active--;
  }

  get stats(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }
}
