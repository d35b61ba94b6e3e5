/**
 * The tenant's use-case taxonomy as a leased job (stream/analyze/scheduler.ts, one runner per
 * tenant). Each tick: without a run, build the first one once MIN_SEGMENTS segments have goal
 * text; otherwise assign new and changed segments to the current run's leaves (or hold them
 * aside), then rebuild when a trigger fires (`rebuildTrigger`). A rebuild is a new cluster run
 * written beside the current one and switched to by its `complete` row, so reads never see a
 * half-built taxonomy. docs/analyses.md "Use-case taxonomy" documents the triggers.
 */
import { randomBytes } from 'node:crypto';
import type { Store } from '../../core/clickhouse.js';
import { embedText } from '../../core/vectors/model.js';
import { createRunCache } from '../../core/run-cache.js';
import { assignVector, type AssignableLeaf } from '../analyses/taxonomy/assign.js';
import { buildTaxonomy, MIN_SEGMENTS, TAXONOMY_VERSION, type PreviousTree, type TaxonomyBuild, type TaxonomySegment } from '../analyses/taxonomy/build.js';
import type { TenantJob, TenantJobContext } from '../analyze/scheduler.js';
import { createTaxonomyStore, type RunRow, type TaxonomyStore } from './taxonomy-store.js';
import { buildInWorker } from './taxonomy-worker.js';

export interface RebuildPolicy {
  /** Segments with goal text before the first run. spec: 50. */
  minSegments: number;
  /** No rebuild sooner than this after the current run completed. Default 10 minutes. */
  minIntervalMs: number;
  /** Growth: segments now ≥ run's segments × this (and at least `minGrowth` more). Default 1.25. */
  growthRatio: number;
  minGrowth: number;
  /** Held aside since the run: at least this share of the run's segments (and at least 10). Default 0.05. */
  heldAsideShare: number;
  /** Drift: mean similarity of new assignments this far below the run's own mean (over ≥ 30). Default 0.1. */
  driftDrop: number;
}

export const DEFAULT_POLICY: RebuildPolicy = { minSegments: MIN_SEGMENTS, minIntervalMs: 10 * 60_000, growthRatio: 1.25, minGrowth: 25, heldAsideShare: 0.05, driftDrop: 0.1 };

export type RebuildTrigger = 'first' | 'version' | 'growth' | 'held_aside' | 'drift';

/** Why the current run should be rebuilt now, or null. Pure. */
export function rebuildTrigger(
  run: Pick<RunRow, 'taxonomy_version' | 'num_segments' | 'mean_similarity' | 'completed_at'>,
  now: { segments: number; assigned: number; heldAside: number; meanSimilarity: number; ms: number },
  policy: RebuildPolicy = DEFAULT_POLICY,
): RebuildTrigger | null {
  if (Number(run.taxonomy_version) !== TAXONOMY_VERSION) return 'version';
  if (!rebuildDue(run, now.ms, policy)) return null;
  if (now.segments >= run.num_segments * policy.growthRatio && now.segments - run.num_segments >= policy.minGrowth) return 'growth';
  if (now.heldAside >= Math.max(10, policy.heldAsideShare * run.num_segments)) return 'held_aside';
  if (now.assigned >= 30 && now.meanSimilarity < run.mean_similarity - policy.driftDrop) return 'drift';
  return null;
}

/** Whether the run is old enough for a trigger other than a version change (`rebuildTrigger`). Pure. */
export function rebuildDue(run: Pick<RunRow, 'completed_at'>, ms: number, policy: RebuildPolicy = DEFAULT_POLICY): boolean {
  return ms - Date.parse(run.completed_at) >= policy.minIntervalMs;
}

export interface TaxonomyJobOptions {
  policy?: Partial<RebuildPolicy>;
  /** Segments assigned per tick at most. Default 5,000. */
  assignBatch?: number;
  /** Build on a worker thread (default) or inline (tests of the pure path). */
  inWorker?: boolean;
  /** Called after a run's rows are written and before its `complete` row (tests: reads during a rebuild). */
  beforeSwitch?: (tenant: string, runId: string) => Promise<void>;
  /** Told how long each phase of a rebuild took (bench). */
  onPhase?: (phase: 'load' | 'build' | 'write' | 'switch', ms: number) => void;
}

/** Bytes of run leaves the stream role keeps (core/run-cache.ts): a run never changes once complete. */
const LEAF_CACHE_BYTES = 32 * 1024 * 1024;
/** Per leaf: its ids and threshold beside the centroid. */
const LEAF_OVERHEAD_BYTES = 160;

const leafCache = createRunCache<AssignableLeaf[]>({ maxBytes: LEAF_CACHE_BYTES, sizeOf: (leaves) => leaves.reduce((sum, l) => sum + 4 * l.centroid.length + LEAF_OVERHEAD_BYTES, 0) });

/** The run's model (core/vectors/stored-model.ts, one cache per process) and leaves. */
const runParts = async (ts: TaxonomyStore, tenant: string, runId: string) => ({
  model: await ts.loadModel(tenant, runId),
  leaves: await leafCache.get(`${tenant}\u0000${runId}`, () => ts.loadLeaves(tenant, runId)),
});

