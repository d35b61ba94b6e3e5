// The dashboard's only way to the server: the public data API (and fix routes) with the signed-in
// key in `x-api-key`. The key lives in session storage (gone when the tab closes).
import { useEffect, useState } from 'preact/hooks';

export const DATA_API = '/api/v1/data';
const KEY_STORAGE = 'tracehouse.api-key';

export interface Principal {
  tenant: string;
  role: string;
  scopes: string[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_STORAGE);
  } catch {
    return null;
  }
}

export function storeKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

/** Listeners told when the server refuses the key (401): the shell shows the sign-in page. */
const unauthorizedListeners = new Set<(message: string) => void>();
export function onUnauthorized(fn: (message: string) => void): () => void {
  unauthorizedListeners.add(fn);
  return () => unauthorizedListeners.delete(fn);
}

function messageOf(body: unknown, fallback: string): string {
  const m = (body as { message?: unknown } | null)?.message;
  if (Array.isArray(m)) return m.join('; ');
  if (typeof m === 'string' && m) return m;
  return fallback;
}

/** A request to the data API (paths relative to /api/v1/data) or, with an absolute path, the origin. */
export async function api<T = any>(path: string, opts: { method?: string; body?: unknown; key?: string; signal?: AbortSignal } = {}): Promise<T> {
  const key = opts.key ?? storedKey() ?? '';
  const url = path.startsWith('/') && !path.startsWith('/api/') && !path.startsWith('/tenants/') && path !== '/openapi.json' ? `${DATA_API}${path}` : path;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers['x-api-key'] = key;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method: opts.method ?? 'GET', headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), signal: opts.signal });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const message = messageOf(body, `${res.status} ${res.statusText}`);
    if (res.status === 401 && opts.key === undefined) for (const fn of unauthorizedListeners) fn(message);
    throw new ApiError(res.status, message, body);
  }
  return body as T;
}

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | Error | undefined;
  loading: boolean;
  reload: () => void;
}

/** GETs `path` (null: nothing to load) and re-fetches when it changes; stale answers are dropped. */
export function useApi<T = any>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ path: string | null; data?: T; error?: Error; loading: boolean }>({ path, loading: path !== null });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) {
      setState({ path, loading: false });
      return;
    }
    const ctl = new AbortController();
    setState((s) => ({ path, data: s.path === path ? s.data : undefined, loading: true }));
    api<T>(path, { signal: ctl.signal }).then(
      (data) => !ctl.signal.aborted && setState({ path, data, loading: false }),
      (error: Error) => !ctl.signal.aborted && setState({ path, error, loading: false }),
    );
    return () => ctl.abort();
  }, [path, tick]);
  const fresh = state.path === path;
  return { data: fresh ? state.data : undefined, error: fresh ? state.error : undefined, loading: !fresh || state.loading, reload: () => setTick((t) => t + 1) };
}

/** `?a=1&b=2` from an object, skipping empty values. */
export function qs(params: Record<string, string | number | undefined | null>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

export const enc = encodeURIComponent;
