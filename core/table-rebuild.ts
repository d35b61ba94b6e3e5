/**
 * Rebuilding a table to change a storage setting the engine will not alter on an existing table
 * (`index_granularity`: rows per granule, the unit a primary-key lookup reads): the rows are copied
 * into a table of the new settings, which then takes the old one's name. Used by migrations
 * (core/migrations.ts); docs/storage.md "Granules of the conversation-keyed tables".
 *
 * The steps, each safe to crash after (a re-run finds where it stands from the table itself):
 *   1. the table already has the settings: drop a leftover copy (the old rows, after an exchange
 *      whose drop did not run) and stop;
 *   2. drop a leftover copy (a partial copy of a run that crashed before its exchange);
 *   3. create the copy: the same columns, indexes and engine, the new settings; each skip index
 *      keeps the rows it covers per index granule (its GRANULARITY, counted in granules, is scaled);
 *   4. note each partition's highest block number, then copy every row (`INSERT … SELECT *`;
 *      materialized columns are computed again);
 *   5. exchange the two names (atomic);
 *   6. copy again the rows of the old table's parts holding a block numbered above the noted ones:
 *      inserts that landed in the old table while it was copied (a part merged only from older
 *      blocks is not copied twice; a row copied twice folds as every replayed row does);
 *   7. drop the copy, which now holds the old rows.
 * Until step 5 readers and writers use the old table, complete; from step 5 the new one, complete.
 * Only an insert still running at the exchange and committed after step 6 began would be left in
 * the old table, so writers should be stopped while migrations run (they are: `npm start` migrates
 * before any role starts, and the deployments run `tracehouse migrate` before the roles;
 * docs/deploy.md).
 */
import type { ClickHouseSettings } from '@clickhouse/client';
import type { Store } from './clickhouse.js';
import type { Logger } from './log.js';

export interface RebuildOptions {
  /** The table, in the store's database. */
  table: string;
  /** Rows per granule of the rebuilt table. */
  granularity: number;
  /** Names the copy (`<table>__m<version>`), so a later rebuild never meets this one's leftovers. */
  version: number;
  /** `ON CLUSTER` target; '' for one server. */
  cluster: string;
  log?: Logger;
  /** Runs after the copy, before the exchange (tests: a write that lands meanwhile). */
  afterCopy?: () => Promise<void>;
}

interface SkipIndex {
  name: string;
  expr: string;
  type_full: string;
  granularity: number;
}

/** A skip index this coarse already covers whole parts (the `text` index's default); it is kept as is. */
const WHOLE_PART_GRANULARITY = 1_000_000;

const GRANULARITY_SETTING = /\bindex_granularity\s*=\s*(\d+)/;

/** The table's rows per granule, from its engine clause (8,192 when the clause does not say). */
export function granularityOf(engineFull: string): number {
  const m = GRANULARITY_SETTING.exec(engineFull);
  return m ? Number(m[1]) : 8192;
}

/**
 * The copy's engine clause: the table's own with `index_granularity` replaced (or added), and, for a
 * replicated engine whose coordination path names the table, a path of the copy's own (two tables
 * may not share one; a path of `{table}` or `{uuid}` already is per table).
 */
export function copyEngine(engineFull: string, table: string, copy: string, granularity: number): string {
  const engine = GRANULARITY_SETTING.test(engineFull)
    ? engineFull.replace(GRANULARITY_SETTING, `index_granularity = ${granularity}`)
    : /\bSETTINGS\b/.test(engineFull)
      ? `${engineFull}, index_granularity = ${granularity}`
      : `${engineFull} SETTINGS index_granularity = ${granularity}`;
  return engine.replace(/^(Replicated\w*MergeTree\(')([^']*)'/, (_m, head: string, path: string) => {
    const own = /\{(table|uuid)\}/.test(path) ? path : path.endsWith(`/${table}`) ? `${path.slice(0, -table.length)}${copy}` : `${path}/${copy}`;
    return `${head}${own}'`;
  });
}

/** `ALTER` clauses giving the copy's skip indexes the rows per index granule they had. */
export function scaledIndexClauses(indexes: readonly SkipIndex[], factor: number): string[] {
  if (factor === 1) return [];
  return indexes
    .filter((ix) => ix.granularity < WHOLE_PART_GRANULARITY)
    .map((ix) => {
      const scaled = Math.max(1, Math.round(ix.granularity * factor));
      return `DROP INDEX ${ix.name}, ADD INDEX ${ix.name} ${ix.expr} TYPE ${ix.type_full} GRANULARITY ${scaled}`;
    });
}

