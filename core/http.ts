import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import Koa from 'koa';
import { AppError } from './errors.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics.js';

export interface RequestState {
  requestId: string;
  log: Logger;
}

export type AppContext = Koa.ParameterizedContext<RequestState>;

export interface HttpAppOptions {
  role: string;
  log: Logger;
  metrics: Metrics;
  /** Named dependency checks for `/readyz`; each resolves true when reachable. */
  readiness: Record<string, () => Promise<boolean>>;
  /** Body of an error response; each service has its own shape (spec/ingestion.md vs spec/data-api.md). */
  renderError: (err: AppError, ctx: AppContext) => unknown;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A Koa app with what every HTTP role shares: request ids (`x-request-id`, on every log line of the
 * request), access logging, Prometheus request metrics, the one error middleware, and the
 * `/healthz`, `/readyz`, `/metrics` routes. Roles mount their routers on it.
 */
export function createHttpApp(opts: HttpAppOptions): Koa<RequestState> {
  const app = new Koa<RequestState>();
  app.proxy = true;
  const requests = opts.metrics.counter('http_requests_total', 'HTTP requests by role, route and status');
  const latency = opts.metrics.histogram('http_request_duration_seconds', 'HTTP request latency by role, route and status');

  app.use(async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = opts.log.child({ requestId });
    ctx.set('x-request-id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } catch (err) {
      handleError(err, ctx, opts);
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? (ctx.status === 404 ? 'unmatched' : ctx.path);
      const labels = { role: opts.role, method: ctx.method, route: String(route), status: ctx.status };
      requests.inc(labels);
      latency.observe(labels, seconds);
      ctx.state.log.debug({ method: ctx.method, url: ctx.url, status: ctx.status, ms: Math.round(seconds * 1000) }, 'request');
    }
  });
  app.on('error', () => {
    // errors are answered and logged by the middleware above; Koa's default would print them again
  });

  app.use(async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok', role: opts.role };
      return;
    }
    if (ctx.path === '/readyz') {
      const entries = await Promise.all(
        Object.entries(opts.readiness).map(async ([name, check]) => [name, await check().catch(() => false)] as const),
      );
      const failing = entries.filter(([, ok]) => !ok).map(([n]) => n);
      ctx.status = failing.length ? 503 : 200;
      ctx.body = failing.length
        ? { status: 'unavailable', failing, message: `not ready: ${failing.join(', ')} unreachable`, checks: Object.fromEntries(entries) }
        : { status: 'ready', checks: Object.fromEntries(entries) };
      return;
    }
    if (ctx.path === '/metrics') {
      ctx.type = 'text/plain; version=0.0.4';
      ctx.body = await opts.metrics.render();
      return;
    }
    return next();
  });
  return app;
}

function handleError(err: unknown, ctx: AppContext, opts: HttpAppOptions): void {
  let appErr: AppError;
  if (err instanceof AppError) {
    appErr = err;
  } else if (isHttpError(err)) {
    // errors raised by Koa or its helpers (ctx.throw): keep their status
    appErr = new AppError('http_error', err.status, err.expose ? err.message : 'request failed', { expose: err.expose });
  } else {
    appErr = new AppError('internal', 500, 'internal error', { cause: err, expose: false });
  }
  if (appErr.status >= 500 && appErr.status !== 503) ctx.state.log.error({ err }, 'request failed');
  else ctx.state.log.info({ code: appErr.code, status: appErr.status, reason: appErr.message }, 'request rejected');
  ctx.status = appErr.status;
  for (const [k, v] of Object.entries(appErr.headers ?? {})) ctx.set(k, v);
  ctx.body = opts.renderError(appErr, ctx);
}

function isHttpError(err: unknown): err is { status: number; expose: boolean; message: string } {
  return !!err && typeof err === 'object' && typeof (err as { status?: unknown }).status === 'number';
}

export interface Listening {
  server: Server;
  port: number;
  url: string;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes idle sockets. */
  close(graceMs?: number): Promise<void>;
}

export async function listen(app: Koa<RequestState>, port: number, host: string): Promise<Listening> {
  const server = app.listen({ port, host });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const actual = (server.address() as { port: number }).port;
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    server,
    port: actual,
    url: `http://${displayHost}:${actual}`,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
