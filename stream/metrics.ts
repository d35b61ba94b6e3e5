/** Metrics of the stream role, registered once on the runtime's registry (`/metrics`). */
import type { Counter, Gauge, Histogram, Metrics } from '../core/metrics.js';

export interface StreamMetrics {
  consumed: Counter;
  redelivered: Counter;
  deadLetters: Counter;
  refusedEvents: Counter;
  insertedRows: Counter;
  insertRetries: Counter;
  insertLatency: Histogram;
  batchRows: Histogram;
  batchMessages: Histogram;
  freshness: Histogram;
  consumerPending: Gauge;
  consumerAckPending: Gauge;
  streamMessages: Gauge;
  poolUtilization: Gauge;
  poolQueue: Gauge;
  decodeThreads: Gauge;
  decodedMessages: Counter;
  decodeBusySeconds: Counter;
  analysisUtilization: Gauge;
  inFlight: Gauge;
  analyzeJobs: Counter;
  analyzerRuns: Counter;
  analyzeBatch: Histogram;
  analyzePhase: Histogram;
  analyzeHeld: Gauge;
  analyzeDeferred: Counter;
  analyzeMaxDeferral: Gauge;
  toolRollupPasses: Counter;
  toolRollupGroups: Counter;
  toolRollupPassSeconds: Gauge;
  leaseRuns: Counter;
  leaseRunSeconds: Histogram;
}

const SIZE_BUCKETS = [1, 5, 10, 50, 100, 500, 1000, 5000, 10_000, 50_000];
const FRESHNESS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** A tenant job's pass: milliseconds when it has nothing to do, minutes for a large tenant's first problems run. */
const JOB_BUCKETS = [0.01, 0.05, 0.25, 1, 5, 15, 60, 300, 900];

const cache = new WeakMap<Metrics, StreamMetrics>();

export function streamMetrics(m: Metrics): StreamMetrics {
  let s = cache.get(m);
  if (s) return s;
  s = {
    consumed: m.counter('stream_messages_consumed_total', 'INGEST/ANALYZE messages received by the stream role, by consumer'),
    redelivered: m.counter('stream_redeliveries_total', 'Messages received again after an earlier delivery, by consumer'),
    deadLetters: m.counter('stream_dead_letters_total', 'Dead letters (messages, or single events the store refused), by consumer and reason'),
    refusedEvents: m.counter('stream_refused_events_total', 'Events the store refused after the batch holding them was bisected down to them, by table'),
    insertedRows: m.counter('stream_inserted_rows_total', 'Rows inserted into ClickHouse, by table'),
    insertRetries: m.counter('stream_insert_retries_total', 'Transient ClickHouse insert errors retried, by table'),
    insertLatency: m.histogram('stream_insert_duration_seconds', 'Latency of one batch insert, by table'),
    batchRows: m.histogram('stream_batch_rows', 'Rows per table insert', SIZE_BUCKETS),
    batchMessages: m.histogram('stream_batch_messages', 'Messages per sink batch', SIZE_BUCKETS),
    freshness: m.histogram('stream_freshness_seconds', 'Receive time at ingest to insert into ClickHouse', FRESHNESS_BUCKETS),
    consumerPending: m.gauge('stream_consumer_pending_messages', 'Messages not yet delivered to the durable consumer (lag), by consumer'),
    consumerAckPending: m.gauge('stream_consumer_ack_pending_messages', 'Delivered and not yet acknowledged, by consumer'),
    streamMessages: m.gauge('stream_backlog_messages', 'Messages stored in the stream, by stream'),
    poolUtilization: m.gauge('stream_pool_utilization', 'Piscina pool utilization (0..1)'),
    poolQueue: m.gauge('stream_pool_queue_size', 'Tasks waiting in the Piscina queue'),
    decodeThreads: m.gauge('stream_decode_threads', 'Decode threads running (STREAM_WORKER_THREADS)'),
    decodedMessages: m.counter('stream_decoded_messages_total', 'INGEST messages decoded, by decode thread (its thread id)'),
    decodeBusySeconds: m.counter('stream_decode_busy_seconds_total', 'Time the decode threads spent decoding, by decode thread (its thread id)'),
    analysisUtilization: m.gauge('stream_analysis_thread_utilization', 'Share of time the analysis thread (nice 19) ran analysis batches (0..1)'),
    inFlight: m.gauge('stream_in_flight_messages', 'Messages fetched and not yet acked, nakked or dead-lettered'),
    analyzeJobs: m.counter('stream_analyze_jobs_total', 'Conversation-changed jobs, by outcome'),
    analyzerRuns: m.counter('stream_analyzer_runs_total', 'Analyzer runs, by analyzer and outcome'),
    analyzeBatch: m.histogram('stream_analyze_batch_conversations', 'Conversations analyzed per batch (one query per tenant)', SIZE_BUCKETS),
    analyzePhase: m.histogram('stream_analyze_phase_seconds', 'Wall time of each phase of an analysis batch: load (reads), work (analyzers), write (inserts)'),
    analyzeHeld: m.gauge('stream_analyze_held_jobs', 'Analysis jobs due and not yet run: held while the store consumer lags (ANALYZE_DEFER_LAG_MS)'),
    analyzeDeferred: m.counter('stream_analyze_deferred_jobs_total', 'Analysis jobs held past their due time because the store consumer lagged'),
    analyzeMaxDeferral: m.gauge('stream_analyze_max_deferral_seconds', 'Longest time an analysis job ran past its due time after a deferral, since start (bounded by ANALYZE_MAX_DEFER_MS)'),
    toolRollupPasses: m.counter('stream_tool_rollup_passes_total', 'Passes recomputing the marked groups of the tool-failure rollup, by outcome'),
    toolRollupGroups: m.counter('stream_tool_rollup_groups_total', '(tenant, tool, day) groups of the tool-failure rollup recomputed'),
    toolRollupPassSeconds: m.gauge('stream_tool_rollup_pass_seconds', 'Duration of the last tool-failure rollup pass (the next waits at least 4 times as long)'),
    leaseRuns: m.counter('stream_tenant_job_runs_total', 'Scheduled tenant-wide job runs under the lease, by job and outcome'),
    leaseRunSeconds: m.histogram('stream_tenant_job_run_seconds', 'Wall time of each tenant-wide job run under the lease (a pass with nothing to do included), by job', JOB_BUCKETS),
  };
  cache.set(m, s);
  return s;
}
