import { parseRoute, type Route } from './routes';

/** History-API navigation between the routes of routes.ts. */
export { channelPath, loginPath, parseRoute, permalinkPath, type Route } from './routes';

let listener: (route: Route) => void = () => undefined;

/**
 * A screen with unsaved changes (the system console) may hold navigation: given the path about to be shown, it
 * answers true when it took over (it asks the person, then calls `navigate` again after clearing itself).
 */
type LeaveGuard = (path: string) => boolean;
let leaveGuard: LeaveGuard | undefined;

export function setLeaveGuard(guard: LeaveGuard | undefined): void {
  leaveGuard = guard;
}

export function onRouteChange(fn: (route: Route) => void): void {
  listener = fn;
  let shown = location.pathname + location.search;
  window.addEventListener('popstate', () => {
    const next = location.pathname + location.search;
    if (leaveGuard && next !== shown && leaveGuard(next)) {
      // Back or forward while held: the held page's URL stays until the person decides.
      history.pushState(null, '', shown);
      return;
    }
    shown = next;
    listener(currentRoute());
  });
  shownPath = () => shown;
  setShown = (p) => {
    shown = p;
  };
}

let shownPath = (): string => location.pathname + location.search;
let setShown: (path: string) => void = () => undefined;

export function currentRoute(): Route {
  return parseRoute(location.pathname, location.search);
}

export function navigate(path: string, opts: { replace?: boolean } = {}): void {
  if (leaveGuard && path !== shownPath() && leaveGuard(path)) return;
  if (path !== location.pathname + location.search) {
    if (opts.replace) history.replaceState(null, '', path);
    else history.pushState(null, '', path);
  }
  setShown(location.pathname + location.search);
  listener(currentRoute());
}
