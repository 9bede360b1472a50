// Slack compatibility: the text conventions and attachment normalisation Mattermost applies to webhook payloads.
import { ActionRuleError, checkAttachmentActions } from './attachment-actions';

// Linear: the url stops at "<" and "|", the label at "|", so a failed try never reads past where the next can start.
const LINK = /<([^\n<|>]+)\|([^|\n>]+)>/g;
const USER_REF = /<@([a-z0-9]{26})>/gi;

/** `<!channel>`, `<!here>`, `<!all>` become Mattermost mentions; `<@ID>` becomes `@username` when the id is known. */
export function convertSlackMentions(text: string, usernames: ReadonlyMap<string, string>): string {
  if (!text.includes('<')) return text;
  return text
    .replaceAll('<!channel>', '@channel')
    .replaceAll('<!here>', '@here')
    .replaceAll('<!all>', '@all')
    .replace(USER_REF, (whole, id: string) => {
      const name = usernames.get(id.toLowerCase());
      return name ? `@${name}` : whole;
    });
}

/** `<url|label>` becomes the Markdown link `[label](url)`. */
export function convertSlackLinks(text: string, forAttachment = false): string {
  if (!text.includes('<')) return text;
  if (forAttachment) return convertAttachmentLinks(text);
  return text.replace(LINK, (_w, url: string, label: string) => `[${label}](${url})`);
}

/**
 * Mattermost's looser attachment pattern `<([^<|]+)\|([^>]+)>`, scanned by hand: the url runs from "<" to the first
 * "<" or "|" and must end at a "|"; the label runs to the first ">" after that (it may hold "|", "<" and newlines)
 * and must not be empty. As a regex every "<" re-read the rest of a text that has no ">" (`<a|` repeated took
 * seconds); here each "<" costs its url, and the first ">" is looked up again only once the scan has passed it.
 */
function convertAttachmentLinks(text: string): string {
  let out = '';
  let copied = 0;
  let close = -1;
  for (let open = text.indexOf('<'); open !== -1; ) {
    let bar = open + 1;
    while (bar < text.length && text[bar] !== '<' && text[bar] !== '|') bar++;
    if (bar === text.length) break;
    if (text[bar] === '|' && bar > open + 1) {
      if (close <= bar) close = text.indexOf('>', bar + 1);
      // No ">" after this "|" means none after any later one either: nothing more can match.
      if (close === -1) break;
      if (close > bar + 1) {
        out += `${text.slice(copied, open)}[${text.slice(bar + 1, close)}](${text.slice(open + 1, bar)})`;
        copied = close + 1;
        open = text.indexOf('<', copied);
        continue;
      }
    }
    // The url held no "<", so the next try starts at the "<" or "|" it stopped at, never before.
    open = text.indexOf('<', bar);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Every `<@ID>` referenced in the texts, so their usernames can be fetched in one query. */
export function referencedUserIds(texts: string[]): string[] {
  const ids = new Set<string>();
  for (const text of texts) for (const m of text.matchAll(USER_REF)) ids.add(m[1].toLowerCase());
  return [...ids];
}

/**
 * Go's `%v` for a JSON value, which is how Mattermost stringifies attachment field values: numbers use the
 * shortest form with an exponent from 1e+06 up ("1e+06", "1.2345678e+07"), maps and slices use Go syntax.
 */
export function goValueString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return goFloat(value);
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goValueString).join(' ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[${entries.map(([k, v]) => `${k}:${goValueString(v)}`).join(' ')}]`;
}

function goFloat(v: number): string {
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mantissa, expText] = v.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const digits = String(Math.abs(exp)).padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  return String(v);
}

export type Attachment = Record<string, unknown>;

export class AttachmentError extends Error {}

/**
 * Normalises Slack attachments as Mattermost does on decode: null attachments and null fields are dropped, field
 * values become strings, and `short` must be a boolean or "true"/"false". An empty result means no attachments.
 * A null member of an attachment or field is dropped too: Mattermost decodes it to the zero value, which it treats
 * as not given (`short` excepted: its decoder refuses null).
 */
export function normaliseAttachments(raw: unknown): Attachment[] {
  if (raw === null || raw === undefined) return [];
  if (!Array.isArray(raw)) throw new AttachmentError('attachments must be an array');
  const out: Attachment[] = [];
  for (const item of raw) {
    if (item === null) continue;
    if (typeof item !== 'object' || Array.isArray(item)) throw new AttachmentError('each attachment must be an object');
    const att: Attachment = withoutNullMembers(item as Attachment);
    if (att.fields !== undefined) {
      if (!Array.isArray(att.fields)) throw new AttachmentError('attachment fields must be an array');
      att.fields = att.fields
        .filter((f) => f !== null)
        .map((f) => {
          if (typeof f !== 'object' || Array.isArray(f)) throw new AttachmentError('each attachment field must be an object');
          const field = withoutNullMembers(f as Record<string, unknown>, 'short');
          if (field.value !== undefined) field.value = goValueString(field.value);
          if ('short' in field) field.short = parseShort(field.short);
          return field;
        });
    }
    out.push(att);
  }
  // Interactive actions by their rules (attachment-actions.ts): every one needs its integration.
  try {
    checkAttachmentActions(out);
  } catch (err) {
    if (err instanceof ActionRuleError) throw new AttachmentError(err.message);
    throw err;
  }
  return out;
}

/**
 * A copy without the members that are null (`keep` stays, to be judged by its own rule). Built with
 * Object.fromEntries, as the spread it replaces was, so a "__proto__" key stays an ordinary member.
 */
function withoutNullMembers(raw: Record<string, unknown>, keep?: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(raw).filter(([key, value]) => value !== null || key === keep));
}

function parseShort(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw new AttachmentError('attachment field "short" must be true or false');
}

/** Applies the text conventions to the parts of an attachment Mattermost converts. */
export function convertAttachment(att: Attachment, usernames: ReadonlyMap<string, string>): Attachment {
  const out = { ...att };
  for (const key of ['pretext', 'text', 'title']) {
    if (typeof out[key] === 'string') {
      let text = convertSlackMentions(out[key] as string, usernames);
      if (key !== 'title') text = convertSlackLinks(text, true);
      out[key] = text;
    }
  }
  if (Array.isArray(out.fields)) {
    out.fields = out.fields.map((f: Record<string, unknown>) =>
      typeof f.value === 'string' ? { ...f, value: convertSlackLinks(convertSlackMentions(f.value, usernames), true) } : f,
    );
  }
  return out;
}

/** The texts of a payload that may hold Slack user references. */
export function attachmentTexts(attachments: Attachment[]): string[] {
  const texts: string[] = [];
  for (const a of attachments) {
    for (const key of ['pretext', 'text', 'title']) if (typeof a[key] === 'string') texts.push(a[key] as string);
    if (Array.isArray(a.fields)) for (const f of a.fields) if (typeof f.value === 'string') texts.push(f.value);
  }
  return texts;
}
