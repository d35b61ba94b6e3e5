import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { ConfigError } from './errors.js';

/** Effective configuration of one process. Read once from the environment, validated, frozen. */
export interface Config {
  /** Root of embedded state (chDB data, managed nats-server store). Default `./.tracehouse`. */
  readonly dataDir: string;
  readonly clickhouse: {
    /** Server URL; empty means embedded chDB under `<dataDir>/clickhouse`. */
    readonly url: string;
    readonly user: string;
    readonly password: string;
    readonly database: string;
    /** Cluster name for ON CLUSTER DDL and Replicated engines; empty for a single node. */
    readonly cluster: string;
    /** Options of the embedded engine's allocator (its JE_MALLOC_CONF); '' keeps the engine's built-in ones. */
    readonly engineMallocConf: string;
  };
  readonly nats: {
    /** Server URL(s), comma-separated; empty means a managed `nats-server -js` child. */
    readonly url: string;
    /** Path or name of the nats-server binary for the managed child. */
    readonly serverBin: string;
    /** GOMAXPROCS of the managed nats-server. */
    readonly serverProcs: number;
    /** The managed server's GOGC and GOMEMLIMIT (its Go collector; docs/operations.md). */
    readonly serverGc: NatsServerGc;
    /** Replicas of each stream (1 for a single server, 3 on a cluster). */
    readonly replicas: number;
  };
  readonly http: {
    readonly host: string;
    readonly ingestPort: number;
    readonly queryPort: number;
    /** Health and metrics port of the stream role when it runs without an HTTP role. */
    readonly streamPort: number;
  };
  /** HMAC secret for minted keys; empty means one generated once and kept in the keys KV bucket. */
  readonly secret: string;
  readonly bootstrapKey: string;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly ingest: {
    /** spec/ingestion.md: 5 MB on every route. */
    readonly maxBodyBytes: number;
    readonly publishTimeoutMs: number;
    /** Pending messages on the INGEST stream above which ingest answers 503. */
    readonly maxBacklogMessages: number;
    /** Pending bytes on the INGEST stream above which ingest answers 503. */
    readonly maxBacklogBytes: number;
    /** Seconds advertised in Retry-After on 503. */
    readonly retryAfterSeconds: number;
    /** Events per published JetStream message. */
    readonly publishBatchEvents: number;
    /** Processes serving the ingest port when the ingest role runs alone (`tracehouse ingest`). */
    readonly workers: number;
  };
  /** Problems engine (docs/analyses.md "Problems"). */
  readonly problems: {
    /** Days without recurrence after a fix before a problem is resolved. */
    readonly cleanPeriodDays: number;
    /** Optional OpenAI-compatible endpoint that may refine dossier summaries; empty url: templates only. */
    readonly llm: { readonly url: string; readonly apiKey: string; readonly model: string; readonly timeoutMs: number };
  };
  readonly stream: {
    readonly maxBatchRows: number;
    readonly maxBatchBytes: number;
    readonly flushIntervalMs: number;
    /** The buffer is cut once no message arrived for this long (0: never), whatever its age. */
    readonly quietMs: number;
    /** Deliveries before a message goes to the dead-letter stream. */
    readonly maxDeliver: number;
    readonly workerThreads: number;
    /** Threads analyzing a batch at once: its tenants are split between them (ANALYSIS_THREADS). */
    readonly analysisThreads: number;
    /** How long the decoder waits for more messages before a task leaves with fewer than a full group (0: end of the turn). */
    readonly decodeGatherMs: number;
    /** Ack wait of the `store` consumer; held messages are kept alive by heartbeats every third of it. */
    readonly ackWaitMs: number;
    /** Quiet period before a "conversation changed" job runs. */
    readonly analyzeDebounceMs: number;
    /** Lag of the `store` consumer above which due analyses are held (0: never held). */
    readonly analyzeDeferLagMs: number;
    /** Longest time a due analysis is held while the `store` consumer lags. */
    readonly analyzeMaxDeferMs: number;
    readonly analyzeBatchIntervalMs: number;
    /** Conversations of one analysis batch at most (ANALYZE_MAX_BATCH). */
    readonly analyzeMaxBatch: number;
    /** 1: a batch's conversations are read while the batch before it is analyzed (ANALYZE_PREFETCH). */
    readonly analyzePrefetch: number;
    readonly analyzeSpacingPerMessageMs: number;
    readonly toolRollupIntervalMs: number;
    /** Period of tenant-wide jobs. */
    readonly jobIntervalMs: number;
  };
  /** Fix pipeline (docs/fixes.md "Configuration"). */
  readonly fixes: {
    readonly magicPrefix: string;
    /** Base URL written into packets (evidence links); empty: links left out. */
    readonly publicUrl: string;
    readonly gateSeeds: number;
    readonly github: { readonly token: string; readonly repo: string; readonly apiUrl: string; readonly baseBranch: string };
    readonly webhookSecret: string;
    readonly llm: { readonly url: string; readonly apiKey: string; readonly model: string; readonly timeoutMs: number };
  };
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

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
 * Hands the engine's allocator options to the process environment, where the embedded engine's
 * library reads them when it loads (core/clickhouse.ts loads it after this, on the first embedded
 * store). A library already loaded keeps the options it read.
 */
export function exportEngineMallocConf(config: Pick<Config, 'clickhouse'>): void {
  process.env.JE_MALLOC_CONF = config.clickhouse.engineMallocConf;
}

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

const offAsEmpty = (v: string) => (v === 'off' ? '' : v);

/** Reads and validates the environment. Throws ConfigError naming the variable on the first invalid value. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const str = (name: string, def: string) => {
    const v = env[name];
    return v === undefined || v === '' ? def : v;
  };
  const int = (name: string, def: number, min: number, max: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return def;
    if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, raw, `an integer between ${min} and ${max}`);
    const n = Number(raw.trim());
    if (n < min || n > max) throw new ConfigError(name, raw, `an integer between ${min} and ${max}`);
    return n;
  };
  /** A text the variable's consumer parses itself (a Go runtime setting), checked against its form. */
  const pattern = (name: string, def: string, form: RegExp, expected: string) => {
    const v = str(name, def).trim();
    if (!form.test(v)) throw new ConfigError(name, v, expected);
    return v;
  };
  const url = (name: string, protocols: string[]) => {
    const raw = str(name, '');
    if (!raw) return '';
    for (const part of raw.split(',')) {
      let parsed: URL;
      try {
        parsed = new URL(part.trim());
      } catch {
        throw new ConfigError(name, raw, `a URL with scheme ${protocols.join(' or ')}`);
      }
      if (!protocols.includes(parsed.protocol)) throw new ConfigError(name, raw, `a URL with scheme ${protocols.join(' or ')}`);
    }
    return raw;
  };
  const logLevel = str('LOG_LEVEL', 'info');
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new ConfigError('LOG_LEVEL', logLevel, `one of ${LOG_LEVELS.join(', ')}`);
  const database = str('CLICKHOUSE_DATABASE', 'tracehouse');
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(database)) throw new ConfigError('CLICKHOUSE_DATABASE', database, 'an identifier of letters, digits and underscores');
  const cluster = str('CLICKHOUSE_CLUSTER', '');
  if (cluster && !/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(cluster)) throw new ConfigError('CLICKHOUSE_CLUSTER', cluster, 'an identifier of letters, digits and underscores');
  const host = str('HOST', '127.0.0.1');
  if (!/^[0-9A-Za-z.:\-\[\]]+$/.test(host)) throw new ConfigError('HOST', host, 'an IP address or host name');
  const secret = str('TRACEHOUSE_SECRET', '');
  if (secret && secret.length < 16) throw new ConfigError('TRACEHOUSE_SECRET', '(hidden)', 'at least 16 characters');
  const bootstrapKey = str('TRACEHOUSE_BOOTSTRAP_KEY', '');
  if (bootstrapKey && !/^[\x21-\x7e]{16,256}$/.test(bootstrapKey)) {
    throw new ConfigError('TRACEHOUSE_BOOTSTRAP_KEY', '(hidden)', '16 to 256 printable characters without spaces');
  }

  const config: Config = {
    dataDir: resolve(cwd, str('DATA_DIR', './.tracehouse')),
    clickhouse: {
      url: url('CLICKHOUSE_URL', ['http:', 'https:']),
      user: str('CLICKHOUSE_USER', 'default'),
      password: str('CLICKHOUSE_PASSWORD', ''),
      database,
      cluster,
      engineMallocConf: offAsEmpty(pattern('JE_MALLOC_CONF', DEFAULT_ENGINE_MALLOC_CONF, /^(off|[a-z_]+:[^,:\s]+(,[a-z_]+:[^,:\s]+)*)$/, 'off or jemalloc options such as dirty_decay_ms:30000,muzzy_decay_ms:30000')),
    },
    nats: {
      url: url('NATS_URL', ['nats:', 'tls:', 'ws:', 'wss:']),
      serverBin: str('NATS_SERVER_BIN', 'nats-server'),
      serverProcs: int('NATS_SERVER_PROCS', defaultNatsProcs(), 1, 1024),
      serverGc: {
        gogc: pattern('NATS_SERVER_GOGC', DEFAULT_NATS_GC.gogc, /^(off|[1-9]\d{0,5})$/, 'a percentage (1–999999) or off'),
        memLimit: pattern('NATS_SERVER_GOMEMLIMIT', DEFAULT_NATS_GC.memLimit, /^(off|[1-9]\d{0,15}(B|KiB|MiB|GiB|TiB)?)$/, 'a size such as 512MiB or 2GiB, or off'),
      },
      replicas: int('NATS_REPLICAS', 1, 1, 5),
    },
    http: {
      host,
      ingestPort: int('INGEST_PORT', 4318, 0, 65535),
      queryPort: int('QUERY_PORT', 8080, 0, 65535),
      streamPort: int('STREAM_PORT', 9464, 0, 65535),
    },
    secret,
    bootstrapKey,
    logLevel: logLevel as Config['logLevel'],
    problems: {
      cleanPeriodDays: int('PROBLEMS_CLEAN_PERIOD_DAYS', 7, 1, 365),
      llm: { url: url('PROBLEMS_LLM_URL', ['http:', 'https:']), apiKey: str('PROBLEMS_LLM_API_KEY', ''), model: str('PROBLEMS_LLM_MODEL', 'gpt-4o-mini'), timeoutMs: int('PROBLEMS_LLM_TIMEOUT_MS', 20_000, 100, 600_000) },
    },
    ingest: {
      maxBodyBytes: 5 * 1024 * 1024,
      publishTimeoutMs: int('INGEST_PUBLISH_TIMEOUT_MS', 5000, 100, 600_000),
      maxBacklogMessages: int('INGEST_MAX_BACKLOG_MESSAGES', 100_000, 1, 1e12),
      maxBacklogBytes: int('INGEST_MAX_BACKLOG_BYTES', 1024 * 1024 * 1024, 1, 1e15),
      retryAfterSeconds: int('INGEST_RETRY_AFTER_SECONDS', 2, 1, 3600),
      publishBatchEvents: int('INGEST_PUBLISH_BATCH_EVENTS', 500, 1, 100_000),
      workers: int('INGEST_WORKERS', 1, 1, 64),
    },
    stream: {
      maxBatchRows: int('SINK_MAX_BATCH_ROWS', 50_000, 1, 10_000_000),
      maxBatchBytes: int('SINK_MAX_BATCH_BYTES', 64 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      flushIntervalMs: int('SINK_FLUSH_INTERVAL_MS', 250, 1, 600_000),
      quietMs: int('SINK_QUIET_MS', 50, 0, 600_000),
      maxDeliver: int('STREAM_MAX_DELIVER', 5, 1, 1000),
      workerThreads: int('STREAM_WORKER_THREADS', defaultDecodeThreads(), 1, 64),
      analysisThreads: int('ANALYSIS_THREADS', 1, 1, 64),
      decodeGatherMs: int('STREAM_DECODE_GATHER_MS', 5, 0, 1000),
      ackWaitMs: int('STREAM_ACK_WAIT_MS', 3000, 1000, 3_600_000),
      analyzeDebounceMs: int('ANALYZE_DEBOUNCE_MS', 500, 0, 3_600_000),
      analyzeDeferLagMs: int('ANALYZE_DEFER_LAG_MS', 2000, 0, 3_600_000),
      analyzeMaxDeferMs: int('ANALYZE_MAX_DEFER_MS', 30_000, 0, 3_600_000),
      analyzeBatchIntervalMs: int('ANALYZE_BATCH_INTERVAL_MS', 5000, 0, 600_000),
      analyzeMaxBatch: int('ANALYZE_MAX_BATCH', 2000, 1, 10_000),
      analyzePrefetch: int('ANALYZE_PREFETCH', 0, 0, 1),
      analyzeSpacingPerMessageMs: int('ANALYZE_SPACING_PER_MESSAGE_MS', 10, 0, 60_000),
      toolRollupIntervalMs: int('TOOL_ROLLUP_INTERVAL_MS', 1000, 10, 600_000),
      jobIntervalMs: int('JOB_INTERVAL_MS', 60_000, 100, 86_400_000),
    },
    fixes: {
      magicPrefix: fixPrefix(str('FIX_MAGIC_PREFIX', 'SVC-FIX-')),
      publicUrl: url('FIX_PUBLIC_URL', ['http:', 'https:']),
      gateSeeds: int('FIX_GATE_SEEDS', 3, 1, 10),
      github: {
        token: str('FIX_GITHUB_TOKEN', ''),
        repo: githubRepo(str('FIX_GITHUB_REPO', '')),
        apiUrl: url('FIX_GITHUB_API_URL', ['http:', 'https:']) || 'https://api.github.com',
        baseBranch: str('FIX_GITHUB_BASE_BRANCH', 'main'),
      },
      webhookSecret: str('FIX_WEBHOOK_SECRET', ''),
      llm: { url: url('FIX_LLM_URL', ['http:', 'https:']), apiKey: str('FIX_LLM_API_KEY', ''), model: str('FIX_LLM_MODEL', 'gpt-4o-mini'), timeoutMs: 60_000 },
    },
  };
  return deepFreeze(config);
}

