import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../../core/config.js';
import { createStore } from '../../../core/clickhouse.js';
import { migrate } from '../../../core/migrations.js';
import { loadDataset } from '../../../bench/phases/query.js';
import { parseArgs } from '../../../bench/options.js';
import { tempDir } from '../../helpers/tmp.js';

// own process: one embedded store per process
const own = createStore(loadConfig({ DATA_DIR: tempDir() }));

test('the query dataset: generated, copied to the requested size, counted from the tables, rollup filled', async () => {
  try {
    await migrate(own);
    const { result } = await loadDataset(own, parseArgs(['--events', '40000', '--generate', '10000']), () => {});
    const count = async (t: string) => Number((await own.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.${t} FINAL`))[0]!.n);
    assert.is(result.copies, 4);
    assert.is(result.events, await count('events'));
    assert.is(result.conversations, await count('conversations'));
    assert.is(result.events, result.generated_events! * 4);
    assert.ok(Math.abs(result.events - 40_000) < 40_000 * 0.05, `${result.events} events for 40,000 asked`);
    // the tool-failure rollup agrees with the calls it was rebuilt from
    const [calls] = await own.query<{ n: string }>(`SELECT count() AS n FROM {{db}}.tool_calls FINAL`);
    const [rolled] = await own.query<{ n: string }>(`SELECT sum(calls) AS n FROM {{db}}.tool_failures_daily FINAL`);
    assert.is(rolled!.n, calls!.n);
  } finally {
    await own.close();
  }
});

test.run();
