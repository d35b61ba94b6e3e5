/**
 * Names on the bus: streams, subjects, durable consumers and KV buckets. Subjects:
 *   ingest.<tenant>.<source>   normalized event batches from the ingest role (source = logs|traces|hooks|ingest|import)
 *   dlq.<stream>.<consumer>    dead letters with the failure reason in headers
 *   analyze.<tenant>.conversation   "conversation changed" jobs (debounced)
 */
export const STREAMS = {
  INGEST: { name: 'INGEST', subjects: 'ingest.>', workQueue: true, duplicateWindowMs: 10 * 60_000, maxAgeMs: 7 * 86_400_000 },
  DLQ: { name: 'DLQ', subjects: 'dlq.>', workQueue: false, duplicateWindowMs: 2 * 60_000, maxAgeMs: 30 * 86_400_000 },
  ANALYZE: { name: 'ANALYZE', subjects: 'analyze.>', workQueue: true, duplicateWindowMs: 2 * 60_000, maxAgeMs: 7 * 86_400_000 },
  /** Replay cases waiting for a replay worker (fixes/replay-protocol.ts). */
  REPLAY_WORK: { name: 'REPLAY_WORK', subjects: 'replay.work.>', workQueue: true, duplicateWindowMs: 2 * 60_000, maxAgeMs: 7 * 86_400_000 },
  /** Results replay workers publish, read back by run (no consumer state: runs fold them on read). */
  REPLAY_RESULTS: { name: 'REPLAY_RESULTS', subjects: 'replay.results.>', workQueue: false, duplicateWindowMs: 10 * 60_000, maxAgeMs: 90 * 86_400_000 },
} as const;

export const CONSUMERS = {
  store: { stream: STREAMS.INGEST.name, durable: 'store', filter: 'ingest.>' },
  analyze: { stream: STREAMS.ANALYZE.name, durable: 'analyze', filter: 'analyze.>' },
} as const;

export const KV_BUCKETS = {
  keys: { name: 'th_keys', history: 1 },
  leases: { name: 'th_leases', history: 1 },
  /** Progress of leased jobs (analysis backfill per tenant). */
  jobs: { name: 'th_jobs', history: 1 },
  /** Fix objects, prompt registry, harness graphs, skills, replay sets and runs (fixes/). */
  fixes: { name: 'th_fixes', history: 1 },
} as const;

/** Tenant ids are subject tokens and ClickHouse values: kept to a safe alphabet. */
export const TENANT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const ingestSubject = (tenant: string, source: string) => `ingest.${tenant}.${source}`;
export const analyzeSubject = (tenant: string) => `analyze.${tenant}.conversation`;
/** Whether a subject is one of the ANALYZE stream's (a job's subject, for one dead-lettered from it). */
export const isAnalyzeSubject = (subject: string) => subject.startsWith(STREAMS.ANALYZE.subjects.slice(0, -1));
export const dlqSubject = (stream: string, consumer: string) => `dlq.${stream.toLowerCase()}.${consumer}`;
