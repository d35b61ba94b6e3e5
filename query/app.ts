import Router from '@koa/router';
import type { Config } from '../core/config.js';
import type { Logger } from '../core/log.js';
import type { Metrics } from '../core/metrics.js';
import type { Store } from '../core/clickhouse.js';
import type { Bus } from '../core/nats.js';
import type { KeyStore } from '../core/keys.js';
import { createHttpApp, type RequestState } from '../core/http.js';

export interface QueryDeps {
  config: Config;
  log: Logger;
  metrics: Metrics;
  store: Store;
  bus: Bus;
  keys: KeyStore;
}

/** The query Koa app (no listen): spec/data-api.md under /api/v1/data. */
export function createQueryApp(deps: QueryDeps) {
  const app = createHttpApp({
    role: 'query',
    log: deps.log,
    metrics: deps.metrics,
    readiness: { clickhouse: () => deps.store.ping(), nats: () => deps.bus.ping() },
    renderError: (err) => ({ message: err.expose ? err.message : 'internal error', ...(err.details ? { errors: err.details } : {}) }),
  });
  const router = new Router<RequestState>({ prefix: '/api/v1/data' });
  router.get('/whoami', async (ctx) => {
    const p = await deps.keys.authenticate(ctx.get('x-api-key') || undefined, { scope: 'read' });
    ctx.body = { tenant: p.tenant, role: p.role, scopes: p.scopes };
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
