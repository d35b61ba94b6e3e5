/**
 * Rows keyed by run id of the leased jobs (problems, taxonomy): a run writes a whole snapshot and
 * readers take the current run, so the rows of older runs are only dropped, in the background.
 */
import { BACKGROUND_DELETE, type Store } from '../../core/clickhouse.js';

/**
 * Drops the rows in `tables` of every run of the tenant listed in `runsTable` except `keep`: one
 * lightweight delete per table, applied by the engine after the call returns (BACKGROUND_DELETE).
 */
export async function dropRunsExcept(store: Store, runsTable: string, tables: readonly string[], tenant: string, keep: readonly string[]): Promise<void> {
  const runs = await store.query<{ run_id: string }>(`SELECT DISTINCT run_id FROM {{db}}.${runsTable} WHERE tenant_id = {tenant:String}`, { tenant });
  const drop = runs.map((r) => r.run_id).filter((r) => !keep.includes(r));
  if (drop.length === 0) return;
  for (const table of tables) {
    await store.command(`DELETE FROM {{db}}.${table} WHERE tenant_id = {tenant:String} AND run_id IN {runs:Array(String)} ${BACKGROUND_DELETE}`, { tenant, runs: drop });
  }
}
