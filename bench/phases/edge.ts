import { buildPool, onlyFormat, patchBody } from '../lib/pool.js';
import { loadInProcess, throughput, type Throughput } from '../lib/load.js';
import { startParseServer } from '../ceilings/http-parse.js';
import { routeExists, type BenchSystem } from '../lib/system.js';
import { FORMATS, type Format } from '../workload/conversation.js';
import { ratio } from '../lib/stats.js';
import type { BenchOptions } from '../options.js';

export interface EdgeRow {
  format: Format;
  route: string;
  /** Set when the route is absent: the row shows `n/a (not implemented)`. */
  missing?: string;
  ceiling?: Throughput;
  ingest?: Throughput;
  autocannon?: Throughput;
  ingest_vs_parse_ceiling?: number;
}

let roundBase = 0x10000000;
/** Disjoint replay-round ranges per measurement, so no two sends carry the same events. */
export const nextRounds = () => (roundBase += 0x100000);

/**
 * Ingest edge per format at fixed concurrency, beside the bare parse ceiling on the same bodies,
 * and the same load through autocannon. The stream role keeps consuming meanwhile, as in production.
 */
const edgePool = (o: BenchOptions, format: Format) => buildPool(o.quick ? 3_000 : 30_000, { seed: o.seed + 100, formatWeights: onlyFormat(format) });

/** The bare parse ceiling of every format, measured before the system starts (nothing else running). */
export async function measureParseCeilings(o: BenchOptions): Promise<Partial<Record<Format, Throughput>>> {
  const out: Partial<Record<Format, Throughput>> = {};
  const parse = await startParseServer();
  try {
    for (const format of FORMATS) {
      const pool = edgePool(o, format);
      out[format] = throughput(await loadInProcess({ pool: pool.requests, keys: { '*': 'ceiling' }, concurrency: o.concurrency, durationMs: o.edgeSeconds * 1000, baseUrl: parse.url, roundBase: 0, noPatch: true }));
    }
  } finally {
    await parse.close();
  }
  return out;
}

export async function measureEdge(sys: BenchSystem, o: BenchOptions, ceilings: Partial<Record<Format, Throughput>>, log: (s: string) => void): Promise<EdgeRow[]> {
  const rows: EdgeRow[] = [];
  {
    for (const format of FORMATS) {
      const pool = edgePool(o, format);
      const first = pool.requests[0]!;
      const row: EdgeRow = { format, route: first.route, ceiling: ceilings[format] };
      const probe = await routeExists(sys.ingestUrl + first.route, { headers: { 'content-type': first.contentType, authorization: `Bearer ${sys.keys[first.tenant]}` }, body: patchBody(first, nextRounds()) });
      const spec = { pool: pool.requests, keys: sys.keys, concurrency: o.concurrency, durationMs: o.edgeSeconds * 1000 };
      if (!probe.exists) {
        row.missing = `n/a (not implemented: ${probe.status || 'no answer'})`;
      } else {
        row.ingest = throughput(await loadInProcess({ ...spec, baseUrl: sys.ingestUrl, roundBase: nextRounds() }));
        if (!o.skip.has('autocannon')) row.autocannon = throughput(await loadInProcess({ ...spec, baseUrl: sys.ingestUrl, roundBase: nextRounds() }, 'autocannon'));
        row.ingest_vs_parse_ceiling = ratio(row.ingest.events_per_s, row.ceiling?.events_per_s ?? NaN);
        // each format starts with an empty backlog: the stream role stores what was ingested; a quick
        // run purges what it has not stored yet instead (nothing later reads the edge's traffic: end
        // to end measures its own, the query dataset is bulk-loaded), which saves ~20 s
        if (o.quick) await sys.system.rt.bus.jsm.streams.purge('INGEST');
        else await drain(sys, 30_000);
      }
      log(`edge ${format}: ingest ${row.ingest?.events_per_s ?? 'n/a'} ev/s, parse ceiling ${row.ceiling?.events_per_s ?? 'n/a'} ev/s`);
      rows.push(row);
    }
  }
  return rows;
}

/** How often `drain` reads the backlog. */
const DRAIN_POLL_MS = 25;

/** Waits until the INGEST backlog is empty (or the timeout), so one measurement does not tax the next. */
export async function drain(sys: BenchSystem, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const b = await sys.backlog();
    if (!b || (b.pending === 0 && b.ackPending === 0)) return true;
    if (Date.now() > until) return false;
    // a fine poll: the end-to-end steps judge the drain against a limit of 750 ms (quick), and a
    // 200 ms poll overstated it by up to a poll (one consumer-info request per poll; cheap)
    await new Promise((r) => setTimeout(r, DRAIN_POLL_MS));
  }
}
