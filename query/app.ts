import Router from '@koa/router';
import type { Config } from '../core/config.js';
import type { Logger } from '../core/log.js';
import type { Metrics } from '../core/metrics.js';
import type { Store } from '../core/clickhouse.js';
import type { Bus } from '../core/nats.js';
import type { KeyStore } from '../core/keys.js';
import { createHttpApp, type RequestState } from '../core/http.js';
import { NotFoundError } from '../core/errors.js';
import { DATA_API_BASE, ENDPOINTS } from '../schemas/api/index.js';
import { FIX_API_BASE, FIX_ROUTES } from '../schemas/api/fixes.js';
import { openapiDocument, whoami } from '../schemas/api/overview.js';
import { createCursorCodec } from './pagination.js';
import { buildOpenApi } from './openapi.js';
import { defineRoute } from './routes/define.js';
import type { RouteDeps } from './routes/deps.js';
import { mountConversations } from './routes/conversations.js';
import { mountOverview } from './routes/overview.js';
import { mountToolFailures } from './routes/tool-failures.js';
import { mountSignals } from './routes/signals.js';
import { mountSearch } from './routes/search.js';
import { mountFeedback } from './routes/feedback.js';
import { mountStepScores } from './routes/step-scores.js';
import { mountWorldState } from './routes/world-state.js';
import { mountClusters } from './routes/clusters.js';
import { dashboardMiddleware } from './dashboard.js';
import { mountProblems } from './routes/problems.js';
import { createClustersRepo } from './repo/clusters.js';
import type { FixServices } from '../fixes/services.js';
import { mountFixRoutes } from './routes/fixes.js';
import { mountMcp } from '../mcp/http.js';

export interface QueryDeps {
  config: Config;
  log: Logger;
  metrics: Metrics;
  store: Store;
  bus: Bus;
  keys: KeyStore;
  /** Signs keyset cursors; default derived from config.secret (startQuery passes the shared signing secret). */
  cursorSecret?: string;
  /** Unix ms (default Date.now). */
  now?: () => number;
  /** The fix domain: mounts /api/tenants/* fix routes, the merge webhook and /mcp when given. */
  fixes?: FixServices;
  /** Built dashboard directory (default dist/dashboard). */
  dashboardDir?: string;
}

export const DATA_API_PREFIX = DATA_API_BASE;
const OPENAPI_VERSION = '1.0.0';
const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 500: 'Internal Server Error', 503: 'Service Unavailable' };

/** The query Koa app (no listen): spec/data-api.md under /api/v1/data. */
export function createQueryApp(deps: QueryDeps) {
  const app = createHttpApp({
    role: 'query',
    log: deps.log,
    metrics: deps.metrics,
    readiness: { clickhouse: () => deps.store.ping(), nats: () => deps.bus.ping() },
    // spec/data-api.md Errors rule 1: `message` is a string or an array of validation messages
    renderError: (err) => ({
      statusCode: err.status,
      error: STATUS_TEXT[err.status] ?? 'Error',
      message: Array.isArray(err.details) && err.details.length ? err.details : err.expose ? err.message : 'internal error',
    }),
  });
  const document = serviceOpenApi(deps);
  const router = createDataRouter(deps, document);
  // the analyst dashboard and the key-less /openapi.json on the same origin (query/dashboard.ts)
  app.use(dashboardMiddleware({ ingestPort: deps.config.http.ingestPort, openapi: document, dir: deps.dashboardDir }));
  app.use(router.routes());
  app.use(router.allowedMethods());
  if (deps.fixes) {
    const fixRouter = createFixRouter(deps, deps.fixes);
    app.use(fixRouter.routes());
    app.use(fixRouter.allowedMethods());
    const mcpRouter = new Router<RequestState>();
    mountMcp(mcpRouter, {
      keys: deps.keys,
      services: deps.fixes,
      log: deps.log,
      cursors: createCursorCodec(deps.cursorSecret || deps.config.secret || 'tracehouse-unset-secret'),
      store: deps.store,
      now: deps.now ?? Date.now,
    });
    app.use(mcpRouter.routes());
    app.use(mcpRouter.allowedMethods());
  }
  return app;
}

/** The OpenAPI document of what this app serves: the data API, and the fix routes when the fix domain is given. */
export function serviceOpenApi(deps: Pick<QueryDeps, 'fixes'>): Record<string, unknown> {
  return buildOpenApi(ENDPOINTS, deps.fixes ? FIX_ROUTES : [], OPENAPI_VERSION);
}

/** Every fix route under /api (FIX_ROUTES; exported so tests can compare it with the OpenAPI document). */
export function createFixRouter(deps: QueryDeps, fixes: FixServices): Router<RequestState> {
  const router = new Router<RequestState>({ prefix: FIX_API_BASE });
  mountFixRoutes(router, {
    keys: deps.keys,
    pipeline: fixes.pipeline,
    prompts: fixes.prompts,
    cursors: createCursorCodec(deps.cursorSecret || deps.config.secret || 'tracehouse-unset-secret'),
    webhookSecret: fixes.config.webhookSecret,
  });
  return router;
}

/** Every data-API route under /api/v1/data (exported so tests can compare it with the OpenAPI document). */
export function createDataRouter(deps: QueryDeps, document = serviceOpenApi(deps)): Router<RequestState> {
  const routeDeps: RouteDeps = {
    store: deps.store,
    keys: deps.keys,
    cursors: createCursorCodec(deps.cursorSecret || deps.config.secret || 'tracehouse-unset-secret'),
    now: deps.now ?? Date.now,
  };
  const router = new Router<RequestState>({ prefix: DATA_API_PREFIX });
  const clusters = createClustersRepo(deps.store);
  mountConversations(router, routeDeps, clusters);
  mountOverview(router, routeDeps, clusters);
  mountToolFailures(router, routeDeps);
  mountSignals(router, routeDeps);
  mountSearch(router, routeDeps, clusters);
  mountClusters(router, routeDeps, clusters);
  mountFeedback(router, routeDeps);
  mountStepScores(router, routeDeps);
  mountWorldState(router, routeDeps);
  mountProblems(router, routeDeps);
  defineRoute(router, deps.keys, whoami, async ({ principal }) => ({ tenant: principal.tenant, role: principal.role, scopes: principal.scopes }));
  defineRoute(router, deps.keys, openapiDocument, async () => document);
  // unknown paths under the prefix: JSON 404 (after the key check, so paths are not probed anonymously)
  router.all('unmatched', '/{*rest}', async (ctx) => {
    await deps.keys.authenticate(ctx.get('x-api-key') || undefined, { scope: 'read' });
    throw new NotFoundError(`no endpoint ${ctx.method} ${ctx.path}`);
  });
  return router;
}
