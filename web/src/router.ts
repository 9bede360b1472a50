import { parseRoute, type Route } from './routes';

/** History-API navigation between the routes of routes.ts. */
export { channelPath, loginPath, parseRoute, type Route } from './routes';

let listener: (route: Route) => void = () => undefined;

export function onRouteChange(fn: (route: Route) => void): void {
  listener = fn;
  window.addEventListener('popstate', () => listener(currentRoute()));
}

export function currentRoute(): Route {
  return parseRoute(location.pathname, location.search);
}

export function navigate(path: string, opts: { replace?: boolean } = {}): void {
  if (path !== location.pathname + location.search) {
    if (opts.replace) history.replaceState(null, '', path);
    else history.pushState(null, '', path);
  }
  listener(currentRoute());
}
