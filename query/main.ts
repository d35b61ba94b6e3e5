import type { Runtime, RoleHandle } from '../core/runtime.js';
import { listen } from '../core/http.js';
import { KV_BUCKETS } from '../schemas/subjects.js';
import { createQueryApp } from './app.js';
import { createFixServices } from '../fixes/services.js';
import { createEngineProblemSource } from '../fixes/problems-engine.js';
import type { ProblemSource } from '../fixes/problem-source.js';

/**
 * The secret keyset cursors are signed with: TRACEHOUSE_SECRET, else the signing secret every
 * replica shares through the keys bucket (so a cursor from one replica is valid on another).
 */
async function cursorSecret(rt: Runtime): Promise<string> {
  if (rt.config.secret) return rt.config.secret;
  const kv = await rt.bus.kv(KV_BUCKETS.keys.name);
  const e = await kv.get('signing-secret');
  if (!e) throw new Error('signing secret missing from the keys bucket');
  return e.string();
}

/** Starts the query role on `QUERY_PORT` (0 picks a free port). */
export async function startQuery(rt: Runtime, opts: { port?: number; problems?: ProblemSource; now?: () => number } = {}): Promise<RoleHandle> {
  const log = rt.log.child({ role: 'query' });
  const fixes = await createFixServices({ config: rt.config, bus: rt.bus, store: rt.store, problems: opts.problems ?? createEngineProblemSource({ store: rt.store, now: opts.now, kv: rt.bus.kv(KV_BUCKETS.leases.name) }), now: opts.now });
  const app = createQueryApp({
    config: rt.config,
    log,
    metrics: rt.metrics,
    // the data API's statements go before waiting background work (core/engine-gate.ts)
    store: rt.store.reads(),
    bus: rt.bus,
    keys: rt.keys,
    cursorSecret: await cursorSecret(rt),
    fixes,
    now: opts.now,
  });
  const http = await listen(app, opts.port ?? rt.config.http.queryPort, rt.config.http.host);
  log.info({ url: http.url }, 'query listening');
  return {
    name: 'query',
    url: http.url,
    close: () => http.close(),
  };
}
