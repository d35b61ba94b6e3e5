/**
 * A migrated data directory for the suites. Migrating an empty embedded ClickHouse takes about 170
 * statements (two to three seconds); most suites start a system on a fresh directory and none of
 * them is about the migrations (those suites migrate their own). The runner migrates one template
 * directory per run with the real `migrate` (`makeDataTemplate`, in a child process: one chDB
 * data directory per process) and names it in `TRACEHOUSE_TEST_DATA_TEMPLATE`; `migratedDataDir`
 * copies it, and the system's own `migrate` then finds every migration applied. A suite run on its
 * own, without the runner, gets an empty directory and migrates as before.
 */
import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tempDir } from './tmp.js';

export const TEMPLATE_ENV = 'TRACEHOUSE_TEST_DATA_TEMPLATE';

/** A fresh data directory, removed at exit: a copy of the run's migrated template when there is one. */
export function migratedDataDir(prefix = 'th-data-'): string {
  const dir = tempDir(prefix);
  const template = process.env[TEMPLATE_ENV];
  // the store's directories use relative symlinks (data/<db>/<table> -> ../../store/…): copied as they are
  if (template && existsSync(template)) cpSync(template, dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}

/** Migrates a new template directory under the system's temp dir and returns its path. */
export async function makeDataTemplate(): Promise<string> {
  const { loadConfig } = await import('../../core/config.js');
  const { createStore } = await import('../../core/clickhouse.js');
  const { migrate } = await import('../../core/migrations.js');
  const dir = mkdtempSync(join(tmpdir(), 'th-template-'));
  const store = createStore(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }));
  try {
    await migrate(store);
  } finally {
    await store.close();
  }
  return dir;
}
