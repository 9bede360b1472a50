// The config poll runs one at a time: while the database hangs, a poll that has not returned is not joined by
// another every second (each would hold a pooled connection until the query timeout).
import { ConfigService } from '../../src/config/config-service';
import { loadBootConfig } from '../../src/config/load';
import type { ConfigStore } from '../../src/store/config-store';
import { eventually } from '../support/eventually';

test('a poll still waiting on the database is not overlapped by the next ones; polling resumes when it returns', async () => {
  let calls = 0;
  let release: (() => void) | undefined;
  // A store whose version query hangs until released, the way a frozen database does.
  const hung = {
    version: () => {
      calls++;
      return new Promise<number>((resolve) => (release = () => resolve(0)));
    },
  } as unknown as ConfigStore;
  const service = new ConfigService(hung, loadBootConfig({}));
  service.startPolling(10);
  try {
    // Time passing is the point: a dozen polling periods go by while the first query hangs, and no second one starts.
    await new Promise((r) => setTimeout(r, 120));
    expect(calls).toBe(1);
    release?.();
    await eventually(() => expect(calls).toBeGreaterThan(1));
  } finally {
    service.stop();
  }
});