function fixPrefix(v: string): string {
  if (!/^[A-Z][A-Z0-9-]{0,30}$/.test(v)) throw new ConfigError('FIX_MAGIC_PREFIX', v, 'upper-case letters, digits and dashes, starting with a letter');
  return v;
}

function githubRepo(v: string): string {
  if (v && !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(v)) throw new ConfigError('FIX_GITHUB_REPO', v, 'owner/name');
  return v;
}

/**
 * Client-side settings of the commands that talk to a running query service (`tracehouse mcp`,
 * `tracehouse fix-verify`): TRACEHOUSE_URL (default http://127.0.0.1:8080) and TRACEHOUSE_API_KEY.
 */
export function loadClientConfig(env: Env = process.env): { url: string; apiKey: string } {
  return { url: env.TRACEHOUSE_URL || 'http://127.0.0.1:8080', apiKey: env.TRACEHOUSE_API_KEY || '' };
}

/** A copy of the configuration fit for printing: secrets masked. */
export function maskedConfig(config: Config): Record<string, unknown> {
  return {
    ...config,
    clickhouse: { ...config.clickhouse, password: config.clickhouse.password ? '********' : '' },
    nats: { ...config.nats, url: config.nats.url.replace(/\/\/[^@/]*@/g, '//***@') },
    secret: config.secret ? '********' : '(generated once, kept in NATS KV)',
    bootstrapKey: config.bootstrapKey ? '********' : '',
    problems: { ...config.problems, llm: { ...config.problems.llm, apiKey: config.problems.llm.apiKey ? '********' : '' } },
    fixes: {
      ...config.fixes,
      github: { ...config.fixes.github, token: config.fixes.github.token ? '********' : '' },
      webhookSecret: config.fixes.webhookSecret ? '********' : '',
      llm: { ...config.fixes.llm, apiKey: config.fixes.llm.apiKey ? '********' : '' },
    },
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
