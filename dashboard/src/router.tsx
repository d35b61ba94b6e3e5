// A small history router: the path picks the page, the query string holds every filter, so any
// view can be shared as a URL.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((fn) => fn());
addEventListener('popstate', notify);

export function navigate(href: string, opts: { replace?: boolean } = {}): void {
  const target = new URL(href, location.href);
  const current = location.pathname + location.search + location.hash;
  const next = target.pathname + target.search + target.hash;
  if (next === current) return;
  if (opts.replace) history.replaceState(null, '', next);
  else history.pushState(null, '', next);
  if (target.pathname !== location.pathname || !opts.replace) scrollTo(0, 0);
  notify();
}

export interface Location {
  path: string;
  query: URLSearchParams;
}

export function useLocation(): Location {
  const [, set] = useState(0);
  useEffect(() => {
    const fn = () => set((n) => n + 1);
    listeners.add(fn);
    return () => void listeners.delete(fn);
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

/** Replaces some query parameters (empty values are removed) and navigates. */
export function setQuery(patch: Record<string, string | number | null | undefined>, opts: { replace?: boolean } = {}): void {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || v === undefined || v === '') q.delete(k);
    else q.set(k, String(v));
  }
  const s = q.toString();
  navigate(`${location.pathname}${s ? `?${s}` : ''}`, opts);
}

export function Link(props: { href: string; children?: ComponentChildren; class?: string; title?: string; 'aria-current'?: 'page' }) {
  const { href, children, ...rest } = props;
  return (
    <a
      {...rest}
      href={href}
      onClick={(e: MouseEvent) => {
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}
