/**
 * A tiny History API router: the current location as a signal-like store, `navigate` to change
 * it, and a click handler that turns same-origin links into in-app navigations.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Location {
  pathname: string;
  search: string;
  /** How many in-app navigations happened; 0 on the first page (focus stays where it is). */
  count: number;
}

let current: Location = {
  pathname: window.location.pathname,
  search: window.location.search,
  count: 0,
};
const listeners = new Set<(location: Location) => void>();

function update(): void {
  current = {
    pathname: window.location.pathname,
    search: window.location.search,
    count: current.count + 1,
  };
  for (const listener of listeners) listener(current);
}

window.addEventListener('popstate', update);

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (`${window.location.pathname}${window.location.search}` === path && !options.replace) return;
  if (options.replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  window.scrollTo(0, 0);
  update();
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    listeners.add(setLocation);
    setLocation(current);
    return () => {
      listeners.delete(setLocation);
    };
  }, []);
  return location;
}

/** For `<a onClick>`: plain left clicks on our own paths navigate without reloading. */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = event.currentTarget;
  if (!(anchor instanceof HTMLAnchorElement) || anchor.target || anchor.hasAttribute('download'))
    return;
  const url = new URL(anchor.href);
  if (url.origin !== window.location.origin) return;
  event.preventDefault();
  navigate(`${url.pathname}${url.search}`);
}
