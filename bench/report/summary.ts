import type { EdgeRow } from '../phases/edge.js';
import type { E2eResult, FreshnessResult } from '../phases/e2e.js';
import type { DatasetResult, EndpointRow } from '../phases/query.js';
import type { MemoryResult } from '../phases/memory.js';
import type { InsertCeiling } from '../ceilings/clickhouse.js';
import type { BusCeiling } from '../ceilings/jetstream.js';
import type { StoreCeilings } from '../ceilings/real-rows.js';
import type { DrainResult } from '../phases/drain.js';
import type { EdgeAloneRow } from '../phases/edge-alone.js';
import type { Backlogs, IdleWait } from '../lib/idle.js';

/** The headline numbers every run carries; null where the figure was not measured. */
export interface Summary {
  e2e_events_per_s: number | null;
  e2e_vs_insert_ceiling: number | null;
  /** End to end against (a) the engine's best bulk insert of the same real rows, and (b) the engine without parsing. */
  e2e_vs_best_insert: number | null;
  e2e_vs_no_parse: number | null;
  /** CPU seconds of the system under test per million events at the highest sustained step (load generator excluded). */
  cpu_s_per_million_events: number | null;
  /**
   * The same rate's whole cost: a step from idle to idle, its analyses and merges included
   * (E2eResult.cost); above `cpu_s_per_million_events`, which stops when the INGEST backlog empties.
   */
  cpu_s_per_million_until_idle: number | null;
  /** On-disk bytes per event of the real rows (events, spans, messages, tool_calls). */
  bytes_stored_per_event: number | null;
  stream_drain_events_per_s: number | null;
  freshness_p50_ms: number | null;
  freshness_p99_ms: number | null;
  ingest_events_per_s: number | null;
  /** The ingest role alone against the bare parse server alone, same load: the lowest ratio of the OTLP formats. */
  edge_alone_vs_parse_min: number | null;
  query_p99_ms_max: number | null;
  query_vs_bare_max: number | null;
  rss_all_in_one_mb: number | null;
  dataset_events: number | null;
}

export const SUMMARY_FIELDS: ReadonlyArray<keyof Summary> = [
  'e2e_events_per_s', 'e2e_vs_insert_ceiling', 'e2e_vs_best_insert', 'e2e_vs_no_parse', 'cpu_s_per_million_events', 'cpu_s_per_million_until_idle', 'bytes_stored_per_event', 'stream_drain_events_per_s', 'freshness_p50_ms', 'freshness_p99_ms', 'ingest_events_per_s',
  'edge_alone_vs_parse_min', 'query_p99_ms_max', 'query_vs_bare_max', 'rss_all_in_one_mb', 'dataset_events',
];

export interface Machine {
  cpus: number;
  model: string;
  memory_gb: number;
  node: string;
  commit: string;
  load_avg_start: number[];
  load_avg_end?: number[];
}

export interface BenchResult {
  version: 1;
  label: string;
  started_at: string;
  duration_s: number;
  options: Record<string, unknown>;
  machine: Machine;
  summary: Summary;
  ceilings: { clickhouse_insert?: InsertCeiling; store?: StoreCeilings; jetstream?: BusCeiling; http_parse_events_per_s?: number };
  /** The stream role alone draining a backlog of real messages. */
  drain?: DrainResult;
  edge: EdgeRow[];
  /** The ingest role alone and the bare parse server alone, per OTLP format. */
  edge_alone?: EdgeAloneRow[];
  e2e?: E2eResult;
  freshness?: FreshnessResult;
  dataset?: DatasetResult;
  query: EndpointRow[];
  /** The wait for an idle system before the query phase, and the backlogs when it ended. */
  query_idle?: IdleWait & { end?: Backlogs };
  memory?: MemoryResult;
  goals: GoalCheck[];
  notes: string[];
  /** Wall-clock seconds per phase (absent in results of older runs). */
  phase_seconds?: Record<string, number>;
}

const num = (v: number | undefined | null): number | null => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v * 1000) / 1000 : null);

