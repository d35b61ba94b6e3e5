/**
 * The whole-pipeline fuzz (issue 17 "Must show"): seeded hostile bodies (bench/lib/fuzz-bodies.ts)
 * on every route, through ingest, JetStream and the stream role into ClickHouse. Every request
 * carries its own `x-request-id`; a plain NATS subscription on `ingest.>` sees every batch
 * published, with that request id and the event ids, so the check knows exactly which events each
 * request made durable. Afterwards, with INGEST drained:
 *  - every event of every acknowledged request (200) is stored exactly once, by event id;
 *  - nothing was published for a rejected request (4xx), so nothing of it can be stored, and no
 *    stored event comes from anywhere else;
 *  - the DLQ holds only single events (each alone) the edge could not have known to refuse.
 */
import { connect } from '@nats-io/transport-node';
import type { Bus } from '../../core/nats.js';
import type { Store } from '../../core/clickhouse.js';
import { CONSUMERS } from '../../schemas/subjects.js';
import { listDeadLetters } from '../../stream/dlq.js';
import { wholeEvents } from '../../stream/batch.js';
import type { IngestBatch } from '../../schemas/events.js';
import { FUZZ_ROUTES, makeRequest, prng, type FuzzRoute } from './fuzz-bodies.js';

export interface PipelineFuzzOptions {
  ingestUrl: string;
  adminKey: string;
  bus: Bus;
  /** The bus URL: the watching subscription gets a connection of its own. */
  natsUrl: string;
  store: Store;
  /** Requests per route (FUZZ_ROUTES). */
  perRoute: number;
  seed: number;
  concurrency?: number;
  log?: (line: string) => void;
}

export interface RouteCounts {
  requests: number;
  statuses: Record<string, number>;
  /** Events published (made durable) for the route's acknowledged requests. */
  events: number;
}

export interface PipelineFuzzReport {
  seed: number;
  routes: Record<FuzzRoute, RouteCounts>;
  requests: number;
  acknowledged: number;
  rejected: number;
  unavailable: number;
  /** Answers other than 200, 400, 404, 413, 415, 503 (a 500 is a bug). */
  unexpected: string[];
  /** Distinct event ids published for acknowledged requests. */
  publishedEvents: number;
  /** Of those, stored (distinct ids in `events`). */
  storedEvents: number;
  missing: number;
  /** Event ids with more than one row after deduplication (FINAL). */
  duplicated: number;
  /** Extra physical rows before merges (same event id inserted twice). */
  physicalDuplicateRows: number;
  /** Stored event ids no acknowledged request published. */
  strays: number;
  /** Batches published under the request id of a rejected request. */
  publishedForRejected: number;
  /** Responses whose count differs from what was published for them (hooks, /v1/ingest). */
  countMismatches: number;
  deadLetters: Array<{ eventId: string; events: number; reason: string; error: string }>;
  seconds: number;
}

const EXPECTED = new Set([200, 400, 404, 413, 415, 503]);

