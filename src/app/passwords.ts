import { randomBytes } from 'node:crypto';
import { Semaphore } from '../lib/semaphore';
import { hashPassword, needsRehash, verifyPassword } from '../lib/secrets';
import { AppError } from '../model';

/** Hashes computed at once: each holds 19 MiB and a thread of libuv's pool (4 by default, shared with file I/O). */
const CONCURRENT_HASHES = 2;
/** Beyond this many waiting, a login or sign-up is told the server is busy (503) instead of waiting in a longer line. */
const MAX_WAITING = 256;

/**
 * Every password hash and check goes through here: at most CONCURRENT_HASHES run at once, so a burst of logins costs
 * bounded memory and leaves the thread pool to the rest of the server.
 */
export class Passwords {
  private readonly slots = new Semaphore(CONCURRENT_HASHES, MAX_WAITING);
  private dummy: Promise<string> | undefined;

  hash(password: string): Promise<string> {
    return this.slots.run(() => hashPassword(password), AppError.serverBusy);
  }

  /**
   * Checks a password against a stored hash, or, for an account that does not exist (`stored` undefined), against a
   * hash of a random password with today's settings: the answer takes as long either way, so timing does not tell
   * which login ids exist.
   */
  async verify(password: string, stored: string | undefined): Promise<boolean> {
    this.dummy ??= hashPassword(randomBytes(16).toString('hex'));
    const against = stored || (await this.dummy);
    const ok = await this.slots.run(() => verifyPassword(password, against), AppError.serverBusy);
    return ok && stored !== undefined && stored !== '';
  }

  needsRehash(stored: string): boolean {
    return needsRehash(stored);
  }
}
