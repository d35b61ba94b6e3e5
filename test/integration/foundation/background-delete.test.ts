import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../../core/config.js';
import { createStore, type Store } from '../../../core/clickhouse.js';
import { migrate } from '../../../core/migrations.js';
import { createProblemsStore } from '../../../stream/problems/store.js';
import { createTaxonomyStore } from '../../../stream/jobs/taxonomy-store.js';
import { tempDir } from '../../helpers/tmp.js';

// The jobs' lightweight deletes return once scheduled (core/clickhouse.ts BACKGROUND_DELETE): what
// they remove must still go, and what they keep must stay.
const store: Store = createStore(loadConfig({ DATA_DIR: tempDir() }));

test.before(async () => {
  await migrate(store);
});
test.after(() => store.close());

/** Polls `read` until it returns `want` (the engine applies the delete in the background). */
async function eventually<T>(read: () => Promise<T>, want: T, what: string): Promise<void> {
  const until = Date.now() + 20_000;
  let got = await read();
  while (JSON.stringify(got) !== JSON.stringify(want) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    got = await read();
  }
  assert.equal(got, want, what);
}

test('a full problems run removes the signals of conversations it no longer has, and keeps the newest of the others', async () => {
  const ps = createProblemsStore(store);
  const conv = (id: string, blended: number) => ({ conversation_id: id, known: true, blended, signals: [] });
  await ps.storeSignals('t1', 'run-1', [conv('a', 0.1), conv('b', 0.2)], false);
  await ps.storeSignals('t2', 'run-1', [conv('x', 0.5)], false);
  await new Promise((r) => setTimeout(r, 5)); // versions are microseconds of the clock: a later run has a higher one
  await ps.storeSignals('t1', 'run-2', [conv('a', 0.9)], true);
  const stored = async (tenant: string) => (await ps.loadStoredSignals(tenant, new Set())).map((s) => [s.conversation_id, s.blended]).sort();
  await eventually(() => stored('t1'), [['a', 0.9]], "tenant t1 keeps only run-2's conversation, at its newest value");
  const rows = async () => Number((await store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.problem_signals WHERE tenant_id = 't1'`))[0]!.n);
  await eventually(rows, 1, 'the superseded rows of t1 are deleted, not only hidden by FINAL');
  assert.equal(await stored('t2'), [['x', 0.5]], 'another tenant is untouched');
});

test('dropping old taxonomy runs removes their rows and keeps the runs asked for', async () => {
  const ts = createTaxonomyStore(store);
  for (const run of ['r1', 'r2', 'r3']) {
    await store.insert('cluster_runs', [{ tenant_id: 't1', run_id: run, version: 1, status: 'complete' }]);
    await store.insert('cluster_models', [1, 2, 3].map((feature) => ({ tenant_id: 't1', run_id: run, feature, block: 0, idf: 1, vector: [0.5] })));
  }
  await store.insert('cluster_models', [{ tenant_id: 't2', run_id: 'r1', feature: 1, block: 0, idf: 1, vector: [0.5] }]);
  await ts.dropRunsExcept('t1', ['r2', 'r3']);
  const byRun = async () => (await store.query<{ run_id: string; n: string }>(`SELECT run_id, count() AS n FROM {{db}}.cluster_models WHERE tenant_id = 't1' GROUP BY run_id ORDER BY run_id`)).map((r) => [r.run_id, Number(r.n)]);
  await eventually(byRun, [['r2', 3], ['r3', 3]], "r1's model rows are deleted, r2's and r3's kept whole");
  const other = await store.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.cluster_models WHERE tenant_id = 't2'`);
  assert.is(Number(other[0]!.n), 1, "another tenant's run of the same id is untouched");
});

test.run();
