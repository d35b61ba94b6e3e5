/**
 * The test runner's migrated template (test/helpers/data-template.ts): a copy of it is a complete,
 * writable store. Its migrations are all recorded, its tables are those of a migration from
 * scratch, and rows written to the copy never reach the template.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { loadConfig } from '../../../core/config.js';
import { createStore } from '../../../core/clickhouse.js';
import { loadMigrations, migrate } from '../../../core/migrations.js';
import { projectRoot } from '../../../core/paths.js';
import { migratedDataDir, TEMPLATE_ENV } from '../../helpers/data-template.js';

/** A template of this suite's own, made as the runner makes one (a child process: one data directory per process). */
function makeTemplate(): string {
  const r = spawnSync(process.execPath, [join(projectRoot, 'dist', 'test', 'helpers', 'make-data-template.js')], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  return r.stdout.trim();
}

const template = makeTemplate();
process.on('exit', () => rmSync(template, { recursive: true, force: true }));

/** Table names and row counts of a stopped store, read in a child process. */
function tablesOf(dataDir: string): Record<string, number> {
  const script = `
    const { loadConfig } = await import(${JSON.stringify(join(projectRoot, 'dist', 'core', 'config.js'))});
    const { createStore } = await import(${JSON.stringify(join(projectRoot, 'dist', 'core', 'clickhouse.js'))});
    const store = createStore(loadConfig({ DATA_DIR: ${JSON.stringify(dataDir)} }));
    const rows = await store.query("SELECT name, total_rows AS n FROM system.tables WHERE database = {db:String}", { db: store.database });
    process.stdout.write(JSON.stringify(Object.fromEntries(rows.map((r) => [r.name, Number(r.n ?? 0)]))));
    await store.close();`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Record<string, number>;
}

test('a copy of the template has every migration applied, the tables of a migration from scratch, and its writes stay its own', async () => {
  const before = tablesOf(template);
  process.env[TEMPLATE_ENV] = template;
  const copy = migratedDataDir('th-copy-');
  const store = createStore(loadConfig({ DATA_DIR: copy }));
  try {
    assert.equal((await migrate(store)).applied, [], 'nothing left to migrate');
    const recorded = await store.query<{ version: string }>('SELECT version FROM {{db}}.schema_migrations FINAL ORDER BY version');
    assert.equal(recorded.map((r) => Number(r.version)), loadMigrations().map((m) => m.version));
    const tables = await store.query<{ name: string }>('SELECT name FROM system.tables WHERE database = {db:String} ORDER BY name', { db: store.database });
    assert.equal(tables.map((t) => t.name), Object.keys(before).sort());
    await store.insert('schema_migrations', [{ version: 999_999, name: 'copy_only', checksum: 'x' }]);
    const [row] = await store.query<{ n: string }>('SELECT count() AS n FROM {{db}}.schema_migrations WHERE version = 999999');
    assert.is(row!.n, '1');
  } finally {
    await store.close();
  }
  assert.equal(tablesOf(template), before, 'the template is unchanged');
});

test.run();
