import { navigate } from './router';

/** Follows a same-page link without a reload; modified clicks (new tab, …) are left to the browser. */
export function followLink(e: MouseEvent, href: string): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(href);
}

export function dmPath(team: string, username: string): string {
  return `/${encodeURIComponent(team)}/messages/@${encodeURIComponent(username)}`;
}
