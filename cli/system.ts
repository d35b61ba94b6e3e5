import type { Config } from '../core/config.js';
import { createRuntime, type Runtime, type RoleHandle } from '../core/runtime.js';
import type { Logger } from '../core/log.js';
import type { StreamOptions } from '../stream/main.js';
import { createHttpApp, listen } from '../core/http.js';

export type RoleName = 'ingest' | 'stream' | 'query';

export interface System {
  readonly rt: Runtime;
  readonly roles: RoleHandle[];
  readonly ingestUrl?: string;
  readonly queryUrl?: string;
  /** The admin key minted on first start of an empty key store (shown once), if any. */
  readonly mintedKey?: string;
  /**
   * Stops in the documented order (docs/operations.md): HTTP roles stop accepting and finish
   * in-flight requests; the stream role stops pulling, finishes and flushes its batches and acks;
   * then the bus and ClickHouse clients close; the managed nats-server stops last.
   */
  stop(): Promise<void>;
}

export async function startSystem(
  config: Config,
  opts: {
    roles?: RoleName[];
    log?: Logger;
    ingestPort?: number;
    queryPort?: number;
    streamPort?: number;
    stream?: StreamOptions;
    /** Open ClickHouse; default: when a role other than ingest runs (a caller composing roles itself may need it). */
    openStore?: boolean;
  } = {},
): Promise<System> {
  const wanted = opts.roles ?? ['ingest', 'stream', 'query'];
  // the ingest role alone never touches ClickHouse: it does not open (or lock) the embedded engine
  const rt = await createRuntime(config, { log: opts.log, openStore: opts.openStore ?? wanted.some((r) => r !== 'ingest') });
  const roles: RoleHandle[] = [];
  let mintedKey: string | undefined;
  try {
    const boot = await rt.keys.bootstrap(config.bootstrapKey);
    if (boot.kind === 'minted') mintedKey = boot.key;
    if (boot.kind === 'registered') rt.log.info('bootstrap key registered as the admin key of tenant "default"');
    // each role's code is loaded only where it runs: an ingest process holds no stream or query code
    if (wanted.includes('stream')) roles.push(await (await import('../stream/main.js')).startStream(rt, opts.stream));
    if (wanted.includes('ingest')) roles.push(await (await import('../ingest/main.js')).startIngest(rt, { port: opts.ingestPort }));
    if (wanted.includes('query')) roles.push(await (await import('../query/main.js')).startQuery(rt, { port: opts.queryPort }));
    // the stream role alone has no HTTP role to serve its health and metrics: give it a small one
    if (wanted.length === 1 && wanted[0] === 'stream') roles.push(await startOpsServer(rt, opts.streamPort ?? config.http.streamPort));
  } catch (err) {
    for (const r of roles.reverse()) await r.close().catch(() => {});
    await rt.close();
    throw err;
  }
  const byName = (n: string) => roles.find((r) => r.name === n);
  let stopped: Promise<void> | undefined;
  return {
    rt,
    roles,
    ingestUrl: byName('ingest')?.url,
    queryUrl: byName('query')?.url,
    mintedKey,
    stop() {
      stopped ??= (async () => {
        const http = roles.filter((r) => r.name !== 'stream' && r.name !== 'stream-ops');
        await Promise.all(http.map((r) => r.close().catch((err) => rt.log.error({ err, role: r.name }, 'stopping role'))));
        const stream = byName('stream');
        if (stream) await stream.close().catch((err) => rt.log.error({ err }, 'stopping stream role'));
        const ops = byName('stream-ops');
        if (ops) await ops.close();
        await rt.close();
      })();
      return stopped;
    },
  };
}

/** `/healthz`, `/readyz` and `/metrics` for a process that runs only the stream role. */
async function startOpsServer(rt: Runtime, port: number): Promise<RoleHandle> {
  const app = createHttpApp({
    role: 'stream',
    log: rt.log.child({ role: 'stream' }),
    metrics: rt.metrics,
    readiness: { clickhouse: () => rt.store.ping(), nats: () => rt.bus.ping() },
    renderError: (err) => ({ message: err.expose ? err.message : 'internal error' }),
  });
  const http = await listen(app, port, rt.config.http.host);
  return { name: 'stream-ops', url: http.url, close: () => http.close() };
}