export function buildSummary(r: Omit<BenchResult, 'summary' | 'goals'>): Summary {
  const edge = r.edge.filter((e) => e.ingest).map((e) => e.ingest!.events_per_s);
  const live = r.query.filter((q) => q.api);
  const alone = (r.edge_alone ?? []).map((e) => e.edge_vs_parse).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const e2e = r.e2e?.missing ? undefined : r.e2e?.max_sustained_events_per_s;
  const insert = r.ceilings.clickhouse_insert?.events_per_s;
  const best = r.ceilings.store?.best_insert_events_per_s;
  const noParse = r.ceilings.store?.no_parse_events_per_s;
  const sustained = r.e2e?.steps?.filter((s) => s.bounded && Number.isFinite(s.cpu_s_per_million)) ?? [];
  const top = sustained.length ? sustained.reduce((a, b) => (b.accepted_events_per_s > a.accepted_events_per_s ? b : a)) : undefined;
  return {
    e2e_events_per_s: num(e2e),
    e2e_vs_insert_ceiling: num(e2e !== undefined && insert ? e2e / insert : undefined),
    e2e_vs_best_insert: num(e2e !== undefined && best ? e2e / best : undefined),
    e2e_vs_no_parse: num(e2e !== undefined && noParse ? e2e / noParse : undefined),
    cpu_s_per_million_events: num(top?.cpu_s_per_million),
    // a partial figure (the wait for idle gave up) would understate the cost: not reported
    cpu_s_per_million_until_idle: num(r.e2e?.cost?.idle ? r.e2e.cost.cpu_s_per_million : undefined),
    bytes_stored_per_event: num(r.ceilings.store?.bytes_per_event.total),
    stream_drain_events_per_s: num(r.drain?.events_per_s),
    freshness_p50_ms: num(r.freshness?.latency?.p50_ms),
    freshness_p99_ms: num(r.freshness?.latency?.p99_ms),
    ingest_events_per_s: num(edge.length ? edge.reduce((a, b) => a + b, 0) / edge.length : undefined),
    edge_alone_vs_parse_min: num(alone.length ? Math.min(...alone) : undefined),
    query_p99_ms_max: num(live.length ? Math.max(...live.map((q) => q.api!.p99_ms)) : undefined),
    query_vs_bare_max: num(live.some((q) => Number.isFinite(q.api_vs_bare_p99)) ? Math.max(...live.map((q) => q.api_vs_bare_p99 ?? NaN).filter(Number.isFinite)) : undefined),
    rss_all_in_one_mb: num(r.memory?.all_in_one_mb),
    dataset_events: num(r.dataset?.events),
  };
}

export interface GoalCheck {
  goal: string;
  target: number;
  measured: number | null;
  /** measured / target (for "at most" goals target / measured): ≥ 1 means met. */
  score: number | null;
  met: boolean | null;
}

/** The goals, checked against a summary: what was missed and by how much. */
export function checkGoals(s: Summary): GoalCheck[] {
  const atLeast = (goal: string, target: number, v: number | null): GoalCheck => ({ goal, target, measured: v, score: v === null ? null : Math.round((v / target) * 1000) / 1000, met: v === null ? null : v >= target });
  const atMost = (goal: string, target: number, v: number | null): GoalCheck => ({ goal, target, measured: v, score: v === null ? null : Math.round((target / Math.max(v, 1e-9)) * 1000) / 1000, met: v === null ? null : v <= target });
  return [
    atLeast('end to end ≥ 100,000 events/s', 100_000, s.e2e_events_per_s),
    atLeast('end to end ≥ 50% of the insert ceiling', 0.5, s.e2e_vs_insert_ceiling),
    // the write path's targets, set for a 2-core machine with the load generator on the same cores
    atLeast('end to end ≥ 25,000 events/s on 2 cores', 25_000, s.e2e_events_per_s),
    atMost('end to end ≤ 50 CPU-s per million events, analyses and merges included', 50, s.cpu_s_per_million_until_idle),
    atLeast('stream role alone drains ≥ 50,000 events/s', 50_000, s.stream_drain_events_per_s),
    atMost('freshness p99 ≤ 2,000 ms at half the max rate', 2000, s.freshness_p99_ms),
    atLeast('ingest edge alone ≥ 0.5 of the parse server alone (every OTLP format)', 0.5, s.edge_alone_vs_parse_min),
    atMost('every data API p99 ≤ 100 ms', 100, s.query_p99_ms_max),
    atMost('every data API p99 ≤ 1.5× the bare query', 1.5, s.query_vs_bare_max),
    atMost('all-in-one peak RSS ≤ 1,536 MB', 1536, s.rss_all_in_one_mb),
  ];
}
