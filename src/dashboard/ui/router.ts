import { useEffect, useState } from 'preact/hooks';

export type Tab = 'overview' | 'timeline' | 'http' | 'compare';

export type Route = { page: 'list' } | { page: 'capture'; id: string; tab: Tab; row: number | null };

const TABS: Tab[] = ['overview', 'timeline', 'http', 'compare'];

/** `#/captures/<id>/<tab>/<row>` → route. Hash routing keeps the server to one page. Pure. */
export function parseHash(hash: string): Route {
  const parts = hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return '';
      }
    });
  if (parts[0] === 'captures' && parts[1]) {
    const tab = TABS.includes(parts[2] as Tab) ? (parts[2] as Tab) : 'overview';
    const row = parts[3] !== undefined && /^\d+$/.test(parts[3]) ? Number(parts[3]) : null;
    return { page: 'capture', id: parts[1], tab, row };
  }
  return { page: 'list' };
}

export function captureHref(id: string, tab: Tab = 'overview', row: number | null = null): string {
  return `#/captures/${encodeURIComponent(id)}${tab === 'overview' && row === null ? '' : `/${tab}`}${row === null ? '' : `/${row}`}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
