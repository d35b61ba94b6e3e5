import Router from '@koa/router';
import type { Config } from '../core/config.js';
import type { Logger } from '../core/log.js';
import type { Metrics } from '../core/metrics.js';
import type { Bus } from '../core/nats.js';
import type { KeyStore } from '../core/keys.js';
import { createHttpApp, type AppContext, type RequestState } from '../core/http.js';
import type { AppError } from '../core/errors.js';
import { createPublisher, type Publisher } from './publish.js';
import { createPipelineRunner, type PipelineRunner } from './runner.js';
import { createCounters, type RouteDeps } from './routes/common.js';
import { otlpHandler } from './routes/otlp.js';
import { hooksHandler } from './routes/hooks.js';
import { directHandler } from './routes/direct.js';
import { MethodNotAllowedError, RouteNotFoundError } from './errors.js';
import { withFields } from '../core/own.js';

export interface IngestDeps {
  config: Config;
  log: Logger;
  metrics: Metrics;
  bus: Bus;
  keys: KeyStore;
  /** Defaults to a JetStream publisher built from `bus` and `config.ingest`. */
  publisher?: Publisher;
  /** Defaults to inline decoding for small bodies and a lazily created Piscina pool for large ones. */
  runner?: PipelineRunner;
}

/**
 * The one error body of every ingest route and status (docs/ingestion.md "Errors"). The spec
 * names `{error}` for 400/413/503 and `{success, count, message, requestId}` for 401: this shape
 * has both, `error` and `message` holding the same text, plus the stable `code`.
 */
export function errorBody(err: AppError, ctx: AppContext) {
  const text = err.expose ? err.message : 'internal error';
  return { success: false, count: 0, code: err.expose ? err.code : 'internal', error: text, message: text, requestId: ctx.state.requestId };
}

/** The ingest Koa app (no listen): spec/ingestion.md routes on top of the shared HTTP base. */
export function createIngestApp(deps: IngestDeps) {
  const app = createHttpApp({
    role: 'ingest',
    log: deps.log,
    metrics: deps.metrics,
    // the edge needs the bus only: it accepts (durably publishes) whether or not ClickHouse answers
    readiness: { nats: () => deps.bus.ping() },
    renderError: errorBody,
  });
  const rd: RouteDeps = withFields(deps, {
    publisher: deps.publisher ?? createPublisher(deps.bus, deps.metrics, deps.config.ingest),
    runner: deps.runner ?? createPipelineRunner({ retryAfterSeconds: deps.config.ingest.retryAfterSeconds }),
    counters: createCounters(deps),
  });
  // unmatched paths and methods answer in the same error shape as the routes
  app.use(async (ctx, next) => {
    await next();
    if (ctx.body !== undefined && ctx.body !== null) return;
    if (ctx.status === 404) throw new RouteNotFoundError(ctx.method, ctx.path);
    if (ctx.status === 405) throw new MethodNotAllowedError(ctx.method, ctx.path);
  });
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
