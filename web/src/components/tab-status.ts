import { useEffect } from 'preact/hooks';
import { faviconPath, tabTitle, unreadSigns } from '../notify';
import { useStore } from '../state/use-store';

function setFavicon(href: string): void {
  const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
  if (link && link.getAttribute('href') !== href) link.setAttribute('href', href);
}

/**
 * The tab's title (`(3) Town Square - Team A Parley`: the unread mentions of the other channels) and its favicon,
 * with a dot while anything is unread: both kept in step with the state. The account settings name the tab themselves.
 */
export function useTabStatus(): void {
  const title = useStore(tabTitle);
  const unread = useStore((s) => unreadSigns(s).unread);
  // The account settings and the integrations page name the tab themselves.
  const account = useStore((s) => s.route.kind === 'account' || s.route.kind === 'integrations');
  useEffect(() => {
    if (!account) document.title = title;
  }, [title, account]);
  useEffect(() => {
    setFavicon(faviconPath(unread));
  }, [unread]);
  // Signed out (the shell is gone): the plain icon again.
  useEffect(() => () => setFavicon(faviconPath(false)), []);
}
