import type { ComponentChildren } from 'preact';
import type { SlackAttachment } from '../api';
import { shortDateOf } from '../format';
import { safeImageUrl, safeUrl } from '../markdown';
import { AttachmentActions } from './AttachmentActions';
import { Markdown } from './Markdown';

/**
 * Slack message attachments as Mattermost renders them (message_attachment.tsx): pretext above a box with a colour
 * bar; author line, title (a link when title_link is safe), Markdown text, fields (short ones two per row), image,
 * thumbnail at the side, footer (300 characters at most) with its icon and time. Every string is shown as text or
 * through the sanitising Markdown renderer; URLs are used only when http(s).
 */

const NAMED_COLOURS: Record<string, string> = { good: '#2e7d32', warning: '#c77800', danger: '#c62828' };
const FOOTER_MAX = 300;

function barColour(color: unknown): string | undefined {
  if (typeof color !== 'string') return undefined;
  if (/^#[0-9a-f]{3}([0-9a-f]{3})?$/i.test(color)) return color;
  return NAMED_COLOURS[color.toLowerCase()];
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

function truncate(s: string, max: number): string {
  const chars = Array.from(s);
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : s;
}

function isShort(short: unknown): boolean {
  return short === true || short === 'true';
}

function tsDate(ts: unknown): string {
  const n = typeof ts === 'number' ? ts : typeof ts === 'string' ? Number(ts) : NaN;
  if (!Number.isFinite(n) || n <= 0) return '';
  return shortDateOf(n * 1000);
}

type Field = { title?: string; value?: unknown; short?: boolean | string };

/** Groups fields into table rows: two short fields share a row, any other field is alone. */
function fieldRows(fields: Field[]): Field[][] {
  const rows: Field[][] = [];
  let pending: Field | null = null;
  for (const f of fields) {
    if (isShort(f.short)) {
      if (pending) {
        rows.push([pending, f]);
        pending = null;
      } else pending = f;
    } else {
      if (pending) {
        rows.push([pending]);
        pending = null;
      }
      rows.push([f]);
    }
  }
  if (pending) rows.push([pending]);
  return rows;
}

function ExternalLink({ href, children, class: cls }: { href: string; children: ComponentChildren; class?: string }) {
  return (
    <a class={cls} href={href} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  );
}

/** `postId` and `clickable` for the attachment's interactive actions (clickable: a stored post). */
export function Attachment({ a, postId = '', clickable = false }: { a: SlackAttachment; postId?: string; clickable?: boolean }) {
  const colour = barColour(a.color);
  const fields = (Array.isArray(a.fields) ? a.fields : []).filter((f): f is Field => !!f && typeof f === 'object' && (text(f.title) !== '' || text(f.value) !== ''));
  const authorName = text(a.author_name);
  const authorLink = safeUrl(text(a.author_link));
  const authorIcon = safeImageUrl(a.author_icon);
  const title = text(a.title);
  const titleLink = safeUrl(text(a.title_link));
  const body = text(a.text);
  const image = safeImageUrl(a.image_url);
  const thumb = safeImageUrl(a.thumb_url);
  const footer = text(a.footer);
  const footerIcon = safeImageUrl(a.footer_icon);
  const when = tsDate(a.ts);
  const pretext = text(a.pretext);
  const hasActions = Array.isArray(a.actions) && a.actions.length > 0;
  const hasBox = !!(authorName || title || thumb || body || image || fields.length || footer || hasActions);
  return (
    <div class="attachment">
      {pretext && <Markdown class="attachment__pretext" text={pretext} />}
      {hasBox && (
        <div class="attachment__box" style={colour ? { borderLeftColor: colour } : undefined}>
          <div class="attachment__main">
            {authorName && (
              <div class="attachment__author">
                {authorIcon && <img class="attachment__author-icon" src={authorIcon} alt="" width={14} height={14} referrerpolicy="no-referrer" />}
                {authorLink ? <ExternalLink href={authorLink}>{authorName}</ExternalLink> : <span>{authorName}</span>}
              </div>
            )}
            {title && <div class="attachment__title">{titleLink ? <ExternalLink href={titleLink}>{title}</ExternalLink> : title}</div>}
            {body && <Markdown class="attachment__text" text={body} />}
            {fields.length > 0 && (
              <table class="attachment__fields">
                {fieldRows(fields).map((row, i) => (
                  <tbody key={i}>
                    <tr>
                      {row.map((f, j) => (
                        <th key={j} scope="col" colSpan={row.length === 1 && !isShort(f.short) ? 2 : 1}>
                          {text(f.title)}
                        </th>
                      ))}
                    </tr>
                    <tr>
                      {row.map((f, j) => (
                        <td key={j} colSpan={row.length === 1 && !isShort(f.short) ? 2 : 1}>
                          <Markdown text={text(f.value)} />
                        </td>
                      ))}
                    </tr>
                  </tbody>
                ))}
              </table>
            )}
            {hasActions && <AttachmentActions postId={postId} actions={a.actions} clickable={clickable} />}
            {image && <img class="attachment__image" src={image} alt="" loading="lazy" referrerpolicy="no-referrer" />}
            {(footer || when) && (
              <div class="attachment__footer">
                {footerIcon && <img class="attachment__footer-icon" src={footerIcon} alt="" width={16} height={16} referrerpolicy="no-referrer" />}
                {footer && <span>{truncate(footer, FOOTER_MAX)}</span>}
                {footer && when && <span aria-hidden="true"> | </span>}
                {when && <span>{when}</span>}
              </div>
            )}
          </div>
          {thumb && <img class="attachment__thumb" src={thumb} alt="" width={75} height={75} referrerpolicy="no-referrer" />}
        </div>
      )}
    </div>
  );
}

export function Attachments({ attachments, postId = '', clickable = false }: { attachments: unknown; postId?: string; clickable?: boolean }) {
  if (!Array.isArray(attachments)) return null;
  const list = attachments.filter((a): a is SlackAttachment => !!a && typeof a === 'object');
  if (!list.length) return null;
  return (
    <div class="attachments">
      {list.map((a, i) => (
        <Attachment key={i} a={a} postId={postId} clickable={clickable} />
      ))}
    </div>
  );
}
