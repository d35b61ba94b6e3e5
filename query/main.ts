import type { Runtime, RoleHandle } from '../core/runtime.js';
import { listen } from '../core/http.js';
import { createQueryApp } from './app.js';

/** Starts the query role on `QUERY_PORT` (0 picks a free port). */
export async function startQuery(rt: Runtime, opts: { port?: number } = {}): Promise<RoleHandle> {
  const log = rt.log.child({ role: 'query' });
  const app = createQueryApp({ config: rt.config, log, metrics: rt.metrics, store: rt.store, bus: rt.bus, keys: rt.keys });
  const http = await listen(app, opts.port ?? rt.config.http.queryPort, rt.config.http.host);
  log.info({ url: http.url }, 'query listening');
  return {
    name: 'query',
    url: http.url,
    close: () => http.close(),
  };
}
