import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Koa from 'koa';
import type { RequestState } from '../core/http.js';
import { NotFoundError, UnavailableError } from '../core/errors.js';

/** Where `npm run build` writes the dashboard bundle (dist/dashboard, beside dist/query). */
export const DASHBOARD_DIR = fileURLToPath(new URL('../dashboard/', import.meta.url));

/** First path segments the single-page dashboard answers with its page (client-side routes). */
export const DASHBOARD_PAGES = ['', 'conversations', 'use-cases', 'problems', 'tool-failures', 'fixes', 'api', 'sign-in'] as const;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

// the page may load only its own bundle and talk only to its own origin
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export interface DashboardOptions {
  /** Directory holding index.html and assets/ (default dist/dashboard). */
  dir?: string;
  /** Ingest port shown in the copy-paste ingest commands of empty states. */
  ingestPort: number;
  /** The OpenAPI document, served without a key at /openapi.json. */
  openapi: Record<string, unknown>;
}

/**
 * Serves the analyst dashboard on the query role's origin: `/openapi.json` (no key: it describes,
 * it does not read data), `/assets/*` (the esbuild bundle), and the page shell for the dashboard's
 * own paths. Everything the pages show comes from the data API with the signed-in key.
 */
export function dashboardMiddleware(opts: DashboardOptions): Koa.Middleware<RequestState> {
  const dir = opts.dir ?? DASHBOARD_DIR;
  const cache = new Map<string, Buffer>();
  const load = async (file: string) => {
    let body = cache.get(file);
    if (!body) {
      body = await readFile(join(dir, file));
      cache.set(file, body);
    }
    return body;
  };
  const openapi = JSON.stringify(opts.openapi);
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === '/openapi.json') {
      ctx.type = 'application/json';
      ctx.set('cache-control', 'no-cache');
      ctx.body = openapi;
      return;
    }
    if (ctx.path.startsWith('/assets/')) {
      const rel = normalize(ctx.path.slice(1));
      if (!rel.startsWith('assets/') || rel.includes('..')) throw new NotFoundError(`no asset ${ctx.path}`);
      const type = TYPES[extname(rel)];
      if (!type) throw new NotFoundError(`no asset ${ctx.path}`);
      let body: Buffer;
      try {
        body = await load(rel);
      } catch {
        throw new NotFoundError(`no asset ${ctx.path}`);
      }
      ctx.type = type;
      ctx.set('cache-control', 'no-cache');
      ctx.body = body;
      return;
    }
    const parts = ctx.path.split('/');
    const first = parts[1] ?? '';
    // `/api` is the reference page; everything below it (`/api/v1/...`) is the API itself
    if (!(DASHBOARD_PAGES as readonly string[]).includes(first) || (first === 'api' && parts.length > 2 && parts[2] !== '')) return next();
    if (!existsSync(join(dir, 'index.html'))) {
      throw new UnavailableError('the dashboard is not built: run `npm run build` (it bundles dashboard/ into dist/dashboard)', 60, { code: 'dashboard_not_built' });
    }
    const html = (await load('index.html')).toString('utf8').replace('__INGEST_PORT__', String(opts.ingestPort));
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('cache-control', 'no-cache');
    ctx.set('content-security-policy', CSP);
    ctx.set('x-content-type-options', 'nosniff');
    ctx.set('referrer-policy', 'no-referrer');
    ctx.body = html;
  };
}
