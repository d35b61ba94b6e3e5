/**
 * The embedded engine's allocator options (JE_MALLOC_CONF, core/config-variables.ts): the engine's
 * library is loaded by the first embedded store (core/engine-library.ts), after the options are in
 * the environment, so its allocator reads them; a process without an embedded store never loads it.
 * Each case runs in a child process, since a library loads once per process.
 */
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_ENGINE_MALLOC_CONF } from '../../../core/config.js';
import { tempDir } from '../../helpers/tmp.js';

const configUrl = new URL('../../../core/config.js', import.meta.url).href;
const storeUrl = new URL('../../../core/clickhouse.js', import.meta.url).href;

/** A child that creates one store from its environment, runs a statement and reports what it saw. */
const script = `
const { readFileSync } = await import('node:fs');
const mapped = () => /libchdb/.test(readFileSync('/proc/self/maps', 'utf8'));
const { loadConfig } = await import(${JSON.stringify(configUrl)});
const { createStore } = await import(${JSON.stringify(storeUrl)});
const before = mapped();
const config = loadConfig(process.env);
const store = createStore(config);
const report = { before, after: mapped(), conf: process.env.JE_MALLOC_CONF ?? null };
if (!config.clickhouse.url) report.rows = await store.query('SELECT 40 + 2 AS n');
await store.close();
process.stdout.write(JSON.stringify(report));
`;

interface Report {
  before: boolean;
  after: boolean;
  conf: string | null;
  rows?: Array<{ n: number }>;
}

function child(env: Record<string, string>): { status: number | null; signal: NodeJS.Signals | null; report?: Report; stderr: string } {
  const base: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: 'silent', DATA_DIR: tempDir() };
  delete base.JE_MALLOC_CONF;
  delete base.CLICKHOUSE_URL;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...base, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, signal: r.signal, report: r.status === 0 ? (JSON.parse(r.stdout) as Report) : undefined, stderr: r.stderr };
}

test('the first embedded store loads the engine with the default allocator options in its environment', () => {
  const r = child({});
  assert.is(r.status, 0, r.stderr);
  assert.is(r.report!.before, false, 'importing the store module does not load the engine');
  assert.is(r.report!.after, true);
  assert.is(r.report!.conf, DEFAULT_ENGINE_MALLOC_CONF);
  assert.equal(r.report!.rows, [{ n: 42 }]);
});

test("the engine's allocator reads the options as it loads, and accepts the default ones", () => {
  // with abort_conf an option the allocator does not know stops the process as it loads: so the
  // default options are known to it, and the variable reaches it
  const accepted = child({ JE_MALLOC_CONF: `${DEFAULT_ENGINE_MALLOC_CONF},abort_conf:true` });
  assert.is(accepted.status, 0, accepted.stderr);
  assert.equal(accepted.report!.rows, [{ n: 42 }]);
  const refused = child({ JE_MALLOC_CONF: 'no_such_option:1,abort_conf:true' });
  assert.is(refused.signal, 'SIGABRT', `status ${refused.status}: ${refused.stderr.slice(0, 300)}`);
});

test("off leaves the engine's built-in options; a value set by the operator is kept", () => {
  const off = child({ JE_MALLOC_CONF: 'off' });
  assert.is(off.status, 0, off.stderr);
  assert.is(off.report!.conf, '');
  const own = child({ JE_MALLOC_CONF: 'dirty_decay_ms:1000,muzzy_decay_ms:0' });
  assert.is(own.status, 0, own.stderr);
  assert.is(own.report!.conf, 'dirty_decay_ms:1000,muzzy_decay_ms:0');
});

test('a process whose store is a ClickHouse server never loads the engine', () => {
  const r = child({ CLICKHOUSE_URL: 'http://127.0.0.1:9' });
  assert.is(r.status, 0, r.stderr);
  assert.is(r.report!.after, false);
});

test.run();
