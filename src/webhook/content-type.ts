const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(`^\\s*(${TOKEN})/(${TOKEN})\\s*(?:;.*)?$`, 's');

export type MediaType = { kind: 'none' } | { kind: 'malformed' } | { kind: 'type'; type: string };

/**
 * The media type of a Content-Type header, lower-cased with parameters dropped (they never change how a webhook
 * body is read). Anything that is not `type/subtype[; params]` is malformed.
 */
export function parseMediaType(header: string | undefined): MediaType {
  if (header === undefined || header.trim() === '') return { kind: 'none' };
  const m = MEDIA_TYPE.exec(header);
  if (!m) return { kind: 'malformed' };
  return { kind: 'type', type: `${m[1]}/${m[2]}`.toLowerCase() };
}