export async function runPipelineFuzz(opts: PipelineFuzzOptions): Promise<PipelineFuzzReport> {
  const started = Date.now();
  const log = opts.log ?? (() => {});
  const published = new Map<string, string[]>();
  const watcher = await connect({ servers: opts.natsUrl.split(',') });
  const sub = watcher.subscribe('ingest.>', {
    callback: (_err, m) => {
      // whole: an event of a v3 message leaves its id to the message
      const b = m.json<IngestBatch>();
      const list = published.get(b.request_id) ?? [];
      for (const e of wholeEvents(b)) list.push(e.event_id);
      published.set(b.request_id, list);
    },
  });
  const routes = Object.fromEntries(FUZZ_ROUTES.map((r) => [r, { requests: 0, statuses: {}, events: 0 }])) as Record<FuzzRoute, RouteCounts>;
  const answers = new Map<string, { route: FuzzRoute; status: number; count?: number }>();
  const unexpected: string[] = [];
  const rnd = prng(opts.seed);
  const total = opts.perRoute * FUZZ_ROUTES.length;
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const n = next++;
      const route = FUZZ_ROUTES[n % FUZZ_ROUTES.length]!;
      const req = makeRequest(route, rnd, `Bearer ${opts.adminKey}`);
      const requestId = `fz-${opts.seed}-${n}`;
      const res = await fetch(`${opts.ingestUrl}${req.path}`, { method: 'POST', headers: { ...req.headers, 'x-request-id': requestId }, body: new Uint8Array(req.body) });
      const text = Buffer.from(await res.arrayBuffer()).toString('utf8');
      routes[route].requests++;
      routes[route].statuses[res.status] = (routes[route].statuses[res.status] ?? 0) + 1;
      let count: number | undefined;
      if (res.status === 200 && (route === 'ingest' || route === 'hooks')) count = (JSON.parse(text) as { count: number }).count;
      answers.set(requestId, { route, status: res.status, count });
      if (!EXPECTED.has(res.status) && unexpected.length < 20) unexpected.push(`${res.status} on ${req.path}: ${text.slice(0, 200)}`);
      if (n % 2000 === 0) log(`${n}/${total} requests`);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 8 }, worker));
  await opts.bus.nc.flush();
  await watcher.flush();
  await watcher.drain();
  log(`${total} requests sent in ${Math.round((Date.now() - started) / 1000)} s; waiting for the stream role`);
  await drained(opts.bus);

  const acked = new Set<string>();
  let publishedForRejected = 0;
  let countMismatches = 0;
  let acknowledged = 0;
  let rejected = 0;
  let unavailable = 0;
  for (const [requestId, a] of answers) {
    const ids = published.get(requestId) ?? [];
    if (a.status === 200) {
      acknowledged++;
      routes[a.route].events += ids.length;
      for (const id of ids) acked.add(id);
      if (a.count !== undefined && a.count !== ids.length) countMismatches++;
    } else if (a.status === 503) unavailable++;
    else {
      rejected++;
      if (ids.length) publishedForRejected++;
    }
  }
  const stored = await storedCounts(opts.store, [...acked]);
  const [all] = await opts.store.query<{ ids: string }>('SELECT uniqExact(event_id) AS ids FROM {{db}}.events');
  const dead = await listDeadLetters(opts.bus.jsm, { limit: 100_000 });
  return {
    seed: opts.seed,
    routes,
    requests: total,
    acknowledged,
    rejected,
    unavailable,
    unexpected,
    publishedEvents: acked.size,
    storedEvents: stored.found,
    missing: acked.size - stored.found,
    duplicated: stored.finalExtra,
    physicalDuplicateRows: stored.physicalExtra,
    strays: Number(all!.ids) - stored.found,
    publishedForRejected,
    countMismatches,
    deadLetters: dead.map((d) => ({ eventId: d.eventId, events: eventsIn(d.data), reason: d.reason, error: d.error })),
    seconds: Math.round((Date.now() - started) / 1000),
  };
}

/** Waits until the store consumer has nothing pending or unacknowledged, then for the sink's last flush. */
async function drained(bus: Bus): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    const c = await bus.jsm.consumers.info(CONSUMERS.store.stream, CONSUMERS.store.durable);
    if (c.num_pending + c.num_ack_pending === 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  await new Promise((r) => setTimeout(r, 500));
}

async function storedCounts(store: Store, ids: string[]): Promise<{ found: number; finalExtra: number; physicalExtra: number }> {
  let found = 0;
  let finalExtra = 0;
  let physicalExtra = 0;
  for (let i = 0; i < ids.length; i += 5000) {
    const chunk = ids.slice(i, i + 5000);
    const [raw] = await store.query<{ rows: string; ids: string }>('SELECT count() AS rows, uniqExact(event_id) AS ids FROM {{db}}.events WHERE event_id IN {ids:Array(String)}', { ids: chunk });
    const [fin] = await store.query<{ rows: string }>('SELECT count() AS rows FROM {{db}}.events FINAL WHERE event_id IN {ids:Array(String)}', { ids: chunk });
    found += Number(raw!.ids);
    physicalExtra += Number(raw!.rows) - Number(raw!.ids);
    finalExtra += Number(fin!.rows) - Number(raw!.ids);
  }
  return { found, finalExtra, physicalExtra };
}

function eventsIn(data: Uint8Array): number {
  try {
    return (JSON.parse(Buffer.from(data).toString('utf8')) as { events?: unknown[] }).events?.length ?? 0;
  } catch {
    return -1;
  }
}

/** One paragraph of the figures, for logs and the report. */
export function describeFuzz(r: PipelineFuzzReport): string {
  const perRoute = Object.entries(r.routes)
    .map(([route, c]) => `${route} ${c.requests} (${Object.entries(c.statuses).map(([s, n]) => `${s}: ${n}`).join(', ')}; ${c.events} events)`)
    .join('; ');
  return (
    `seed ${r.seed}: ${r.requests} requests in ${r.seconds} s — ${perRoute}. ` +
    `${r.acknowledged} acknowledged, ${r.rejected} rejected, ${r.unavailable} unavailable; ${r.publishedEvents} events published for acknowledged requests, ` +
    `${r.storedEvents} stored, ${r.missing} missing, ${r.duplicated} duplicated, ${r.physicalDuplicateRows} physical duplicate rows, ${r.strays} strays, ` +
    `${r.publishedForRejected} rejected requests with published events, ${r.countMismatches} count mismatches, ` +
    `${r.deadLetters.length} dead letters (${r.deadLetters.filter((d) => d.events === 1 && d.eventId).length} holding one event alone), ${r.unexpected.length} unexpected answers`
  );
}
