/**
 * ClickHouse reads and writes of the taxonomy job (tables of migration 0100). A run is written in
 * this order — model, nodes, vectors, assignments, then its `complete` row — so readers, which
 * take the latest complete run, see either the previous run or the whole new one.
 */
import { namedQuery, type Store } from '../../core/clickhouse.js';
import { dropRunsExcept } from './run-rows.js';
import type { TextModel } from '../../core/vectors/model.js';
import { runModel } from '../../core/vectors/stored-model.js';
import type { AssignableLeaf } from '../analyses/taxonomy/assign.js';
import type { PreviousTree, TaxonomyBuild, TaxonomySegment } from '../analyses/taxonomy/build.js';

/** Rows per insert for the wide tables (vectors, model rows). */
const CHUNK = 5000;

export interface RunRow {
  run_id: string;
  status: string;
  taxonomy_version: number;
  num_categories: number;
  num_clusters: number;
  num_segments: number;
  held_aside: number;
  mean_similarity: number;
  started_at: string;
  completed_at: string;
}

export interface StoredSegment extends TaxonomySegment {
  text_hash: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
const vec = (v: ArrayLike<number>) => Array.from(v, (x) => Math.round(x * 1e6) / 1e6);

export function createTaxonomyStore(store: Store) {
  const insertChunks = async (table: string, rows: object[], signal?: AbortSignal) => {
    for (let i = 0; i < rows.length; i += CHUNK) {
      signal?.throwIfAborted();
      await store.insert(table, rows.slice(i, i + CHUNK));
    }
  };
  const segmentsOf = (rows: Array<{ segment_id: string; conversation_id: string; text: string; goal_len: number | string; text_hash: string }>): StoredSegment[] =>
    rows.map((r) => ({ segment_id: r.segment_id, conversation_id: r.conversation_id, text: r.text, goal: r.text.slice(0, Number(r.goal_len)), text_hash: r.text_hash }));

  return {
    async currentRun(tenant: string): Promise<RunRow | undefined> {
      const rows = await store.query<RunRow>(namedQuery('taxonomy-current-run'), { tenant });
      return rows[0] && { ...rows[0], num_segments: Number(rows[0].num_segments), taxonomy_version: Number(rows[0].taxonomy_version), held_aside: Number(rows[0].held_aside), mean_similarity: Number(rows[0].mean_similarity) };
    },

    async countSegments(tenant: string): Promise<number> {
      const rows = await store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.segment_texts FINAL WHERE tenant_id = {tenant:String} AND text != ''`, { tenant });
      return Number(rows[0]?.n ?? 0);
    },

    /** Every segment with goal text (the goal is the prefix of `text` before the summary). */
    async loadSegments(tenant: string): Promise<StoredSegment[]> {
      return segmentsOf(await store.query(namedQuery('stream-taxonomy-segments'), { tenant }));
    },

    /** Segments not assigned in the run at their current text (new, or their text changed). */
    async pendingSegments(tenant: string, runId: string, limit: number): Promise<StoredSegment[]> {
      return segmentsOf(await store.query(namedQuery('stream-taxonomy-pending'), { tenant, run: runId, limit }));
    },

    /** Segments assigned in the run that no longer exist (their conversation was re-segmented). */
    async removedSegments(tenant: string, runId: string): Promise<Array<{ segment_id: string; conversation_id: string }>> {
      return store.query(namedQuery('stream-taxonomy-removed'), { tenant, run: runId });
    },

    async previousTree(tenant: string, runId: string): Promise<PreviousTree> {
      const rows = await store.query<{ segment_id: string; node_id: string; category_id: string }>(
        `SELECT segment_id, node_id, category_id FROM {{db}}.cluster_assignments FINAL WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND node_id != ''`,
        { tenant, run: runId },
      );
      return { leafOf: new Map(rows.map((r) => [r.segment_id, r.node_id])), categoryOf: new Map(rows.map((r) => [r.segment_id, r.category_id])) };
    },

    /** The run's model, cached per process (core/vectors/stored-model.ts). */
    loadModel: (tenant: string, runId: string): Promise<TextModel | undefined> => runModel(store, tenant, runId),

    async loadLeaves(tenant: string, runId: string): Promise<AssignableLeaf[]> {
      const rows = await store.query<{ node_id: string; parent_id: string; centroid: number[]; threshold: number }>(
        `SELECT node_id, parent_id, centroid, threshold FROM {{db}}.cluster_nodes FINAL WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND node_type = 'cluster'`,
        { tenant, run: runId },
      );
      return rows.map((r) => ({ node_id: r.node_id, parent_id: r.parent_id, centroid: Float32Array.from(r.centroid), threshold: Number(r.threshold) }));
    },

    /** Assignments made since the run was built: how many, held aside, and their mean similarity. */
    async incrementalStats(tenant: string, runId: string): Promise<{ assigned: number; heldAside: number; meanSimilarity: number }> {
      const rows = await store.query<{ n: string; aside: string; sim: number }>(namedQuery('stream-taxonomy-incremental'), { tenant, run: runId });
      return { assigned: Number(rows[0]?.n ?? 0), heldAside: Number(rows[0]?.aside ?? 0), meanSimilarity: Number(rows[0]?.sim ?? 0) };
    },

    async writeRunState(tenant: string, runId: string, row: Partial<RunRow> & { status: string; trigger: string; started_at: string }, extra: Record<string, unknown> = {}): Promise<void> {
      await store.insert('cluster_runs', [{ tenant_id: tenant, run_id: runId, version: Date.now() * 1000 + (row.status === 'complete' ? 2 : row.status === 'failed' ? 1 : 0), completed_at: row.completed_at ?? iso(0), ...row, ...extra }]);
    },

    /** Model, nodes, vectors and assignments of a built run (not its `complete` row). */
    async writeBuild(tenant: string, runId: string, segments: readonly StoredSegment[], b: TaxonomyBuild, version: number, signal?: AbortSignal): Promise<void> {
      const m = b.model;
      const d = m.dims;
      await insertChunks(
        'cluster_models',
        Array.from(m.features, (feature, i) => ({ tenant_id: tenant, run_id: runId, feature, block: m.blocks[i], idf: m.idf[i], vector: vec(m.components.subarray(i * d, i * d + d)) })),
        signal,
      );
      await insertChunks('cluster_nodes', b.nodes.map((n) => ({ tenant_id: tenant, run_id: runId, ...n, has_children: n.has_children ? 1 : 0, centroid: vec(n.centroid) })), signal);
      await insertChunks(
        'segment_vectors',
        segments.map((s, i) => ({ tenant_id: tenant, run_id: runId, segment_id: s.segment_id, version, conversation_id: s.conversation_id, vector: vec(b.vectors.subarray(i * d, i * d + d)) })),
        signal,
      );
      await insertChunks(
        'cluster_assignments',
        b.assignments.map((a, i) => ({ tenant_id: tenant, run_id: runId, version, ...a, text_hash: segments[i]!.text_hash, source: 'build' })),
        signal,
      );
    },

    async writeAssignments(rows: object[], vectors: object[]): Promise<void> {
      if (vectors.length) await insertChunks('segment_vectors', vectors);
      if (rows.length) await insertChunks('cluster_assignments', rows);
    },

    /** Drops the rows of every run of the tenant except `keep` (lightweight deletes, in the background). */
    dropRunsExcept: (tenant: string, keep: readonly string[]): Promise<void> => dropRunsExcept(store, 'cluster_runs', ['cluster_models', 'cluster_nodes', 'segment_vectors', 'cluster_assignments'], tenant, keep),
  };
}

export type TaxonomyStore = ReturnType<typeof createTaxonomyStore>;
