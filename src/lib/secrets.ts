import { createHash, scrypt, timingSafeEqual } from 'node:crypto';
import argon2 from 'argon2';
import { newId } from './ids';

/**
 * Password hashes: argon2id with 19 MiB of memory, 2 passes and 1 lane, the first of OWASP's password-storage
 * settings (about 50 ms here, on libuv's thread pool: the event loop keeps serving). Stored in the PHC string format,
 * which carries its parameters, so raising them later only needs a rehash at the next login (see needsRehash).
 */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, ARGON2_OPTIONS);
}

/** Whether `password` matches `stored`: an argon2id hash, or a legacy scrypt one (`scrypt$N$r$p$salt$key`). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (stored.startsWith('$argon2')) {
    try {
      return await argon2.verify(stored, password);
    } catch {
      return false;
    }
  }
  return verifyScrypt(password, stored);
}

/** A stored hash made with older or weaker settings than today's: replaced at the next successful login. */
export function needsRehash(stored: string): boolean {
  if (!stored.startsWith('$argon2id$')) return true;
  try {
    return argon2.needsRehash(stored, ARGON2_OPTIONS);
  } catch {
    return true;
  }
}

function verifyScrypt(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return Promise.resolve(false);
  const [N, r, p] = parts.slice(1, 4).map(Number);
  // Only the parameters earlier versions wrote (N=2^14, r=8, p=1): anything else is not a hash of ours.
  if (N !== 16384 || r !== 8 || p !== 1) return Promise.resolve(false);
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  return new Promise((resolve) =>
    scrypt(password, salt, expected.length, { N, r, p, maxmem: 64 * 1024 * 1024 }, (err, key) => resolve(!err && key.length === expected.length && timingSafeEqual(key, expected))),
  );
}

/** A bearer token: 26 characters from 128 random bits, the same shape as Mattermost's session tokens. */
export function newToken(): string {
  return newId();
}

/** Tokens are stored only as this digest, so a leaked database does not leak usable sessions. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
