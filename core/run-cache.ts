/**
 * A cache of what never changes once written — a complete taxonomy run's model and nodes — by key,
 * bounded by the bytes its values hold rather than by their number: a deployment with more tenants
 * than a fixed count of entries would otherwise evict each tenant's run just before its next use and
 * read every one again on every pass over the tenants. The least recently used values leave first;
 * the value just loaded always stays, however large.
 *
 * Values are promises: callers asking for a key while it loads share the one load, and a failed
 * load is forgotten so that the next call tries again.
 */
export interface RunCache<V> {
  get(key: string, load: () => Promise<V>): Promise<V>;
  /** Values held (loaded or loading). */
  readonly size: number;
  /** Estimated bytes of the loaded values held. */
  readonly bytes: number;
}

export function createRunCache<V>(opts: { maxBytes: number; sizeOf: (value: V) => number }): RunCache<V> {
  const entries = new Map<string, { value: Promise<V>; bytes: number; loaded: boolean }>();
  let bytes = 0;
  const remove = (key: string) => {
    const e = entries.get(key);
    if (!e) return;
    entries.delete(key);
    bytes -= e.bytes;
  };
  const evict = (keep: string) => {
    // a Map iterates in insertion order and a hit is re-inserted: the first keys are the least recently used
    for (const [key, e] of entries) {
      if (bytes <= opts.maxBytes) return;
      // a value still loading holds nothing yet, and its callers wait for it
      if (e.loaded && key !== keep) remove(key);
    }
  };
  return {
    get(key, load) {
      const hit = entries.get(key);
      if (hit) {
        entries.delete(key);
        entries.set(key, hit);
        return hit.value;
      }
      const entry = { value: load(), bytes: 0, loaded: false };
      entries.set(key, entry);
      entry.value.then(
        (v) => {
          if (entries.get(key) !== entry) return;
          entry.loaded = true;
          entry.bytes = opts.sizeOf(v);
          bytes += entry.bytes;
          // the new value is the most recently used until another key is asked for
          entries.delete(key);
          entries.set(key, entry);
          evict(key);
        },
        () => {
          if (entries.get(key) === entry) remove(key);
        },
      );
      return entry.value;
    },
    get size() {
      return entries.size;
    },
    get bytes() {
      return bytes;
    },
  };
}
