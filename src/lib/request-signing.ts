import { createHmac, timingSafeEqual } from 'node:crypto';

/** The headers every call to an integration carries, so the integration can check it came from this server. */
export interface SignatureHeaders {
  'X-Parley-Timestamp': string;
  'X-Parley-Signature': string;
}

/**
 * Signs one call: `v1=<hex HMAC-SHA256 of "v1:" + timestamp + ":" + payload>`, keyed by the integration's secret (a
 * hook's or command's token). `payload` is the raw request body, or the raw query string of a GET. The timestamp (Unix
 * seconds) is inside the signed text, so an integration that rejects old timestamps also rejects replays.
 */
export function signatureHeaders(secret: string, payload: string, nowMs: number): SignatureHeaders {
  const timestamp = String(Math.floor(nowMs / 1000));
  return { 'X-Parley-Timestamp': timestamp, 'X-Parley-Signature': `v1=${sign(secret, timestamp, payload)}` };
}

function sign(secret: string, timestamp: string, payload: string): string {
  return createHmac('sha256', secret).update(`v1:${timestamp}:${payload}`).digest('hex');
}

/**
 * The check an integration makes (used by the tests and shown in docs/integrations.md): the signature matches and the
 * timestamp is within `toleranceSeconds` of now.
 */
export function verifySignature(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  payload: string,
  nowMs: number,
  toleranceSeconds = 300,
): boolean {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const want = Buffer.from(`v1=${sign(secret, timestamp, payload)}`);
  const got = Buffer.from(signature);
  return want.length === got.length && timingSafeEqual(want, got);
}
