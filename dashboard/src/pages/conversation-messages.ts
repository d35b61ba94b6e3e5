// The conversation's messages, loaded in context windows (GET /conversations/:id/context) in parallel.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, enc, qs } from '../api';
import type { ContextResponse, Message } from './conversation-types';

export const WINDOW = 5; // messages each side: one context call returns up to 11
export const FIRST_LOAD = 110;

/** Loads messages [0, upTo) through GET /conversations/:id/context windows, in parallel. */
export function useMessages(id: string, want: number) {
  const cache = useRef<{ id: string; head: ContextResponse | null; messages: Map<number, Message> }>({ id, head: null, messages: new Map() });
  const [, rerender] = useState(0);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(true);
  if (cache.current.id !== id) cache.current = { id, head: null, messages: new Map() };
  useEffect(() => {
    const ctl = new AbortController();
    const mine = cache.current;
    (async () => {
      setLoading(true);
      setError(null);
      const first = mine.head ?? (await api<ContextResponse>(`/conversations/${enc(id)}/context${qs({ msg_index: WINDOW, window: WINDOW })}`, { signal: ctl.signal }));
      const got = new Map(mine.messages);
      for (const m of first.context.messages) got.set(m.index, m);
      const upTo = Math.min(first.total_messages, want);
      const centres: number[] = [];
      for (let c = WINDOW; c - WINDOW < upTo; c += 2 * WINDOW + 1) if (!got.has(c - WINDOW) || !got.has(Math.min(c + WINDOW, first.total_messages - 1))) centres.push(c);
      const windows = await Promise.all(centres.map((c) => api<ContextResponse>(`/conversations/${enc(id)}/context${qs({ msg_index: c, window: WINDOW })}`, { signal: ctl.signal })));
      for (const w of windows) for (const m of w.context.messages) got.set(m.index, m);
      if (ctl.signal.aborted || cache.current !== mine) return;
      mine.head = first;
      mine.messages = got;
      setLoading(false);
      rerender((n) => n + 1);
    })().catch((e: Error) => {
      if (!ctl.signal.aborted) {
        setError(e);
        setLoading(false);
      }
    });
    return () => ctl.abort();
  }, [id, want]);
  const { head, messages } = cache.current;
  return { head, messages: [...messages.values()].sort((a, b) => a.index - b.index), error, loading };
}
