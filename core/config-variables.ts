/**
 * Every variable the configuration reads, its default and its meaning (`tracehouse config --help`,
 * the README's table), and the defaults that are measured choices. core/config.ts reads them.
 */
import { availableParallelism } from 'node:os';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Cores the managed nats-server schedules its goroutines on, unless NATS_SERVER_PROCS says: half
 * the machine's, at least one. On a machine the bus shares with the roles, a Go runtime allowed
 * every core hands each message between threads (a wake-up per hand-off); on two cores one
 * scheduler thread spent about a sixth less CPU per event at the same traffic (docs/operations.md).
 */
export function defaultNatsProcs(): number {
  return Math.max(1, Math.floor(availableParallelism() / 2));
}

/**
 * Decode threads of the stream role unless STREAM_WORKER_THREADS says: two where the machine has
 * two cores or more, else one. The pool starts the second thread when tasks wait in its queue (the
 * first takes 16 at once: a backlog, a burst) and stops a thread a minute idle. On two cores the
 * bench's drain (243,372 events) ran 2–10% faster with two in eight alternating pairs, every pair
 * in favour (docs/stream.md "Two decode threads by default").
 */
export function defaultDecodeThreads(): number {
  return Math.min(2, availableParallelism());
}

/** The Go collector's settings of the managed nats-server, as its environment spells them. */
export interface NatsServerGc {
  /** GOGC: heap growth (percent of the live heap) before a collection, or `off`. */
  gogc: string;
  /** GOMEMLIMIT: the soft limit of the runtime's memory (`512MiB`), or `off`. */
  memLimit: string;
}

/**
 * A collection when the heap has grown by 4× its live size, up to a soft limit of 512 MiB: the
 * server's live heap is small (tens of MB here, a backlog included), and with Go's default
 * (GOGC=100) its collector took about a fifth of the server's CPU per event (docs/operations.md
 * "The managed server's collector").
 */
export const DEFAULT_NATS_GC: NatsServerGc = { gogc: '400', memLimit: '512MiB' };

/**
 * Options of the embedded engine's memory allocator (chDB's jemalloc, which reads JE_MALLOC_CONF
 * once, when the library loads). The engine's built-in options hand memory that has been free for
 * 5 s back to the system, a little at a time, so inserts and merges keep touching new pages, and
 * sample allocations for a heap profile nothing here reads (each sample unwinds the stack); on a
 * virtual machine every page fault is microseconds of kernel time. Freed memory kept for 30 s and
 * no sampling: the engine's best bulk insert of the bench's real rows took a fifth to a third less
 * CPU (docs/operations.md "The embedded engine's allocator").
 */
export const DEFAULT_ENGINE_MALLOC_CONF = 'dirty_decay_ms:30000,muzzy_decay_ms:30000,prof_active:false';

/**
 * How far the JavaScript heap of each thread may grow past what its last full collection kept
 * before the next full collection starts, in percent (V8's `--heap-growing-percent`). V8's own
 * choice follows each heap's recent collector speed: the stream's main thread, about 40 MB live
 * with a young generation of 32 MB, got limits of 1.3–1.4× its live size, so a full collection
 * started as soon as the previous one ended (23–28 in 20 s of 6,000 events/s, each marking the
 * whole heap on V8's helper threads). With 150 (a limit of 2.5× the live size): 7–8, and the whole
 * process used 3–7% less CPU per event (docs/operations.md "The JavaScript heap's growth").
 */
export const DEFAULT_NODE_HEAP_GROWTH_PERCENT = 150;

