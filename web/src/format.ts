/**
 * Dates and times as the post list shows them, in the viewer's locale. The formatters are made once: building an
 * Intl.DateTimeFormat per call (what toLocaleTimeString with options does) costs more than rendering the post.
 */
const time = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });
const full = new Intl.DateTimeFormat(undefined, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit' });
const dayThisYear = new Intl.DateTimeFormat(undefined, { weekday: 'short', month: 'short', day: 'numeric' });
const dayOtherYear = new Intl.DateTimeFormat(undefined, { weekday: 'short', month: 'short', day: 'numeric', year: 'numeric' });
const shortDate = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', year: 'numeric' });

export function timeOf(ms: number): string {
  return time.format(ms);
}

export function fullDateTime(ms: number): string {
  return full.format(ms);
}

export function shortDateOf(ms: number): string {
  return shortDate.format(ms);
}

export function dayLabel(dayStart: number, now = Date.now()): string {
  const today = new Date(now);
  const todayStart = new Date(today.getFullYear(), today.getMonth(), today.getDate()).getTime();
  if (dayStart === todayStart) return 'Today';
  const yesterday = new Date(todayStart);
  yesterday.setDate(yesterday.getDate() - 1);
  if (dayStart === yesterday.getTime()) return 'Yesterday';
  const d = new Date(dayStart);
  return (d.getFullYear() === today.getFullYear() ? dayThisYear : dayOtherYear).format(d);
}

/** Length in Unicode code points, as the server counts the 16383-character limit. */
export function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
