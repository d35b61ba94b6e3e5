/**
 * Runs of the categorizer as `tracehouse analyze` makes them (one workspace: a registry, primed
 * with every failed call, then `categorizeCalls` per conversation) or as the stream role makes them
 * online (no priming: calls assigned in arrival order), plus order sensitivity and speed.
 */
import { performance } from 'node:perf_hooks';
import { categorizeCalls, createCategoryRegistry, prime, type CategoryRegistry } from '../../stream/analyses/tool-failure-categories.js';
import { buildSnapshot, type StoredMessage } from '../../stream/analyses/snapshot.js';
import type { ConversationSnapshot, FailureCategory } from '../../stream/analyses/types.js';
import { vMeasure } from '../lib/metrics.js';
import type { SourceSnapshots } from './sources.js';

export type Mode = 'primed' | 'online';

/** Category per failed call, keyed `source|conversation|call key`. */
export type Assignment = Map<string, FailureCategory>;

export const callKey = (source: string, conversation: string, key: string) => `${source}|${conversation}|${key}`;

interface Conv {
  source: string;
  snapshot: ConversationSnapshot;
}

function conversations(sources: readonly SourceSnapshots[]): Conv[] {
  return sources.flatMap((s) => s.snapshots.map((snapshot) => ({ source: s.source, snapshot })));
}

function runOn(convs: readonly Conv[], mode: Mode, similarity?: number): { assignment: Assignment; registry: CategoryRegistry } {
  const registry = createCategoryRegistry([], { tenantSeed: 'eval', ...(similarity === undefined ? {} : { similarity }) });
  if (mode === 'primed') prime(registry, convs.flatMap((c) => c.snapshot.toolCalls));
  const assignment: Assignment = new Map();
  for (const c of convs) {
    for (const r of categorizeCalls(c.snapshot, registry)) if (r.category) assignment.set(callKey(c.source, c.snapshot.conversationId, r.tool_use_id), r.category);
  }
  return { assignment, registry };
}

export function run(sources: readonly SourceSnapshots[], mode: Mode, similarity?: number): { assignment: Assignment; registry: CategoryRegistry } {
  return runOn(conversations(sources), mode, similarity);
}

/** Seeded shuffle (mulberry32), so the report is reproducible. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let a = seed >>> 0;
  const rnd = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export interface OrderSensitivity {
  mode: Mode;
  runs: number;
  /** V-measure between each shuffled run and the run in file order: lowest and mean. */
  minAgreement: number;
  meanAgreement: number;
  /** Share of failed calls whose category id is the same as in file order (mean). */
  sameId: number;
  categoriesMin: number;
  categoriesMax: number;
}

/** Shuffles conversations and the calls inside each, re-runs, and compares with file order. */
export function orderSensitivity(sources: readonly SourceSnapshots[], mode: Mode, runs: number): OrderSensitivity {
  const base = runOn(conversations(sources), mode).assignment;
  const keys = [...base.keys()];
  const agreements: number[] = [];
  const same: number[] = [];
  const counts: number[] = [];
  for (let r = 1; r <= runs; r++) {
    const convs = shuffled(conversations(sources), r).map((c, i) => ({ ...c, snapshot: { ...c.snapshot, toolCalls: shuffled(c.snapshot.toolCalls, r * 1000 + i) } }));
    const a = runOn(convs, mode).assignment;
    agreements.push(vMeasure(keys.map((k) => base.get(k)!.id), keys.map((k) => a.get(k)?.id ?? 'none')).v);
    same.push(keys.filter((k) => a.get(k)?.id === base.get(k)!.id).length / keys.length);
    counts.push(new Set([...a.values()].map((c) => c.id)).size);
  }
  return {
    mode,
    runs,
    minAgreement: Math.min(...agreements),
    meanAgreement: agreements.reduce((x, y) => x + y, 0) / runs,
    sameId: same.reduce((x, y) => x + y, 0) / runs,
    categoriesMin: Math.min(...counts),
    categoriesMax: Math.max(...counts),
  };
}

/** A conversation of `messages` messages: tool calls and their results taken in turn from real calls. */
export function syntheticConversation(sources: readonly SourceSnapshots[], messages: number, offset = 0): ConversationSnapshot {
  const real = sources.flatMap((s) => s.snapshots.flatMap((x) => x.toolCalls)).filter((c) => c.success !== null);
  const out: StoredMessage[] = [];
  for (let i = 0; out.length < messages; i++) {
    const c = real[(offset + i * 7) % real.length]!;
    const id = `c${i}`;
    out.push({ messageId: `a${i}`, role: 'assistant', content: '', blocks: [{ type: 'tool_use', tool_use_id: id, tool_name: c.toolName, input: { command: c.command } }], tsMs: i * 2000, threadId: '' });
    if (out.length < messages) out.push({ messageId: `u${i}`, role: 'user', content: '', blocks: [{ type: 'tool_result', tool_use_id: id, content: c.resultText, is_error: c.success === false }], tsMs: i * 2000 + 1000, threadId: '' });
  }
  return buildSnapshot({ tenantId: 'eval', conversationId: `synthetic-${messages}`, messages: out });
}

export interface Speed {
  failures: number;
  /** Categories the workspace has (what a tenant registry is built from). */
  categories: number;
  /** Priming the whole workspace and categorizing every call, per failed call. */
  primedUsPerFailure: number;
  /** Assigning every failed call on a registry rebuilt from the learned categories (steady state). */
  steadyUsPerFailure: number;
  /** Building a registry from the workspace's categories. */
  registryUs: number;
  /**
   * categorizeCalls on a 30-message conversation, registry built first (a fresh registry: a
   * registry that saw the conversation before answers from its memory of texts).
   */
  conv30Us: number;
  conv30Failures: number;
  /** The 2,000-message conversation, registry built first. */
  conv2000Us: number;
  conv2000Failures: number;
}

/** Mean CPU time of one call in µs (CPU, not wall: the machine is shared, wall time says little). */
function timeUs(fn: () => void, minMs = 200): number {
  for (let i = 0; i < 3; i++) fn();
  let n = 0;
  const wall = performance.now();
  const cpu = process.cpuUsage();
  while (performance.now() - wall < minMs || n < 5) {
    fn();
    n++;
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / n;
}

export function speed(sources: readonly SourceSnapshots[]): Speed {
  const convs = conversations(sources);
  const failures = convs.flatMap((c) => c.snapshot.toolCalls).filter((c) => c.success === false || c.decision === 'reject');
  const primedUs = timeUs(() => runOn(convs, 'primed'), 500);
  const known = runOn(convs, 'primed').registry.all();
  const steadyUs = timeUs(() => {
    const r = createCategoryRegistry(known, { tenantSeed: 'eval' });
    for (const f of failures) r.assign(f);
  }, 500);
  const c30 = syntheticConversation(sources, 30);
  const c2000 = syntheticConversation(sources, 2000);
  const failed = (s: ConversationSnapshot) => s.toolCalls.filter((c) => c.success === false).length;
  return {
    failures: failures.length,
    categories: known.length,
    primedUsPerFailure: primedUs / failures.length,
    steadyUsPerFailure: steadyUs / failures.length,
    registryUs: timeUs(() => createCategoryRegistry(known, { tenantSeed: 'eval' })),
    conv30Us: timeUs(() => categorizeCalls(c30, createCategoryRegistry(known, { tenantSeed: 'eval' }))),
    conv30Failures: failed(c30),
    conv2000Us: timeUs(() => categorizeCalls(c2000, createCategoryRegistry(known, { tenantSeed: 'eval' }))),
    conv2000Failures: failed(c2000),
  };
}
