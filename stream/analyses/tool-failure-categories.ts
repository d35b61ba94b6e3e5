/**
 * Tool-failure categories: every failed call gets a workspace-specific category (stable id, label,
 * family, likely cause, action hint) mined from the tenant's own error texts. A failure's statement
 * is masked (ids, paths, numbers, quoted values… become placeholders) and matched Drain-style
 * against the tenant's templates; the nearest template of the same family wins, else a new
 * category is issued. An id is a hash of tenant, family and the template it was issued for, so two
 * replicas issuing the same category agree, and it never changes: later, more general templates
 * that match an existing category map to it instead of renaming it.
 *
 * Pure apart from the registry's memory; the framework persists `created()` per tenant and builds
 * the next registry from what it stored.
 */
import { createHash } from 'node:crypto';
import { clusterBatch, gateOf, similarity, type BatchItem } from './tool-failures/drain.js';
import { actionHint, likelyCause, labelOf } from './tool-failures/labels.js';
import { WILDCARD } from './tool-failures/masking.js';
import { isFailedCall, signatureOf, type Signature } from './tool-failures/signature.js';
import type { ConversationSnapshot, FailureCategory, FailureFamily, SnapshotToolCall, ToolCallResult } from './types.js';

/** Bump when categories, families, labels or ids change for the same input. */
export const CATEGORIES_VERSION = 1;

/** Default share of equal tokens for a statement to join a template. */
export const DEFAULT_SIMILARITY = 0.5;

/** What the framework persists per tenant. */
export interface RegisteredCategory extends FailureCategory {
  /** Masked statement tokens joined by one space; `<*>` where merged statements differed. */
  template: string;
  /** Tool of the failure the category was issued for. */
  tool_hint?: string;
}

export interface CategoryRegistry {
  /** null for a call that did not fail; else the nearest category, issued if none is near enough. */
  assign(call: SnapshotToolCall): FailureCategory | null;
  /** Categories issued by this registry (not in `known`), in the order they were issued. */
  created(): RegisteredCategory[];
  /** Known and issued categories. */
  all(): RegisteredCategory[];
}

export interface CategoryRegistryOptions {
  /** Seeds the ids (the tenant id): the same template gets different ids in different tenants. Default ''. */
  tenantSeed?: string;
  /** Share of equal tokens to join a template, 0–1. Default 0.5. */
  similarity?: number;
}

/** `tfc_` + 12 hex digits of SHA-256 over tenant seed, family and template. */
export function categoryId(tenantSeed: string, family: FailureFamily, template: string): string {
  return 'tfc_' + createHash('sha256').update(`${tenantSeed}\u0000${family}\u0000${template}`).digest('hex').slice(0, 12);
}

interface Entry {
  cat: RegisteredCategory;
  /** Lower-cased template tokens; computed when first compared. */
  keys?: string[];
}

interface Internals {
  /** Persisted categories not indexed yet: a registry indexes them on its first failed call. */
  pending: readonly RegisteredCategory[] | null;
  seed: string;
  threshold: number;
  entries: Entry[];
  byId: Map<string, Entry>;
  /**
   * family + gate token → entries; gate `<*>` entries are listed under the family alone. Built on
   * the first statement no exact template explains: a registry made per batch mostly answers from
   * `memo`, so its creation stays cheap.
   */
  byGate: Map<string, Entry[]> | null;
  /** family + lower-cased tokens → entry: exact templates and statements decided earlier. */
  memo: Map<string, Entry>;
  /** Error texts seen before → entry: the same text is not read twice (bounded; cleared when full). */
  texts: Map<string, Entry>;
  created: RegisteredCategory[];
}

/** Error texts a registry remembers verbatim before it starts over. */
const MAX_REMEMBERED_TEXTS = 10_000;
const textKey = (c: SnapshotToolCall) => `${c.toolName}\u0000${c.errorType}\u0000${c.decision}\u0000${c.resultText}`;

/** The registry's state, under a key only this module holds (for `prime`). */
const INTERNALS = Symbol('category-registry');
type WithInternals = CategoryRegistry & { [INTERNALS]?: Internals };

const keysOf = (template: string) => (template ? template.split(' ') : []).map((t) => (t.startsWith('<') ? t : t.toLowerCase()));
const memoKey = (family: string, keys: readonly string[]) => `${family}\u0000${keys.join(' ').toLowerCase()}`;
const gateKey = (family: string, keys: readonly string[]) => `${family}\u0000${gateOf(keys) === WILDCARD ? '' : gateOf(keys)}`;

function addToGate(byGate: Map<string, Entry[]>, e: Entry): void {
  e.keys ??= keysOf(e.cat.template);
  const g = gateKey(e.cat.family, e.keys);
  const list = byGate.get(g);
  if (list) list.push(e);
  else byGate.set(g, [e]);
}

function index(int: Internals, cat: RegisteredCategory): Entry {
  const e: Entry = { cat };
  int.entries.push(e);
  int.byId.set(cat.id, e);
  if (int.byGate) addToGate(int.byGate, e);
  const exact = `${cat.family}\u0000${cat.template.toLowerCase()}`;
  if (!int.memo.has(exact)) int.memo.set(exact, e);
  return e;
}

/** The most similar category of the family at or above the threshold; ties go to the smaller id. */
function nearest(int: Internals, family: string, keys: readonly string[]): Entry | null {
  if (!int.byGate) {
    int.byGate = new Map();
    for (const e of int.entries) addToGate(int.byGate, e);
  }
  const candidates = [...(int.byGate.get(gateKey(family, keys)) ?? []), ...(gateOf(keys) === WILDCARD ? [] : int.byGate.get(`${family}\u0000`) ?? [])];
  let best: Entry | null = null;
  let bestSim = -1;
  for (const e of candidates) {
    const s = similarity(e.keys!, keys);
    if (s > bestSim || (s === bestSim && best && e.cat.id < best.cat.id)) [best, bestSim] = [e, s];
  }
  return best && bestSim >= int.threshold ? best : null;
}

