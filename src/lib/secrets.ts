import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { newId } from './ids';

// scrypt parameters: about 50 ms on one core, run on libuv's thread pool so the event loop keeps serving.
const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;

function scryptAsync(password: string, salt: Buffer, keylen: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keylen, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, KEYLEN);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  const key = await scryptAsync(password, salt, expected.length);
  return timingSafeEqual(key, expected);
}

/** A bearer token: 26 characters from 128 random bits, the same shape as Mattermost's session tokens. */
export function newToken(): string {
  return newId();
}

/** Tokens are stored only as this digest, so a leaked database does not leak usable sessions. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