/** Assigns pending segments to the run's leaves; returns how many were assigned. */
export async function assignPending(ts: TaxonomyStore, tenant: string, run: RunRow, limit: number, signal: AbortSignal): Promise<number> {
  const { model, leaves } = await runParts(ts, tenant, run.run_id);
  const version = Date.now() * 1000 + 1;
  const removed = await ts.removedSegments(tenant, run.run_id);
  const pending = await ts.pendingSegments(tenant, run.run_id, limit);
  signal.throwIfAborted();
  const rows: object[] = removed.map((r) => ({ tenant_id: tenant, run_id: run.run_id, segment_id: r.segment_id, version, conversation_id: r.conversation_id, node_id: '', category_id: '', similarity: 0, text_hash: '', source: 'removed' }));
  const vectors: object[] = [];
  for (const s of pending) {
    const v = model ? embedText(model, s.text) : null;
    const a = assignVector(v, leaves);
    rows.push({ tenant_id: tenant, run_id: run.run_id, segment_id: s.segment_id, version, conversation_id: s.conversation_id, ...a, text_hash: s.text_hash, source: 'incremental' });
    if (v) vectors.push({ tenant_id: tenant, run_id: run.run_id, segment_id: s.segment_id, version, conversation_id: s.conversation_id, vector: Array.from(v, (x) => Math.round(x * 1e6) / 1e6) });
  }
  await ts.writeAssignments(rows, vectors);
  return pending.length;
}

/** Builds and writes a new run, then switches to it. Returns the run id. */
export async function rebuild(
  ts: TaxonomyStore,
  tenant: string,
  previous: RunRow | undefined,
  trigger: RebuildTrigger,
  signal: AbortSignal,
  opts: Pick<TaxonomyJobOptions, 'inWorker' | 'beforeSwitch' | 'onPhase'> = {},
): Promise<{ runId: string; build: TaxonomyBuild }> {
  const started = new Date().toISOString();
  let mark = Date.now();
  const phase = (name: 'load' | 'build' | 'write' | 'switch') => {
    const now = Date.now();
    opts.onPhase?.(name, now - mark);
    mark = now;
  };
  const runId = `run_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await ts.writeRunState(tenant, runId, { status: 'building', trigger, started_at: started }, { taxonomy_version: TAXONOMY_VERSION });
  const segments = await ts.loadSegments(tenant);
  const tree: PreviousTree | undefined = previous ? await ts.previousTree(tenant, previous.run_id) : undefined;
  const input: TaxonomySegment[] = segments;
  phase('load');
  const build = opts.inWorker === false ? buildTaxonomy(input, tree) : await buildInWorker(input, tree, signal);
  signal.throwIfAborted();
  phase('build');
  const version = Date.now() * 1000;
  await ts.writeBuild(tenant, runId, segments, build, version, signal);
  phase('write');
  await opts.beforeSwitch?.(tenant, runId);
  signal.throwIfAborted();
  const assigned = build.assignments.filter((a) => a.node_id);
  await ts.writeRunState(
    tenant,
    runId,
    {
      status: 'complete',
      trigger,
      started_at: started,
      completed_at: new Date().toISOString(),
      num_categories: build.nodes.filter((n) => n.depth === 0).length,
      num_clusters: build.nodes.filter((n) => n.depth === 1).length,
      num_segments: segments.length,
      held_aside: build.stats.heldAside,
      mean_similarity: assigned.length ? assigned.reduce((s, a) => s + a.similarity, 0) / assigned.length : 0,
    },
    { taxonomy_version: TAXONOMY_VERSION, dims: build.stats.dims, leaf_cut: build.stats.leafCut, silhouette: build.stats.leafSilhouette },
  );
  // keep the new run and the one before it (a reader that took the old run id a moment ago)
  await ts.dropRunsExcept(tenant, previous ? [runId, previous.run_id] : [runId]);
  phase('switch');
  return { runId, build };
}

export function taxonomyJob(opts: TaxonomyJobOptions = {}): TenantJob {
  const policy = { ...DEFAULT_POLICY, ...opts.policy };
  return {
    name: 'taxonomy',
    version: 1,
    scope: 'tenant',
    async run(ctx: TenantJobContext, tenant?: string) {
      if (!tenant) return;
      const ts = createTaxonomyStore(ctx.store as Store);
      const run = await ts.currentRun(tenant);
      if (!run) {
        const n = await ts.countSegments(tenant);
        if (n < policy.minSegments) return;
        const { runId, build } = await rebuild(ts, tenant, undefined, 'first', ctx.signal, opts);
        ctx.log.info({ tenant, runId, segments: n, nodes: build.nodes.length, heldAside: build.stats.heldAside }, 'taxonomy: first run built');
        return;
      }
      if (Number(run.taxonomy_version) === TAXONOMY_VERSION) await assignPending(ts, tenant, run, opts.assignBatch ?? 5000, ctx.signal);
      // within the minimum interval no trigger but a version change can fire: its counts are not read
      if (Number(run.taxonomy_version) === TAXONOMY_VERSION && !rebuildDue(run, Date.now(), policy)) return;
      const stats = await ts.incrementalStats(tenant, run.run_id);
      const trigger = rebuildTrigger(run, { ...stats, segments: await ts.countSegments(tenant), ms: Date.now() }, policy);
      if (!trigger) return;
      const { runId, build } = await rebuild(ts, tenant, run, trigger, ctx.signal, opts);
      ctx.log.info({ tenant, runId, trigger, previous: run.run_id, nodes: build.nodes.length, heldAside: build.stats.heldAside }, 'taxonomy: rebuilt');
    },
  };
}
