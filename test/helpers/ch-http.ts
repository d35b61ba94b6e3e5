/**
 * The embedded engine behind ClickHouse's HTTP interface in a child process (ch-http-child.ts),
 * beside an embedded store: the two store implementations a byte-path test runs its scenarios on.
 */
import { spawn } from 'node:child_process';
import type { Test } from 'uvu';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../core/config.js';
import { createStore, type Store } from '../../core/clickhouse.js';
import { migrate } from '../../core/migrations.js';
import { tempDir } from './tmp.js';

export interface BothStores {
  stores: Array<{ name: 'embedded' | 'server'; store: Store }>;
  close(): Promise<void>;
}

/** The engine behind ClickHouse's HTTP interface in a child process of its own, on a fresh data directory. */
export async function startServerEngine(): Promise<{ url: string; stop(): void }> {
  const file = fileURLToPath(new URL('./ch-http-child.js', import.meta.url));
  const child = spawn(process.execPath, [file, tempDir()], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /port (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`engine process exited ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

/** An embedded store and a server store (through the HTTP child), each on its own migrated data. */
export async function bothStores(): Promise<BothStores> {
  const server = await startServerEngine();
  const stores: BothStores['stores'] = [
    { name: 'embedded', store: createStore(loadConfig({ DATA_DIR: tempDir() })) },
    { name: 'server', store: createStore(loadConfig({ DATA_DIR: tempDir(), CLICKHOUSE_URL: server.url })) },
  ];
  for (const s of stores) await migrate(s.store);
  return {
    stores,
    async close() {
      for (const s of stores) await s.store.close();
      server.stop();
    },
  };
}

/** Both stores for a suite: started before its tests, closed after; `storeOf(name)` once started. */
export function useBothStores(suite: Test): (name: 'embedded' | 'server') => Store {
  let both: BothStores | undefined;
  suite.before(async () => {
    both = await bothStores();
  });
  suite.after(() => both?.close());
  return (name) => both!.stores.find((s) => s.name === name)!.store;
}
