/**
 * The load client, run in the load generator's own process (load-process.ts), so that neither its
 * event loop nor its collector and compiler share the system's (the CPU cores are still shared;
 * ceilings measured the same way carry the same cost). Modes: closed loop at a fixed concurrency,
 * or an offered event rate.
 */
import { patchBody, patchBodyInto, type PoolRequest } from './pool.js';
import { RawConnection, requestHead } from './raw-http.js';

export interface LoadSpec {
  baseUrl: string;
  pool: PoolRequest[];
  /** Bearer token per tenant; `*` is used for tenants without their own key. */
  keys: Record<string, string>;
  concurrency: number;
  durationMs: number;
  /** Offered events per second; absent means closed loop (as fast as responses come back). */
  eventsPerSecond?: number;
  /** First replay round; phases use disjoint ranges so that no two sends carry the same events. */
  roundBase: number;
  /** Send bodies unchanged (a bare parser does not care about distinct content). */
  noPatch?: boolean;
}

export interface LoadResult {
  sent: number;
  ok: number;
  okEvents: number;
  bytes: number;
  statuses: Record<string, number>;
  errors: number;
  elapsedMs: number;
  /** CPU seconds of the load generator's process over the load (every thread; not the system's). */
  cpuSeconds?: number;
  /** Open loop only: the send window (requests still in flight at its end extend elapsedMs, not this). */
  windowMs?: number;
  latencies: number[];
  /** Accepted events per 250 ms slot since the start (throughput over time). */
  timeline: number[];
  /** Percentiles reported by a client that keeps no samples (autocannon: p97.5 stands for p95). */
  percentiles?: { p50: number; p95: number; p99: number; max: number };
}

/** The request's head for a key, made once per request of the pool (its body's length never changes). */
function headOf(cache: Map<PoolRequest, Buffer>, host: string, req: PoolRequest, key: string): Buffer {
  let head = cache.get(req);
  if (head === undefined) {
    head = requestHead(host, req.route, { 'content-type': req.contentType, 'content-length': req.body.byteLength, authorization: `Bearer ${key}` });
    cache.set(req, head);
  }
  return head;
}

/** The body of `req` for `round` in `scratch` (grown when needed): the connection's own copy, reused once answered. */
function bodyIn(scratch: { buf: Buffer }, req: PoolRequest, round: number, patch: boolean): Buffer {
  const n = req.body.byteLength;
  if (!patch) return Buffer.from(req.body.buffer, req.body.byteOffset, n);
  if (scratch.buf.length < n) scratch.buf = Buffer.allocUnsafe(Math.max(n, 2 * scratch.buf.length));
  const body = scratch.buf.subarray(0, n);
  patchBodyInto(req, round, body);
  return body;
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const url = new URL(spec.baseUrl);
  const heads = new Map<PoolRequest, Buffer>();
  const connections: RawConnection[] = [];
  const result: LoadResult = { sent: 0, ok: 0, okEvents: 0, bytes: 0, statuses: {}, errors: 0, elapsedMs: 0, latencies: [], timeline: [] };
  const start = performance.now();
  const end = start + spec.durationMs;
  let next = 0;
  let offeredEvents = 0;
  const worker = async () => {
    const conn = new RawConnection(url.hostname, Number(url.port));
    connections.push(conn);
    const scratch = { buf: Buffer.allocUnsafe(64 * 1024) };
    for (;;) {
      const now = performance.now();
      if (now >= end) return;
      const i = next++;
      const req = spec.pool[i % spec.pool.length]!;
      if (spec.eventsPerSecond) {
        // open loop: request i is due when the events before it have been offered at the target rate
        const due = start + (offeredEvents / spec.eventsPerSecond) * 1000;
        offeredEvents += req.events;
        if (due > now) await new Promise((r) => setTimeout(r, due - now));
        if (performance.now() >= end) return;
      }
      const round = spec.roundBase + Math.floor(i / spec.pool.length);
      const body = bodyIn(scratch, req, round, !spec.noPatch);
      const head = headOf(heads, url.host, req, spec.keys[req.tenant] ?? spec.keys['*']!);
      const t0 = performance.now();
      try {
        const status = await conn.request(head, body);
        const t1 = performance.now();
        result.sent++;
        result.bytes += body.length;
        result.statuses[status] = (result.statuses[status] ?? 0) + 1;
        result.latencies.push(t1 - t0);
        if (status >= 200 && status < 300) {
          result.ok++;
          result.okEvents += req.events;
          const slot = Math.floor((t1 - start) / 250);
          result.timeline[slot] = (result.timeline[slot] ?? 0) + req.events;
        }
      } catch {
        result.errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, worker));
  result.elapsedMs = performance.now() - start;
  if (spec.eventsPerSecond) result.windowMs = spec.durationMs;
  for (let i = 0; i < result.timeline.length; i++) result.timeline[i] ??= 0;
  for (const c of connections) c.close();
  return result;
}

/**
 * In a worker thread autocannon returns its raw per-run result (latency histogram encoded, no
 * percentiles: it expects a parent to aggregate its workers); on a main thread, aggregated ones.
 * Aggregate the raw kind here, so the client gives percentiles wherever it runs.
 */
export function withPercentiles(res: Record<string, any>, aggregate: (raw: Record<string, any>) => Record<string, any>): Record<string, any> {
  if (res.latency && Number.isFinite(Number(res.latency.p99))) return res;
  if (res.latencies === undefined) return res;
  return aggregate(res);
}

/** The same pool through autocannon (an independent client): requests/s, latency, 2xx counts. */
export async function runAutocannon(spec: LoadSpec): Promise<LoadResult> {
  const mod = (await import('autocannon' as string)) as {
    default: ((opts: unknown) => Promise<Record<string, any>>) & { aggregateResult: (result: unknown, opts: unknown) => Record<string, any> };
  };
  let i = 0;
  let events = 0;
  const pool = spec.pool;
  const started = performance.now();
  const opts = {
    url: spec.baseUrl,
    connections: spec.concurrency,
    duration: Math.max(1, Math.round(spec.durationMs / 1000)),
    requests: [
      {
        method: 'POST',
        setupRequest: (req: Record<string, unknown>) => {
          const n = i++;
          const r = pool[n % pool.length]!;
          events += r.events;
          const body = patchBody(r, spec.roundBase + Math.floor(n / pool.length));
          return { ...req, path: r.route, body, headers: { 'content-type': r.contentType, authorization: `Bearer ${spec.keys[r.tenant] ?? spec.keys['*']}` } };
        },
      },
    ],
  };
  const res = withPercentiles(await mod.default(opts), (r) => mod.default.aggregateResult([r], opts));
  const ok = Number(res['2xx'] ?? 0);
  const sent = i;
  const meanEvents = sent ? events / sent : 0;
  const lat = res.latency ?? {};
  return {
    sent: Number(res.requests?.total ?? sent),
    ok,
    okEvents: Math.round(ok * meanEvents),
    bytes: Number(res.throughput?.total ?? 0),
    statuses: { '2xx': ok, non2xx: Number(res.non2xx ?? 0) },
    errors: Number(res.errors ?? 0) + Number(res.timeouts ?? 0),
    elapsedMs: performance.now() - started,
    latencies: [],
    percentiles: { p50: Number(lat.p50), p95: Number(lat.p97_5), p99: Number(lat.p99), max: Number(lat.max) },
    timeline: [],
  };
}
