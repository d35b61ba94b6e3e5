import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { ConfigError } from './errors.js';
import { DEFAULT_ENGINE_MALLOC_CONF, DEFAULT_NATS_GC, DEFAULT_NODE_HEAP_GROWTH_PERCENT, defaultDecodeThreads, defaultNatsProcs, LOG_LEVELS, type NatsServerGc } from './config-variables.js';

export { CONFIG_VARIABLES, DEFAULT_ENGINE_MALLOC_CONF, DEFAULT_NATS_GC, DEFAULT_NODE_HEAP_GROWTH_PERCENT, defaultDecodeThreads, defaultNatsProcs, type NatsServerGc } from './config-variables.js';

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
  /** Percent a thread's JavaScript heap grows past its last full collection's live size before the next (0: V8's choice). */
  readonly heapGrowthPercent: number;
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

/**
 * Hands the engine's allocator options to the process environment, where the embedded engine's
 * library reads them when it loads (core/engine-library.ts loads it after this, on the first
 * embedded store). A library already loaded keeps the options it read.
 */
export function exportEngineMallocConf(config: Pick<Config, 'clickhouse'>): void {
  process.env.JE_MALLOC_CONF = config.clickhouse.engineMallocConf;
}

/**
 * Sets the heap growth of every JavaScript thread of this process (V8's flags are the process's,
 * and V8 reads this one each time a full collection sets the next limit, so it holds from the next
 * collection on, for threads already running too). 0 gives V8 its own choice back.
 */
export function applyHeapGrowth(config: Pick<Config, 'heapGrowthPercent'>): void {
  setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
}

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
    heapGrowthPercent: int('NODE_HEAP_GROWTH_PERCENT', DEFAULT_NODE_HEAP_GROWTH_PERCENT, 0, 1000),
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
