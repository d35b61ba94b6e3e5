import Router from '@koa/router';
import type { Config } from '../core/config.js';
import type { Logger } from '../core/log.js';
import type { Metrics } from '../core/metrics.js';
import type { Store } from '../core/clickhouse.js';
import type { Bus } from '../core/nats.js';
import type { KeyStore } from '../core/keys.js';
import { createHttpApp, type RequestState } from '../core/http.js';

export interface IngestDeps {
  config: Config;
  log: Logger;
  metrics: Metrics;
  store: Store;
  bus: Bus;
  keys: KeyStore;
}

/** The ingest Koa app (no listen): spec/ingestion.md routes on top of the shared HTTP base. */
export function createIngestApp(deps: IngestDeps) {
  const app = createHttpApp({
    role: 'ingest',
    log: deps.log,
    metrics: deps.metrics,
    readiness: { clickhouse: () => deps.store.ping(), nats: () => deps.bus.ping() },
    renderError: (err, ctx) =>
      err.status === 401
        ? { success: false, count: 0, message: err.message, requestId: ctx.state.requestId }
        : { error: err.expose ? err.message : 'internal error' },
  });
  const router = new Router<RequestState>();
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
