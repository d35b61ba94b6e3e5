/**
 * User memory: the one analysis with state across conversations. A compact document per user
 * (tenant, user id) holding, for each durable slot (facts about the user: ids, name, e-mail,
 * membership, working directory …), its latest values — newest first, one per conversation, at
 * most `MAX_VALUES_PER_SLOT` — with where each was stated. It warm-starts the world state of the
 * user's next conversation (`conversationWarmstart`) and is not exposed by any endpoint.
 *
 * Determinism: a conversation is warm-started only with values stated in OTHER conversations AT OR
 * BEFORE its first message, so re-analyzing a conversation after it grew, or after later
 * conversations of the same user wrote the memory, loads the same values (as long as the value
 * is still among the slot's kept values). A conversation's contribution replaces its previous
 * one on every analysis run (docs/analyses.md "User memory" defines when a conversation ends).
 * Pure: the framework reads and writes the document (stream/analyze/).
 */
import type { DurableProfile, SlotMap } from '../../schemas/world-state.js';
import type { MemoryEntry, UserMemoryDocument } from './types.js';

export const USER_MEMORY_VERSION = 1;
/** Durable slot keys kept per user (the least recently stated beyond this are dropped). */
export const MAX_MEMORY_SLOTS = 64;
/** Values kept per slot key (each from a different conversation). */
export const MAX_VALUES_PER_SLOT = 3;

const iso = (ms: number) => new Date(ms).toISOString();

export const emptyMemory = (userId: string): UserMemoryDocument => ({ userId, slots: {}, updatedAt: 0 });

const newestFirst = (a: MemoryEntry, b: MemoryEntry) => b.at - a.at || (a.conversationId < b.conversationId ? -1 : a.conversationId > b.conversationId ? 1 : 0);

/**
 * The durable slots carried into conversation `conversationId`, which starts at `startMs`: per key,
 * the newest value stated in another conversation at or before that time. null when none.
 */
export function warmstart(memory: UserMemoryDocument | undefined, conversationId: string, startMs: number): DurableProfile | null {
  if (!memory) return null;
  const slots: SlotMap = {};
  let updated = 0;
  for (const key of Object.keys(memory.slots).sort()) {
    const entry = memory.slots[key]!.find((e) => e.conversationId !== conversationId && e.at <= startMs);
    if (!entry || entry.value === null) continue;
    slots[key] = {
      value: entry.value,
      source: { source: 'carry_in', conversationId: entry.conversationId, msgIndex: entry.msgIndex, blockIndex: entry.blockIndex, ...(entry.tool ? { tool: entry.tool } : {}) },
      durable: true,
      updatedAt: iso(entry.at),
    };
    updated = Math.max(updated, entry.at);
  }
  const count = Object.keys(slots).length;
  return count ? { slots, updatedAt: iso(updated), slotCount: count } : null;
}

/** A conversation's contribution: its final durable slots that it stated itself (not carried in). */
export function contributionOf(conversationId: string, durable: SlotMap): Record<string, MemoryEntry> {
  const out: Record<string, MemoryEntry> = {};
  for (const [key, slot] of Object.entries(durable)) {
    if (!slot.durable || slot.source.source === 'carry_in') continue;
    out[key] = {
      value: slot.value,
      conversationId,
      msgIndex: slot.source.msgIndex,
      blockIndex: slot.source.blockIndex,
      source: slot.source.source,
      ...(slot.source.tool ? { tool: slot.source.tool } : {}),
      at: Date.parse(slot.updatedAt),
    };
  }
  return out;
}

/**
 * The memory with conversation `conversationId`'s contribution replacing its previous one. Per key,
 * values are kept newest first (ties by conversation id), one per conversation, at most
 * `MAX_VALUES_PER_SLOT`; beyond `MAX_MEMORY_SLOTS` keys, the least recently stated are dropped.
 * Commutative over conversations: merging contributions in any order gives the same document.
 */
export function mergeMemory(memory: UserMemoryDocument, conversationId: string, entries: Record<string, MemoryEntry>): UserMemoryDocument {
  const slots: Record<string, MemoryEntry[]> = {};
  const keys = new Set([...Object.keys(memory.slots), ...Object.keys(entries)]);
  for (const key of keys) {
    const kept = (memory.slots[key] ?? []).filter((e) => e.conversationId !== conversationId);
    const mine = entries[key];
    if (mine) kept.push(mine);
    kept.sort(newestFirst);
    if (kept.length) slots[key] = kept.slice(0, MAX_VALUES_PER_SLOT);
  }
  let ordered = Object.keys(slots).sort();
  if (ordered.length > MAX_MEMORY_SLOTS) {
    const byRecency = [...ordered].sort((a, b) => slots[b]![0]!.at - slots[a]![0]!.at || (a < b ? -1 : 1));
    const keep = new Set(byRecency.slice(0, MAX_MEMORY_SLOTS));
    ordered = ordered.filter((k) => keep.has(k));
  }
  const out: Record<string, MemoryEntry[]> = {};
  let updatedAt = 0;
  for (const k of ordered) {
    out[k] = slots[k]!;
    updatedAt = Math.max(updatedAt, slots[k]![0]!.at);
  }
  return { userId: memory.userId, slots: out, updatedAt };
}

const isEntry = (e: unknown): e is MemoryEntry =>
  !!e && typeof e === 'object' && typeof (e as MemoryEntry).conversationId === 'string' && typeof (e as MemoryEntry).at === 'number' && ((e as MemoryEntry).value === null || typeof (e as MemoryEntry).value === 'string');

/** A stored document back to its shape; entries that do not fit are dropped (never guessed). */
export function parseMemory(userId: string, json: string): UserMemoryDocument {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return emptyMemory(userId); // an unreadable document is replaced by the next write
  }
  const slots: Record<string, MemoryEntry[]> = {};
  const rawSlots = raw && typeof raw === 'object' ? (raw as { slots?: unknown }).slots : undefined;
  if (rawSlots && typeof rawSlots === 'object') {
    for (const [k, list] of Object.entries(rawSlots)) {
      const entries = Array.isArray(list) ? list.filter(isEntry) : [];
      if (entries.length) slots[k] = entries;
    }
  }
  const updatedAt = Number((raw as { updatedAt?: unknown })?.updatedAt) || 0;
  return { userId, slots, updatedAt };
}

/** Number of durable slot keys a document holds. */
export const memorySlotCount = (m: UserMemoryDocument): number => Object.keys(m.slots).length;
