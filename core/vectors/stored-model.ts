/**
 * A taxonomy run's text model as stored in `cluster_models` (one row per feature: its hash, block,
 * idf and projection), read back for the stream's incremental assignment and the data API's
 * semantic search alike. A run never changes once complete, so the model read is kept in one cache
 * per process (both roles of an all-in-one process share it), bounded by `MODEL_CACHE_BYTES`.
 */
import type { Store } from '../clickhouse.js';
import { createRunCache } from '../run-cache.js';
import type { TextModel } from './model.js';

/**
 * Bytes of models kept. A model is at most 40,000 features of 96 floats (about 17 MB with its
 * index, a tenant of 100k segments); most are far smaller.
 */
export const MODEL_CACHE_BYTES = 128 * 1024 * 1024;

export async function loadRunModel(store: Store, tenant: string, runId: string): Promise<TextModel | undefined> {
  const rows = await store.query<{ feature: number | string; block: number | string; idf: number; vector: number[] }>(
    `SELECT feature, block, idf, vector FROM {{db}}.cluster_models WHERE tenant_id = {tenant:String} AND run_id = {run:String} ORDER BY feature`,
    { tenant, run: runId },
  );
  if (rows.length === 0) return undefined;
  const dims = rows[0]!.vector.length;
  const components = new Float32Array(rows.length * dims);
  rows.forEach((r, i) => components.set(r.vector, i * dims));
  return { dims, features: Uint32Array.from(rows, (r) => Number(r.feature)), blocks: Uint8Array.from(rows, (r) => Number(r.block)), idf: Float32Array.from(rows, (r) => Number(r.idf)), components };
}

/** Per feature: the entry of its hash index (model.ts `featureIndex`), built on first use. */
const INDEX_BYTES_PER_FEATURE = 40;

/** Estimated bytes a loaded model holds, its feature index included. */
export function modelBytes(model: TextModel | undefined): number {
  if (!model) return 0;
  return model.components.byteLength + model.features.byteLength + model.blocks.byteLength + model.idf.byteLength + model.features.length * INDEX_BYTES_PER_FEATURE;
}

const models = createRunCache<TextModel | undefined>({ maxBytes: MODEL_CACHE_BYTES, sizeOf: modelBytes });

/** The run's model, read once while it stays in the cache (run ids are random: one key per run of any store). */
export function runModel(store: Store, tenant: string, runId: string): Promise<TextModel | undefined> {
  return models.get(`${tenant}\u0000${runId}`, () => loadRunModel(store, tenant, runId));
}
