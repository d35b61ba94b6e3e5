import type { Runtime, RoleHandle } from '../core/runtime.js';
import { listen } from '../core/http.js';
import { createIngestApp } from './app.js';
import { createPipelineRunner } from './runner.js';

/** Starts the ingest role on `INGEST_PORT` (0 picks a free port). */
export async function startIngest(rt: Runtime, opts: { port?: number } = {}): Promise<RoleHandle> {
  const log = rt.log.child({ role: 'ingest' });
  const runner = createPipelineRunner({ retryAfterSeconds: rt.config.ingest.retryAfterSeconds });
  const app = createIngestApp({ config: rt.config, log, metrics: rt.metrics, bus: rt.bus, keys: rt.keys, runner });
  const http = await listen(app, opts.port ?? rt.config.http.ingestPort, rt.config.http.host);
  log.info({ url: http.url }, 'ingest listening');
  return {
    name: 'ingest',
    url: http.url,
    async close() {
      // stop accepting and finish in-flight requests, then the decode workers
      await http.close();
      await runner.close();
    },
  };
}