function issue(int: Internals, family: FailureFamily, display: readonly string[], label: string, tool: string, interrupted: boolean): Entry {
  const template = display.join(' ');
  const id = categoryId(int.seed, family, template);
  const existing = int.byId.get(id);
  if (existing) return existing;
  const cat: RegisteredCategory = {
    id,
    label,
    family,
    likely_cause: likelyCause(family, label, interrupted),
    action_hint: actionHint(family),
    template,
    ...(tool ? { tool_hint: tool } : {}),
  };
  int.created.push(cat);
  return index(int, cat);
}

const publicOf = (c: RegisteredCategory): FailureCategory => ({ id: c.id, label: c.label, family: c.family, likely_cause: c.likely_cause, action_hint: c.action_hint });

function decide(int: Internals, sig: Signature, tool: string): Entry {
  const key = memoKey(sig.family, sig.keys);
  const known = int.memo.get(key);
  if (known) return known;
  const e = nearest(int, sig.family, sig.keys) ?? issue(int, sig.family, sig.display, sig.label, tool, sig.interrupted);
  int.memo.set(key, e);
  return e;
}

/**
 * Indexes the persisted categories once, when first needed: conversations without a failed call
 * never pay for it. Ties between equally near categories go to the smaller id, so the order of
 * `known` does not matter.
 */
function ready(int: Internals): Internals {
  if (int.pending) {
    const known = int.pending;
    int.pending = null;
    for (const c of known) if (!int.byId.has(c.id)) index(int, { ...c });
  }
  return int;
}

/** A registry over the tenant's known categories (as persisted: `all()` of an earlier registry). */
export function createCategoryRegistry(known: readonly RegisteredCategory[], opts: CategoryRegistryOptions = {}): CategoryRegistry {
  const int: Internals = {
    pending: known,
    seed: opts.tenantSeed ?? '',
    threshold: opts.similarity ?? DEFAULT_SIMILARITY,
    entries: [],
    byId: new Map(),
    byGate: null,
    memo: new Map(),
    texts: new Map(),
    created: [],
  };
  const registry: WithInternals = {
    assign(call) {
      if (!isFailedCall(call)) return null;
      ready(int);
      const key = textKey(call);
      let e = int.texts.get(key);
      if (!e) {
        e = decide(int, signatureOf(call), call.toolName);
        if (int.texts.size >= MAX_REMEMBERED_TEXTS) int.texts.clear();
        int.texts.set(key, e);
      }
      return publicOf(e.cat);
    },
    created: () => int.created.map((c) => ({ ...c })),
    all: () => ready(int).entries.map((e) => ({ ...e.cat })),
  };
  Object.defineProperty(registry, INTERNALS, { value: int, enumerable: false });
  return registry;
}

/**
 * Batch learning before assignment (the offline analyzer sees the whole workspace; a tenant job
 * may pass recent unexplained failures): statements that no known category explains are clustered
 * in two passes whose result does not depend on input order, then each cluster maps to a known
 * category its template matches or is issued as a new one.
 */
export function prime(registry: CategoryRegistry, failures: readonly SnapshotToolCall[]): void {
  const found = (registry as WithInternals)[INTERNALS];
  if (!found) throw new TypeError('prime() takes a registry made by createCategoryRegistry()');
  const int = ready(found);
  const items = new Map<string, BatchItem & { label: string; interrupted: boolean }>();
  for (const call of failures) {
    if (!isFailedCall(call)) continue;
    const sig = signatureOf(call);
    const key = memoKey(sig.family, sig.keys);
    if (int.memo.has(key)) continue;
    const item = items.get(key);
    if (item) {
      // what a statement shows (its case) and its tool are taken the same whatever the order
      item.count++;
      if (call.toolName < item.tool) item.tool = call.toolName;
      if (sig.display.join(' ') < item.display.join(' ')) [item.display, item.label] = [sig.display, sig.label];
      continue;
    }
    const explained = nearest(int, sig.family, sig.keys);
    if (explained) {
      int.memo.set(key, explained);
      continue;
    }
    items.set(key, { family: sig.family, keys: sig.keys, display: sig.display, count: 1, tool: call.toolName, label: sig.label, interrupted: sig.interrupted });
  }
  for (const cluster of clusterBatch([...items.values()], int.threshold)) {
    const head = cluster.members[0] as BatchItem & { label: string; interrupted: boolean };
    const family = cluster.family as FailureFamily;
    const generalized = cluster.keys.includes(WILDCARD);
    const label = generalized ? labelOf(cluster.display.join(' ')) : head.label;
    const e = nearest(int, family, cluster.keys) ?? issue(int, family, cluster.display, label, head.tool, head.interrupted);
    for (const m of cluster.members) int.memo.set(memoKey(m.family, m.keys), e);
  }
}

/** One result per call of the snapshot, in snapshot order; failed calls carry their category. */
export function categorizeCalls(s: ConversationSnapshot, registry: CategoryRegistry): ToolCallResult[] {
  return s.toolCalls.map((call) => ({
    message_index: call.messageIndex,
    tool_use_id: call.key,
    tool_name: call.toolName,
    success: call.success,
    effect_class: call.effectClass,
    category: registry.assign(call),
  }));
}

/** Failure family of a call, as its category would have it (user_rejected for declines and interruptions). */
export function failureFamily(call: SnapshotToolCall): FailureFamily {
  return signatureOf(call).family;
}
