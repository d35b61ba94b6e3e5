/**
 * The paced recompute of the tool-failure rollup (stream/analyze/tool-rollup-flusher.ts) on a real
 * chDB store: marks a crashed run left are recomputed and cleared; a group marked again while a
 * pass runs keeps its mark and is recomputed by the next pass; a failed pass leaves its marks for
 * the next; passes keep the interval between them however often they are asked for.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, type TestSystem } from '../../helpers/system.js';
import { createToolRollupFlusher } from '../../../stream/analyze/tool-rollup-flusher.js';
import { nextVersion } from '../../../stream/analyze/version.js';
import { streamMetrics } from '../../../stream/metrics.js';
import { createMetrics } from '../../../core/metrics.js';
import { createLogger } from '../../../core/log.js';
import type { Store } from '../../../core/clickhouse.js';
import { sleep } from './helpers.js';

let ts: TestSystem;
let store: Store;
const today = new Date().toISOString().slice(0, 10);

test.before(async () => {
  ts = await startTestSystem({ roles: ['query'] });
  store = ts.system.rt.store;
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

let callSeq = 0;
/** Writes calls of `tool` (failed or not) as the analyzer does, then marks their group. */
async function writeCalls(tenant: string, tool: string, failed: boolean[]) {
  const version = nextVersion();
  await store.insert('tool_call_facts', failed.map((f) => ({
    tenant_id: tenant, tool_name: tool, failed: f ? 1 : 0, day: today, conversation_id: `c-${tool}`, call_id: `k${++callSeq}`, version, is_deleted: 0,
    environment: 'production', effect_class: 'spawn', ts: `${today} 10:00:00.000`, error: f ? 'boom' : '', error_type: '', category_id: '',
  })));
  await store.insert('tool_rollup_dirty', [{ tenant_id: tenant, tool_name: tool, day: today, version: nextVersion(), is_deleted: 0 }]);
}

const daily = async (tenant: string) =>
  (await store.query<{ tool_name: string; calls: string; failures: string }>(
    'SELECT tool_name, calls, failures FROM {{db}}.tool_failures_daily FINAL WHERE tenant_id = {t:String} ORDER BY tool_name',
    { t: tenant },
  )).map((r) => [r.tool_name, Number(r.calls), Number(r.failures)]);
const marks = async (tenant: string) =>
  (await store.query<{ tool_name: string }>('SELECT tool_name FROM {{db}}.tool_rollup_dirty FINAL WHERE tenant_id = {t:String} AND is_deleted = 0 ORDER BY tool_name', { t: tenant })).map((r) => r.tool_name);

function flusher(s: Store, minIntervalMs = 20) {
  const registry = createMetrics();
  const f = createToolRollupFlusher({ store: s, log: createLogger('silent'), metrics: streamMetrics(registry), minIntervalMs });
  return { f, passes: (outcome: string) => registry.value('stream_tool_rollup_passes_total', { outcome }) };
}

test('marks a crashed run left are recomputed by the first pass, and cleared', async () => {
  await writeCalls('t-left', 'Bash', [true, false, false]);
  await writeCalls('t-left', 'Read', [false]);
  assert.equal(await daily('t-left'), [], 'nothing recomputed yet');
  const { f } = flusher(store);
  f.poke();
  await f.flush();
  assert.equal(await daily('t-left'), [['Bash', 3, 1], ['Read', 1, 0]]);
  assert.equal(await marks('t-left'), []);
  await f.stop();
});

test('a group marked again while a pass recomputes it keeps its mark: the next pass counts the new calls', async () => {
  await writeCalls('t-race', 'Bash', [true]);
  let raced = false;
  // while the pass's first recompute statement runs, the analyzer writes more calls of the group
  const racing: Store = {
    ...store,
    command: async (sql, params) => {
      if (!raced && sql.includes('tool_failures_daily')) {
        raced = true;
        await writeCalls('t-race', 'Bash', [false, false]);
      }
      return store.command(sql, params);
    },
  };
  const { f } = flusher(racing);
  f.poke();
  await f.flush();
  assert.ok(raced);
  assert.equal(await marks('t-race'), ['Bash'], 'the newer mark outlived the pass');
  f.poke();
  await f.flush();
  assert.equal(await daily('t-race'), [['Bash', 3, 1]]);
  assert.equal(await marks('t-race'), []);
  await f.stop();
});

test('a failed pass leaves its marks, and a later pass recomputes them', async () => {
  await writeCalls('t-fail', 'Grep', [true, true]);
  let failing = true;
  const broken: Store = {
    ...store,
    command: async (sql, params) => {
      if (failing && sql.includes('tool_failures_daily')) throw new Error('injected recompute failure');
      return store.command(sql, params);
    },
  };
  const { f, passes } = flusher(broken);
  f.poke();
  await f.flush();
  assert.is(passes('error'), 1);
  assert.equal(await marks('t-fail'), ['Grep']);
  assert.equal(await daily('t-fail'), []);
  failing = false;
  await f.flush();
  assert.equal(await daily('t-fail'), [['Grep', 2, 2]]);
  assert.equal(await marks('t-fail'), []);
  assert.is(passes('ok'), 1);
  await f.stop();
});

test('passes keep the interval between them however often they are asked for', async () => {
  const INTERVAL = 300;
  const starts: number[] = [];
  const ends: number[] = [];
  const timed: Store = {
    ...store,
    query: async (sql, params) => {
      const isMarks = sql.includes('tool_rollup_dirty') && params && 'limit' in params;
      if (isMarks) starts.push(Date.now());
      return store.query(sql, params);
    },
    insert: async (table, rows, settings) => {
      await store.insert(table, rows, settings);
      if (table === 'tool_rollup_dirty') ends.push(Date.now());
    },
  };
  const { f } = flusher(timed, INTERVAL);
  // the analyzer marks a group every 20 ms for 1.5 s and asks for a pass each time
  const until = Date.now() + 1500;
  while (Date.now() < until) {
    await writeCalls('t-paced', 'Bash', [false]);
    f.poke();
    await sleep(20);
  }
  await f.stop();
  assert.ok(starts.length >= 2, `passes ran: ${starts.length}`);
  assert.ok(starts.length <= 1 + Math.ceil(1500 / INTERVAL), `at most one pass per interval: ${starts.length}`);
  // each pass (after the first) starts at least the interval after the previous one ended
  for (let i = 1; i < starts.length; i++) {
    const previousEnd = ends.filter((e) => e <= starts[i]!).at(-1) ?? starts[i - 1]!;
    assert.ok(starts[i]! - previousEnd >= INTERVAL - 5 || i === starts.length - 1, `pass ${i} started ${starts[i]! - previousEnd} ms after the previous ended`);
  }
  const calls = (await daily('t-paced'))[0]?.[1];
  const written = (await store.query<{ n: string }>("SELECT count() AS n FROM {{db}}.tool_call_facts FINAL WHERE tenant_id = 't-paced'"))[0]!.n;
  assert.is(calls, Number(written), 'after the stop every call is counted');
  assert.equal(await marks('t-paced'), []);
});

test.run();
