// The notification emails' subject, text part and HTML part, as Mattermost words them. Everything a user wrote (the
// message, names, channel names) is escaped in the HTML part and stripped of control characters everywhere; each
// pass over user text is linear in its length.

/** One post an email tells its recipient about. */
export interface EmailItem {
  /** How the sender is shown: their username, or a webhook's override name. */
  senderName: string;
  /** 'O' | 'P' | 'D' | 'G' */
  channelType: string;
  channelName: string;
  /** The post's text (already reduced to what a notification shows); unused for generic contents. */
  message: string;
  createAt: number;
  /** {SiteURL}/{team}/pl/{post_id} */
  link: string;
}

export interface RenderOptions {
  siteName: string;
  contents: 'full' | 'generic';
  /** The recipient's IANA time zone for dates; UTC when empty or unknown. */
  timeZone: string;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** Emails list at most this many posts; the rest are counted ("and 3 more"). */
export const MAX_ITEMS_PER_EMAIL = 50;

// Controls other than tab and newline (and the line and paragraph separators some clients break lines at).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Text as it may appear in an email: CRLF and lone CR as newlines, other control characters dropped. */
export function plain(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROL, '');
}

/** One line (a subject, a name): newlines become spaces. */
function oneLine(text: string): string {
  return plain(text).replace(/[\n\t]+/g, ' ').trim();
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** A message as HTML: escaped, its line breaks kept. */
function htmlMessage(message: string): string {
  return escapeHtml(plain(message)).replace(/\n/g, '<br>\n');
}

const DATE: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'long', day: 'numeric' };
const TIME: Intl.DateTimeFormatOptions = { hour: 'numeric', minute: '2-digit', timeZoneName: 'short' };

/**
 * Formatters by kind and time zone. Making an Intl.DateTimeFormat costs far more than formatting with one (it was
 * two-thirds of the email worker's CPU: about 0.5 ms an email), so each is made once. The zones come from users'
 * settings, so the cache is bounded; a name Intl rejects is cached as UTC's formatter.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
const MAX_FORMATTERS = 1000;

function formatter(kind: 'date' | 'time', timeZone: string): Intl.DateTimeFormat {
  const key = `${kind} ${timeZone}`;
  let f = formatters.get(key);
  if (!f) {
    const options = kind === 'date' ? DATE : TIME;
    try {
      f = new Intl.DateTimeFormat('en-US', { ...options, timeZone: timeZone || 'UTC' });
    } catch {
      f = new Intl.DateTimeFormat('en-US', { ...options, timeZone: 'UTC' });
    }
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(key, f);
  }
  return f;
}

/** "May 4, 2026" in the recipient's time zone (UTC when theirs is unknown). */
export function formatDate(ms: number, timeZone: string): string {
  return formatter('date', timeZone).format(ms);
}

function formatTime(ms: number, timeZone: string): string {
  return formatter('time', timeZone).format(ms);
}

function subjectOf(item: EmailItem, opts: RenderOptions): string {
  const site = oneLine(opts.siteName);
  const date = formatDate(item.createAt, opts.timeZone);
  const sender = oneLine(item.senderName);
  const channel = oneLine(item.channelName);
  if (item.channelType === 'D') return `[${site}] New Direct Message from @${sender} on ${date}`;
  if (item.channelType === 'G') {
    return opts.contents === 'full' ? `[${site}] New Group Message in ${channel} on ${date}` : `[${site}] New Group Message on ${date}`;
  }
  return `[${site}] New Mention in ${channel} on ${date}`;
}

/** The heading and the line under it, as plain text (escaped by the caller for HTML). */
function headingOf(item: EmailItem): { title: string; subtitle: string } {
  const sender = oneLine(item.senderName);
  const channel = oneLine(item.channelName);
  if (item.channelType === 'D') return { title: `${sender} sent you a new message`, subtitle: `While you were away, ${sender} sent you a new Direct Message.` };
  if (item.channelType === 'G') return { title: `${sender} sent you a new message`, subtitle: `While you were away, ${sender} sent a new message to your group.` };
  return { title: `${sender} mentioned you in a message`, subtitle: `While you were away, ${sender} mentioned you in the ${channel} channel.` };
}

function whereOf(item: EmailItem): string {
  return item.channelType === 'D' ? 'Direct Message' : oneLine(item.channelName);
}

function itemText(item: EmailItem, opts: RenderOptions): string {
  const lines = [`@${oneLine(item.senderName)} in ${whereOf(item)} at ${formatTime(item.createAt, opts.timeZone)}`];
  if (opts.contents === 'full') lines.push('', plain(item.message));
  lines.push('', `View Message: ${item.link}`);
  return lines.join('\n');
}

function itemHtml(item: EmailItem, opts: RenderOptions): string {
  const parts = [
    `<p class="post-header"><strong>@${escapeHtml(oneLine(item.senderName))}</strong> in <strong>${escapeHtml(whereOf(item))}</strong> <span class="time">${escapeHtml(formatTime(item.createAt, opts.timeZone))}</span></p>`,
  ];
  if (opts.contents === 'full') parts.push(`<div class="message">${htmlMessage(item.message)}</div>`);
  parts.push(`<p><a class="button" href="${escapeHtml(item.link)}">View Message</a></p>`);
  return `<div class="post">\n${parts.join('\n')}\n</div>`;
}

const FOOTER_TEXT = 'To change your notification preferences, log in to your team site and go to Settings > Notifications.';

function page(title: string, subtitle: string, body: string): string {
  return [
    '<!DOCTYPE html>',
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>',
    '<body style="font-family: sans-serif; color: #3d3c40;">',
    `<h1 style="font-size: 20px;">${escapeHtml(title)}</h1>`,
    `<p>${escapeHtml(subtitle)}</p>`,
    body,
    `<p style="font-size: 12px; color: #888;">${escapeHtml(FOOTER_TEXT)}</p>`,
    '</body></html>',
  ].join('\n');
}

/** The email for one post (batching off, or the user asked for emails at once). */
export function renderSingle(item: EmailItem, opts: RenderOptions): RenderedEmail {
  const { title, subtitle } = headingOf(item);
  return {
    subject: subjectOf(item, opts),
    text: [title, subtitle, '', itemText(item, opts), '', FOOTER_TEXT, ''].join('\n'),
    html: page(title, subtitle, itemHtml(item, opts)),
  };
}

/** One email for a user's batch: every post of the interval (up to MAX_ITEMS_PER_EMAIL, the rest counted). */
export function renderBatch(items: EmailItem[], opts: RenderOptions): RenderedEmail {
  const shown = items.slice(0, MAX_ITEMS_PER_EMAIL);
  const more = items.length - shown.length;
  const site = oneLine(opts.siteName);
  const subject = `[${site}] New Notification${items.length === 1 ? '' : 's'} for ${formatDate(items[0].createAt, opts.timeZone)}`;
  const title = items.length === 1 ? 'You have a new notification' : `You have ${items.length} new notifications`;
  const subtitle = 'See below for a summary of your new messages.';
  const moreLine = more > 0 ? `...and ${more} more.` : '';
  const text = [title, subtitle, '', shown.map((i) => itemText(i, opts)).join('\n\n---\n\n'), moreLine, '', FOOTER_TEXT, ''].join('\n');
  const html = page(title, subtitle, shown.map((i) => itemHtml(i, opts)).join('\n<hr>\n') + (moreLine ? `\n<p>${escapeHtml(moreLine)}</p>` : ''));
  return { subject, text, html };
}
