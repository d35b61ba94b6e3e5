import { createRequire } from 'node:module';
import type { createChdbConnection as CreateChdbConnection } from 'chdb/connection';
import { exportEngineMallocConf, type Config } from './config.js';

/**
 * The embedded engine's library, loaded on the first embedded store and not before: its allocator
 * reads its options from the environment when it loads (config.ts `exportEngineMallocConf`), and a
 * process that only uses a server (or no store, as the ingest role) never maps it.
 */
let loadedChdb: typeof CreateChdbConnection | undefined;
export function chdbConnection(config: Config): typeof CreateChdbConnection {
  if (loadedChdb === undefined) {
    exportEngineMallocConf(config);
    loadedChdb = (createRequire(import.meta.url)('chdb/connection') as { createChdbConnection: typeof CreateChdbConnection }).createChdbConnection;
  }
  return loadedChdb;
}