/** Every variable the code reads, with its meaning; used by `tracehouse config --help` and docs. */
export const CONFIG_VARIABLES: ReadonlyArray<{ name: string; default: string; description: string; secret?: boolean }> = [
  { name: 'DATA_DIR', default: './.tracehouse', description: 'Embedded ClickHouse data and the managed NATS store' },
  { name: 'CLICKHOUSE_URL', default: '(embedded chDB)', description: 'ClickHouse server HTTP URL, e.g. http://clickhouse:8123' },
  { name: 'CLICKHOUSE_USER', default: 'default', description: 'ClickHouse user (server only)' },
  { name: 'CLICKHOUSE_PASSWORD', default: '', description: 'ClickHouse password (server only)', secret: true },
  { name: 'CLICKHOUSE_DATABASE', default: 'tracehouse', description: 'Database holding every table' },
  { name: 'CLICKHOUSE_CLUSTER', default: '', description: 'Cluster name: migrations use ON CLUSTER and Replicated engines' },
  { name: 'JE_MALLOC_CONF', default: DEFAULT_ENGINE_MALLOC_CONF, description: "The embedded engine's allocator options (its jemalloc's, read when the engine loads; off: the engine's built-in ones)" },
  { name: 'NATS_URL', default: '(managed nats-server)', description: 'NATS server URL(s), comma-separated' },
  { name: 'NATS_SERVER_BIN', default: 'nats-server', description: 'nats-server binary for the managed child process' },
  { name: 'NATS_SERVER_PROCS', default: '(half the cores, at least 1)', description: "Cores the managed nats-server's Go runtime schedules on (its GOMAXPROCS)" },
  { name: 'NATS_SERVER_GOGC', default: DEFAULT_NATS_GC.gogc, description: "The managed nats-server's GOGC: heap growth in percent before its Go collector runs (off: only the memory limit)" },
  { name: 'NATS_SERVER_GOMEMLIMIT', default: DEFAULT_NATS_GC.memLimit, description: "The managed nats-server's GOMEMLIMIT: soft limit of its Go runtime's memory, e.g. 512MiB or 2GiB (off: none)" },
  { name: 'NODE_HEAP_GROWTH_PERCENT', default: String(DEFAULT_NODE_HEAP_GROWTH_PERCENT), description: "Growth of each thread's JavaScript heap past what its last full collection kept before the next one starts, in percent (0: V8's own choice)" },
  { name: 'NATS_REPLICAS', default: '1', description: 'Replicas of each JetStream stream (3 on a cluster)' },
  { name: 'HOST', default: '127.0.0.1', description: 'Address the HTTP roles bind to (0.0.0.0 in containers)' },
  { name: 'INGEST_PORT', default: '4318', description: 'Ingest HTTP port (the OTLP/HTTP default)' },
  { name: 'QUERY_PORT', default: '8080', description: 'Query HTTP port' },
  { name: 'STREAM_PORT', default: '9464', description: 'Health and metrics port of the stream role run alone' },
  { name: 'TRACEHOUSE_SECRET', default: '(generated once, kept in NATS KV)', description: 'HMAC secret that signs minted API keys', secret: true },
  { name: 'TRACEHOUSE_BOOTSTRAP_KEY', default: '', description: 'When set and no key exists: admin key of tenant `default`', secret: true },
  { name: 'LOG_LEVEL', default: 'info', description: LOG_LEVELS.join(', ') },
  { name: 'PROBLEMS_CLEAN_PERIOD_DAYS', default: '7', description: 'Days without recurrence after a fix before a problem is resolved' },
  { name: 'PROBLEMS_LLM_URL', default: '', description: 'OpenAI-compatible API base URL that may refine problem summaries (empty: templates only)' },
  { name: 'PROBLEMS_LLM_API_KEY', default: '', description: 'Bearer token of the problems LLM endpoint', secret: true },
  { name: 'PROBLEMS_LLM_MODEL', default: 'gpt-4o-mini', description: 'Model name sent to the problems LLM endpoint' },
  { name: 'PROBLEMS_LLM_TIMEOUT_MS', default: '20000', description: 'Timeout of one problems LLM request; on timeout the template text stays' },
  { name: 'INGEST_PUBLISH_TIMEOUT_MS', default: '5000', description: 'JetStream publish acknowledgement timeout; 503 past it' },
  { name: 'INGEST_MAX_BACKLOG_MESSAGES', default: '100000', description: 'INGEST messages waiting for the store consumer above which ingest answers 503' },
  { name: 'INGEST_MAX_BACKLOG_BYTES', default: '1073741824', description: 'Bytes of the INGEST messages waiting for the store consumer above which ingest answers 503' },
  { name: 'INGEST_RETRY_AFTER_SECONDS', default: '2', description: 'Retry-After advertised with 503' },
  { name: 'INGEST_PUBLISH_BATCH_EVENTS', default: '500', description: 'Events per JetStream message' },
  { name: 'INGEST_WORKERS', default: '1', description: '`tracehouse ingest` only: processes sharing the ingest port (one per core the edge may use)' },
  { name: 'SINK_MAX_BATCH_ROWS', default: '50000', description: 'Insert a table batch at this many rows' },
  { name: 'SINK_MAX_BATCH_BYTES', default: '67108864', description: 'Insert a table batch at this many bytes' },
  { name: 'SINK_FLUSH_INTERVAL_MS', default: '250', description: 'Insert a table batch at this age' },
  { name: 'SINK_QUIET_MS', default: '50', description: 'Insert a table batch once no message arrived for this long (or 4 usual gaps, if longer), whatever its age (0: off)' },
  { name: 'STREAM_MAX_DELIVER', default: '5', description: 'Deliveries before a message is dead-lettered; failed batches for an analysis job (its crash loop: 4 times as many deliveries)' },
  { name: 'STREAM_WORKER_THREADS', default: '(2, or 1 on one core)', description: 'Piscina worker threads decoding INGEST messages in the stream role (analysis batches run on threads of their own, ANALYSIS_THREADS)' },
  { name: 'ANALYSIS_THREADS', default: '1', description: 'Threads (nice 19) analyzing each batch at once in the stream role: a batch\'s tenants are split between them; a batch of one tenant runs on one' },
  { name: 'STREAM_DECODE_GATHER_MS', default: '5', description: 'Longest wait for more INGEST messages before a decode task leaves with fewer than 32 (0: at the end of the event-loop turn)' },
  { name: 'STREAM_ACK_WAIT_MS', default: '3000', description: 'Ack wait of the store consumer (held messages send progress heartbeats); bounds redelivery after a crash' },
  { name: 'ANALYZE_DEBOUNCE_MS', default: '500', description: 'Quiet period before a conversation is re-analyzed' },
  { name: 'ANALYZE_DEFER_LAG_MS', default: '2000', description: 'While the oldest message the store consumer holds is older than this, due analyses are held (0: never)' },
  { name: 'ANALYZE_BATCH_INTERVAL_MS', default: '5000', description: 'Shortest time between the starts of two analysis batches: due conversations gather into larger batches (0: run as soon as due)' },
  { name: 'ANALYZE_MAX_BATCH', default: '2000', description: 'Conversations analyzed together at most; a batch this full starts without waiting for the interval' },
  { name: 'ANALYZE_PREFETCH', default: '0', description: '1: read the next analysis batch\'s conversations while one is analyzed (off: on the embedded engine those reads wait with the inserts and data API reads for its one statement at a time)' },
  { name: 'TOOL_ROLLUP_INTERVAL_MS', default: '1000', description: 'Shortest time between two recomputes of the marked tool-failure rollup groups (each also waits 4× the last one\'s duration)' },
  { name: 'ANALYZE_MAX_DEFER_MS', default: '30000', description: 'Longest time a due analysis is held while the store consumer lags (bounded staleness)' },
  { name: 'ANALYZE_SPACING_PER_MESSAGE_MS', default: '10', description: 'Wait between two analyses of one conversation per message of it, at most ANALYZE_MAX_DEFER_MS: a long conversation that keeps growing is re-analyzed less often (0: as often as its jobs come due)' },
  { name: 'JOB_INTERVAL_MS', default: '60000', description: 'Period of tenant-wide jobs' },
  { name: 'FIX_MAGIC_PREFIX', default: 'SVC-FIX-', description: 'Prefix of the fix magic word in pull requests (SVC-FIX-<SHORTREF>)' },
  { name: 'FIX_PUBLIC_URL', default: '', description: 'Base URL of the query service written into fix packets (evidence links)' },
  { name: 'FIX_GATE_SEEDS', default: '3', description: 'Replays per case and arm in fix gate and control runs' },
  { name: 'FIX_GITHUB_TOKEN', default: '', description: 'Token of the code-hosting integration that opens fix pull requests', secret: true },
  { name: 'FIX_GITHUB_REPO', default: '', description: 'owner/name of the harness repository fix pull requests go to' },
  { name: 'FIX_GITHUB_API_URL', default: 'https://api.github.com', description: 'GitHub REST base URL (GitHub Enterprise: https://host/api/v3)' },
  { name: 'FIX_GITHUB_BASE_BRANCH', default: 'main', description: 'Base branch of fix pull requests' },
  { name: 'FIX_WEBHOOK_SECRET', default: '', description: 'HMAC secret of the merge-notification webhook (POST /api/webhooks/code-host)', secret: true },
  { name: 'FIX_LLM_URL', default: '', description: 'OpenAI-compatible API base URL of the LLM proposer (empty: deterministic proposer)' },
  { name: 'FIX_LLM_API_KEY', default: '', description: 'Bearer token of the LLM proposer endpoint', secret: true },
  { name: 'FIX_LLM_MODEL', default: 'gpt-4o-mini', description: 'Model name sent to the LLM proposer' },
];
