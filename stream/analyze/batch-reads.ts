/**
 * The reads of an analysis batch as the analyze consumer runs them: its conversations split into
 * parts of whole tenants (one per analysis thread, loader.ts `tenantGroups`), each part read on
 * its own, in the consumer's lane (one statement sequence at a time). Conversations that join a
 * batch already read (analyze-consumer.ts: those of the batch in flight, with ANALYZE_PREFETCH)
 * go to the part that holds their tenant.
 */
import type { Store } from '../../core/clickhouse.js';
import { loadConversationChunks, tenantGroups, type ConversationKey } from './loader.js';
import type { LoadedChunk } from './work-items.js';

export interface BatchReads {
  keys: Map<string, ConversationKey>;
  /** The reads of each part of the batch (whole tenants), analyzed on threads at once. */
  parts: LoadedChunk[][];
  /** When the reads began (this clock): what changed before it was seen. */
  loadStartMs: number;
  loadSeconds: number;
}

type Lane = <T>(fn: () => Promise<T>) => Promise<T>;

async function readParts(store: Store, groups: ConversationKey[][], lane: Lane): Promise<{ parts: LoadedChunk[][]; seconds: number }> {
  const started = performance.now();
  const parts = await lane(async () => {
    const out: LoadedChunk[][] = [];
    for (const g of groups) out.push(await loadConversationChunks(store, g));
    return out;
  });
  return { parts, seconds: (performance.now() - started) / 1000 };
}

/** Reads the conversations of `keys` in at most `threads` parts. */
export async function readBatch(store: Store, keys: Map<string, ConversationKey>, threads: number, lane: Lane): Promise<BatchReads> {
  const loadStartMs = Date.now();
  const { parts, seconds } = await readParts(store, tenantGroups([...keys.values()], threads), lane);
  return { keys, parts, loadStartMs, loadSeconds: seconds };
}

/**
 * Reads the conversations of `keys` into `into`, each in the part of its tenant. The earlier load
 * time stands for all: coverage may then analyze once more, never skip a change.
 */
export async function joinBatch(store: Store, into: BatchReads, keys: Map<string, ConversationKey>, lane: Lane): Promise<void> {
  const { parts, seconds } = await readParts(store, joinGroups(into.parts, [...keys.values()]), lane);
  for (const [k, v] of keys) into.keys.set(k, v);
  parts.forEach((chunks, i) => into.parts[i]!.push(...chunks));
  into.loadSeconds += seconds;
}

/** `keys` by the part that holds their tenant (a new tenant: the smallest part), one list per part. */
export function joinGroups(parts: readonly LoadedChunk[][], keys: readonly ConversationKey[]): ConversationKey[][] {
  const partOf = new Map<string, number>();
  parts.forEach((chunks, i) => {
    for (const c of chunks) for (const k of c.keys) partOf.set(k.tenantId, i);
  });
  const sizes = parts.map((chunks) => chunks.reduce((n, c) => n + c.keys.length, 0));
  const groups: ConversationKey[][] = parts.map(() => []);
  for (const k of keys) {
    let i = partOf.get(k.tenantId);
    if (i === undefined) {
      i = sizes.indexOf(Math.min(...sizes));
      partOf.set(k.tenantId, i);
    }
    sizes[i]!++;
    groups[i]!.push(k);
  }
  return groups;
}
