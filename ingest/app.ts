import Router from '@koa/router';
import type { Config } from '../core/config.js';
import type { Logger } from '../core/log.js';
import type { Metrics } from '../core/metrics.js';
import type { Store } from '../core/clickhouse.js';
import type { Bus } from '../core/nats.js';
import type { KeyStore } from '../core/keys.js';
import { createHttpApp, type RequestState } from '../core/http.js';
import { createPublisher, type Publisher } from './publish.js';
import { createPipelineRunner, type PipelineRunner } from './runner.js';
import { createCounters, type RouteDeps } from './routes/common.js';
import { otlpHandler } from './routes/otlp.js';
import { hooksHandler } from './routes/hooks.js';
import { directHandler } from './routes/direct.js';

export interface IngestDeps {
  config: Config;
  log: Logger;
  metrics: Metrics;
  store: Store;
  bus: Bus;
  keys: KeyStore;
  /** Defaults to a JetStream publisher built from `bus` and `config.ingest`. */
  publisher?: Publisher;
  /** Defaults to inline decoding for small bodies and a lazily created Piscina pool for large ones. */
  runner?: PipelineRunner;
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
  const rd: RouteDeps = {
    ...deps,
    publisher: deps.publisher ?? createPublisher(deps.bus, deps.metrics, deps.config.ingest),
    runner: deps.runner ?? createPipelineRunner({ retryAfterSeconds: deps.config.ingest.retryAfterSeconds }),
    counters: createCounters(deps),
  };
  const router = new Router<RequestState>();
  for (const signal of ['logs', 'traces', 'metrics'] as const) {
    router.post(`/v1/otel/:agent/${signal}`, otlpHandler(rd, signal, { agentRoute: true }));
    router.post(`/v1/${signal}`, otlpHandler(rd, signal, { agentRoute: false }));
  }
  router.post('/v1/otel/:agent/hooks', hooksHandler(rd));
  router.post('/v1/ingest', directHandler(rd));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
