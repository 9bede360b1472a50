/**
 * Retries `check` until it stops throwing (and returns its value), or fails with its last error after `timeoutMs`.
 * For conditions reached asynchronously (an event delivered, a poll picked up): no fixed sleep to tune.
 */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 5000, intervalMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