/**
 * Rebuilds `table` with `granularity` rows per granule unless it has them already. Returns what it
 * did. Every statement is the store's; on a cluster each DDL runs `ON CLUSTER` and the copy is
 * filled through the replica the store talks to (replication brings it to the others).
 */
export async function rebuildWithGranularity(store: Store, o: RebuildOptions): Promise<'rebuilt' | 'current'> {
  const copy = `${o.table}__m${o.version}`;
  const on = o.cluster ? ` ON CLUSTER ${o.cluster}` : '';
  const tables = await store.query<{ name: string; engine_full: string; total_rows: string | null }>(
    'SELECT name, engine_full, total_rows FROM system.tables WHERE database = {db:String} AND name IN ({names:Array(String)})',
    { db: store.database, names: [o.table, copy] },
  );
  const table = tables.find((t) => t.name === o.table);
  if (!table) throw new Error(`rebuild of ${o.table}: no such table in ${store.database}`);
  const dropCopy = () => (tables.some((t) => t.name === copy) ? store.command(`DROP TABLE IF EXISTS {{db}}.${copy}${on} SYNC`) : undefined);
  const before = granularityOf(table.engine_full);
  await dropCopy();
  if (before === o.granularity) return 'current';

  await store.command(`CREATE TABLE {{db}}.${copy}${on} AS {{db}}.${o.table} ENGINE = ${copyEngine(table.engine_full, o.table, copy, o.granularity)}`);
  const indexes = await store.query<SkipIndex>(
    'SELECT name, expr, type_full, toUInt64(granularity) AS granularity FROM system.data_skipping_indices WHERE database = {db:String} AND table = {name:String} ORDER BY name',
    { db: store.database, name: o.table },
  );
  const clauses = scaledIndexClauses(indexes.map((ix) => ({ ...ix, granularity: Number(ix.granularity) })), before / o.granularity);
  if (clauses.length) await store.command(`ALTER TABLE {{db}}.${copy}${on} ${clauses.join(', ')}`);
  const started = performance.now();
  // a server answers a long copy with progress headers, so the client's request timeout (an idle
  // timeout) does not end it; the embedded engine runs it in this process
  const progress: ClickHouseSettings | undefined = store.embedded ? undefined : { send_progress_in_http_headers: 1, http_headers_progress_interval_ms: '10000' };
  const copied = new Map<string, number>();
  for (const p of await activeParts(store, o.table)) copied.set(p.partition_id, Math.max(p.max_block, copied.get(p.partition_id) ?? -1));
  if (copied.size) await store.command(`INSERT INTO {{db}}.${copy} SELECT * FROM {{db}}.${o.table} SETTINGS insert_deduplicate = 0`, undefined, progress);
  await o.afterCopy?.();
  await store.command(`EXCHANGE TABLES {{db}}.${o.table} AND {{db}}.${copy}${on}`);
  const late = (await activeParts(store, copy)).filter((p) => p.max_block > (copied.get(p.partition_id) ?? -1)).map((p) => p.name);
  if (late.length) {
    await store.command(`INSERT INTO {{db}}.${o.table} SELECT * FROM {{db}}.${copy} WHERE _part IN {late:Array(String)} SETTINGS insert_deduplicate = 0`, { late }, progress);
  }
  await store.command(`DROP TABLE {{db}}.${copy}${on} SYNC`);
  o.log?.info({ table: o.table, granularity: o.granularity, was: before, rows: Number(table.total_rows ?? 0), late_parts: late.length, ms: Math.round(performance.now() - started) }, 'table rebuilt');
  return 'rebuilt';
}

/** The table's active parts with the highest block number each holds. */
async function activeParts(store: Store, table: string): Promise<Array<{ name: string; partition_id: string; max_block: number }>> {
  const rows = await store.query<{ name: string; partition_id: string; max_block: string }>(
    'SELECT name, partition_id, max_block_number AS max_block FROM system.parts WHERE database = {db:String} AND table = {t:String} AND active',
    { db: store.database, t: table },
  );
  return rows.map((r) => ({ ...r, max_block: Number(r.max_block) }));
}
