import { mkdirSync, readFileSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { joined, partsLength, type ByteParts } from './bytes.js';
import { clearStaleSpool, writeWhole } from './spool.js';
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import type { Config } from './config.js';
import { chdbConnection } from './engine-library.js';
import { projectRoot } from './paths.js';
import { compactLines, namedLines } from './row-text.js';
import { createEngineGate, gatedConnection, type Lane } from './engine-gate.js';

/**
 * ClickHouse access for every role: one `@clickhouse/client` backed by embedded chDB or a server.
 * The embedded connection ignores the client's `database` option, so every statement names its
 * database explicitly: SQL text uses the `{{db}}` placeholder, filled from validated config (never
 * from request input); values always travel as ClickHouse query parameters.
 */
export interface Store {
  readonly client: ClickHouseClient;
  readonly database: string;
  readonly embedded: boolean;
  /** Fully qualified table name, e.g. `tracehouse.events`. */
  table(name: string): string;
  /** Settings for a call made with `client` directly (the embedded session needs resets; see sessionSettings). */
  settings(settings?: ClickHouseSettings): ClickHouseSettings | undefined;
  /**
   * The same store for data API reads: on the embedded engine its statements go before waiting
   * background work (core/engine-gate.ts); on a server it is this store. Closing it closes nothing.
   */
  reads(): Store;
  /**
   * The same store for the sink's inserts of accepted rows: on the embedded engine its statements
   * go before waiting background work, a few in a row at most (core/engine-gate.ts); on a server it
   * is this store. Closing it closes nothing.
   */
  writes(): Store;
  /** Holds the sink's lane for one flush's tables (core/engine-gate.ts `hold`); returns the release. A server holds nothing. */
  holdWrites(): () => void;
  /** Fills `{{db}}` (and `{{on_cluster}}`) in SQL text. */
  sql(text: string): string;
  /** Runs a SELECT and returns JSONEachRow rows. 64-bit integers come back as strings on both connections. */
  query<T = Record<string, unknown>>(sql: string, params?: Record<string, unknown>, settings?: ClickHouseSettings): Promise<T[]>;
  /** `query` unparsed: the JSONEachRow text, one row per line (for a worker thread to parse). */
  queryText(sql: string, params?: Record<string, unknown>, settings?: ClickHouseSettings): Promise<string>;
  command(sql: string, params?: Record<string, unknown>, settings?: ClickHouseSettings): Promise<void>;
  insert(table: string, rows: readonly object[], settings?: ClickHouseSettings): Promise<void>;
  /**
   * Inserts pre-serialized rows without touching them: JSONCompactEachRow lines in `columns` order,
   * or a Native block of those columns. The embedded engine takes text through chDB's own raw
   * insert (a large body and every Native block through a file and `INSERT … SELECT FROM file()`),
   * with the settings in the statement (no session state); a server gets the same bytes as the
   * request body. `body` may be parts in order (a Native block of the sink's chunks): a file gets
   * them in one gathering write, anything else their concatenation.
   */
  insertBytes(table: string, columns: readonly string[], body: ByteParts, settings?: ClickHouseSettings, format?: InsertFormat): Promise<void>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Formats of pre-serialized inserts. */
export type InsertFormat = 'JSONCompactEachRow' | 'Native';

// 64-bit integers are quoted on both connections (chDB would otherwise return lossy numbers).
const BASE_SETTINGS: ClickHouseSettings = {
  output_format_json_quote_64bit_integers: 1,
  date_time_output_format: 'iso',
  // server default is 'simple'; accept ISO 8601 with zone and fractions on insert
  date_time_input_format: 'best_effort',
};

/**
 * The embedded connection applies a call's settings as `SET name = value; <statement>`, and a `SET`
 * outlives its statement: every later call on the session would inherit it (an
 * `insert_deduplication_token` left over from one insert makes the next token-less insert into a
 * deduplicating table a silent duplicate). Every setting a call may pass is listed here with the
 * value that restores the default; once a call has set one, every later call carries either its own
 * value or this one. A setting not listed is refused on the embedded engine rather than leaked.
 */
export const EMBEDDED_SETTING_RESETS: ClickHouseSettings = {
  insert_deduplication_token: '',
  insert_deduplicate: 1,
  max_threads: 0,
  max_insert_threads: '0',
  join_use_nulls: 0,
  async_insert: 0,
  wait_for_async_insert: 1,
};

/** Per-call settings for one embedded session: the call's own, plus resets of anything set before. */
export function sessionSettings(): (settings?: ClickHouseSettings) => ClickHouseSettings | undefined {
  const touched = new Set<string>();
  const resets = EMBEDDED_SETTING_RESETS as Record<string, unknown>;
  return (settings) => {
    for (const k of Object.keys(settings ?? {})) {
      if (k in BASE_SETTINGS) continue;
      if (!(k in resets)) throw new Error(`setting ${k} cannot be passed per call on embedded ClickHouse (it would outlive the call); add its default to EMBEDDED_SETTING_RESETS`);
      touched.add(k);
    }
    if (touched.size === 0) return settings;
    const out: Record<string, unknown> = {};
    for (const k of touched) out[k] = resets[k];
    return { ...(out as ClickHouseSettings), ...settings };
  };
}

/**
 * Ends a lightweight `DELETE`: the statement returns once the delete is scheduled, and the engine
 * applies it in the background (`lightweight_deletes_sync = 0`). Waiting for it held the embedded
 * engine's session — one statement at a time for the whole process — for up to a second per delete,
 * and every data API read in that time waited behind it. Only for deletes whose rows no reader
 * needs gone at once: run-keyed rows of replaced runs (readers take the current run) and superseded
 * versions (readers take the newest with `FINAL`).
 */
export const BACKGROUND_DELETE = 'SETTINGS lightweight_deletes_sync = 0';

/** Settings every byte insert carries in its statement (the embedded raw insert bypasses the client's). */
const INSERT_SETTINGS = { date_time_input_format: 'best_effort' } as const;

/**
 * Byte inserts at least this large go through a file and `INSERT … SELECT FROM file()` on the
 * embedded engine: the engine parses a file with parallel parsing, an inline body on one thread
 * (measured on the bench's real `events` rows, 40k rows / 35 MB: 1.9–2.8 s against 4.0–4.7 s).
 */
export const FILE_INSERT_MIN_BYTES = 256 * 1024;

/** A settings clause of literals (names checked, string values quoted). */
function settingsClause(settings: Record<string, string | number | boolean>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(settings)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new Error(`invalid setting name ${JSON.stringify(k)}`);
    parts.push(`${k} = ${typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : typeof v === 'boolean' ? (v ? 1 : 0) : v}`);
  }
  return parts.length ? `SETTINGS ${parts.join(', ')}` : '';
}

type RawInsert = (p: { table: string; values: Buffer; format: 'JSONCompactEachRow' | 'JSONEachRow'; columns: readonly string[]; settings: Record<string, string | number | boolean> }) => Promise<unknown>;

/** `compactLines` as the bytes an insert sends (core/row-text.ts). */
export function compactRows(rows: readonly object[]): { columns: string[]; body: Buffer } | undefined {
  const compact = compactLines(rows);
  return compact && { columns: compact.columns, body: Buffer.from(compact.text) };
}

/** Settings as statement-level values: strings, numbers and booleans only, undefined dropped. */
function statementSettings(settings: ClickHouseSettings | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = { ...INSERT_SETTINGS };
  for (const [k, v] of Object.entries(settings ?? {})) if (v !== undefined) out[k] = v as string | number | boolean;
  return out;
}

export function createStore(config: Config): Store {
  const embedded = !config.clickhouse.url;
  /** A client whose statements run in `lane` (the embedded engine's gate; a server needs none). */
  let clientFor: (lane: Lane) => ClickHouseClient;
  let rawInsert: ((lane: Lane, p: Parameters<RawInsert>[0]) => Promise<unknown>) | undefined;
  let holdWrites = (): (() => void) => () => undefined;
  let fileInsert: ((lane: Lane, target: string, columns: readonly string[], body: ByteParts, settings: Record<string, string | number | boolean>, format: InsertFormat) => Promise<void>) | undefined;
  if (embedded) {
    const path = join(config.dataDir, 'clickhouse');
    mkdirSync(path, { recursive: true });
    const chdb = chdbConnection(config)({ path });
    const gate = createEngineGate();
    holdWrites = () => gate.hold();
    rawInsert = (lane, p) => gate.run(lane, () => chdb.chdb.rawInsert(p as Parameters<typeof chdb.chdb.rawInsert>[0]));
    const spool = join(config.dataDir, 'insert-spool');
    mkdirSync(spool, { recursive: true });
    clearStaleSpool(spool);
    const structures = new Map<string, Promise<Map<string, string>>>();
    const typesOf = (lane: Lane, target: string) => {
      let p = structures.get(target);
      if (!p) {
        const [database, table] = target.split('.') as [string, string];
        p = gate
          .run(lane, () => chdb.chdb.queryAsync(`SELECT name, type FROM system.columns WHERE database = '${database}' AND table = '${table}' FORMAT JSONEachRow`))
          .then((r) => new Map(r.text().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { name: string; type: string }).map((c) => [c.name, c.type] as [string, string])));
        p.catch(() => structures.delete(target));
        structures.set(target, p);
      }
      return p;
    };
    fileInsert = async (lane, target, columns, body, settings, format) => {
      // a Native block names its columns' types itself
      let source = `'Native'`;
      if (format === 'JSONCompactEachRow') {
        const types = await typesOf(lane, target);
        const structure = columns.map((c) => {
          const t = types.get(c);
          if (!t) throw new Error(`${target} has no column ${c}`);
          return `${c} ${t}`;
        }).join(', ');
        source = `'JSONCompactEachRow', '${structure.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
      }
      const file = join(spool, `${randomBytes(8).toString('hex')}.${format === 'Native' ? 'native' : 'jsonl'}`);
      await writeWhole(file, body);
      try {
        const quotedFile = file.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
        await gate.run(lane, () => chdb.chdb.queryAsync(`INSERT INTO ${target} (${columns.join(', ')}) ${settingsClause(settings)} SELECT * FROM file('${quotedFile}', ${source})`));
      } finally {
        await unlink(file).catch(() => undefined);
      }
    };
    // chdb/connection is typed against @clickhouse/client-common's copy of the Connection interface
    type ClientConnection = NonNullable<Parameters<typeof createClient>[0]>['connection'];
    const clients = new Map<Lane, ClickHouseClient>();
    clientFor = (lane) => {
      let c = clients.get(lane);
      if (!c) clients.set(lane, (c = createClient({ connection: gatedConnection(chdb, gate, lane) as unknown as ClientConnection, clickhouse_settings: BASE_SETTINGS })));
      return c;
    };
  } else {
    const client = createClient({
      url: config.clickhouse.url,
      username: config.clickhouse.user,
      password: config.clickhouse.password,
      clickhouse_settings: BASE_SETTINGS,
      request_timeout: 60_000,
    });
    clientFor = () => client;
  }
  // a server scopes settings to the request; the embedded session keeps them (see sessionSettings),
  // for every lane alike: one session
  const per = embedded ? sessionSettings() : (x?: ClickHouseSettings) => x;
  const db = config.clickhouse.database;
  const onCluster = config.clickhouse.cluster ? `ON CLUSTER ${config.clickhouse.cluster}` : '';
  const fill = (text: string) => text.replaceAll('{{db}}', db).replaceAll('{{on_cluster}}', onCluster);
  const qualified = (table: string) => (table.includes('.') ? table : `${db}.${table}`);

  const lanes = new Map<Lane, Store>();
  const storeFor = (lane: Lane): Store => {
    const existing = lanes.get(lane);
    if (existing) return existing;
    const client = clientFor(lane);
    /** The body as the request's data (a server: settings scoped to the request). */
    const execInsert = async (target: string, columns: readonly string[], format: InsertFormat | 'JSONEachRow', body: Buffer, settings?: ClickHouseSettings) => {
      const rs = await client.exec({
        query: `INSERT INTO ${target} (${columns.join(', ')}) FORMAT ${format}`,
        values: Readable.from([body], { objectMode: false }),
        clickhouse_settings: { ...INSERT_SETTINGS, ...settings },
      });
      rs.stream.resume();
      await new Promise<void>((resolve, reject) => rs.stream.once('end', resolve).once('error', reject).once('close', resolve));
    };
    const insertBytes: Store['insertBytes'] = async (table, columns, body, settings, format = 'JSONCompactEachRow') => {
      const bytes = partsLength(body);
      if (bytes === 0) return;
      const target = qualified(table);
      if (rawInsert) {
        // settings travel in the statement (INSERT … SETTINGS …): nothing outlives the call; chDB's
        // raw insert takes text formats only
        try {
          if (fileInsert && (format === 'Native' || bytes >= FILE_INSERT_MIN_BYTES)) await fileInsert(lane, target, columns, body, statementSettings(settings), format);
          else await rawInsert(lane, { table: target, values: joined(body), format: 'JSONCompactEachRow', columns, settings: statementSettings(settings) });
        } catch (err) {
          throw withStoreCode(err);
        }
        return;
      }
      await execInsert(target, columns, format, joined(body), settings);
    };
    const store: Store = {
      client,
      database: db,
      embedded,
      table: (name) => `${db}.${name}`,
      settings: per,
      sql: fill,
      reads: () => storeFor('read'),
      writes: () => storeFor('store'),
      holdWrites: () => holdWrites(),
      async query<T>(sql: string, params?: Record<string, unknown>, settings?: ClickHouseSettings) {
        const rs = await client.query({ query: fill(sql), query_params: params, format: 'JSONEachRow', clickhouse_settings: per(settings) });
        return (await rs.json()) as T[];
      },
      async queryText(sql, params, settings) {
        const rs = await client.query({ query: fill(sql), query_params: params, format: 'JSONEachRow', clickhouse_settings: per(settings) });
        return rs.text();
      },
      async command(sql, params, settings) {
        await client.command({ query: fill(sql), query_params: params, clickhouse_settings: per(settings) });
      },
      async insert(table, rows, settings) {
        if (rows.length === 0) return;
        // the rows' own text on both connections (core/row-text.ts: a lone surrogate becomes
        // U+FFFD, where the client's text would fail the insert); compact lines when the rows are
        // uniform (about 0.6× the engine's CPU of named rows at 1,000 rows)
        const compact = compactRows(rows);
        if (compact) return insertBytes(table, compact.columns, compact.body, settings);
        const named = namedLines(rows);
        // rows that name no column at all (all defaults) hold no text: the client's way
        if (named.columns.length === 0) return void (await client.insert({ table: qualified(table), values: rows as object[], format: 'JSONEachRow', clickhouse_settings: per(settings) }));
        if (!rawInsert) return execInsert(qualified(table), named.columns, 'JSONEachRow', Buffer.from(named.text), settings);
        try {
          await rawInsert(lane, { table: qualified(table), values: Buffer.from(named.text), format: 'JSONEachRow', columns: named.columns, settings: statementSettings(settings) });
        } catch (err) {
          throw withStoreCode(err);
        }
      },
      insertBytes,
      async ping() {
        try {
          const r = await client.ping();
          if (!r.success) return false;
          // the embedded ping never touches the engine; a trivial query does
          await client.query({ query: 'SELECT 1', format: 'JSONEachRow' }).then((rs) => rs.json());
          return true;
        } catch {
          return false;
        }
      },
      // one session under every lane: closed once, by the background (main) store
      close: lane === 'background' ? () => client.close() : async () => {},
    };
    lanes.set(lane, store);
    return store;
  };
  return storeFor('background');
}

/** chDB's insert errors carry the engine's code as `clickhouseCode`; the store's callers read `code` (as the client's errors have it). */
function withStoreCode(err: unknown): unknown {
  const e = err as { clickhouseCode?: unknown; code?: unknown };
  if (e && typeof e === 'object' && e.clickhouseCode !== undefined) {
    try {
      (e as { code: unknown }).code = String(e.clickhouseCode);
    } catch {
      // a read-only code: isTransientClickHouseError reads clickhouseCode too
    }
  }
  return err;
}

/** ClickHouse error codes worth retrying: the same insert may succeed later. */
const TRANSIENT_CODES = new Set([
  '3', // UNEXPECTED_END_OF_FILE
  '159', // TIMEOUT_EXCEEDED
  '164', // READONLY (replica briefly read-only)
  '202', // TOO_MANY_SIMULTANEOUS_QUERIES
  '203', // NO_FREE_CONNECTION
  '209', // SOCKET_TIMEOUT
  '210', // NETWORK_ERROR
  '241', // MEMORY_LIMIT_EXCEEDED
  '242', // TABLE_IS_READ_ONLY
  '252', // TOO_MANY_PARTS
  '285', // TOO_FEW_LIVE_REPLICAS
  '319', // UNKNOWN_STATUS_OF_INSERT
  '425', // SYSTEM_ERROR
  '999', // KEEPER_EXCEPTION
]);
const TRANSIENT_ERRNO = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET']);

/** Decided by error class and code, never by message text. */
export function isTransientClickHouseError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; clickhouseCode?: unknown; transient?: unknown; cause?: unknown; name?: string };
  if (e.transient === true) return true;
  if (e.code !== undefined && TRANSIENT_CODES.has(String(e.code))) return true;
  if (e.clickhouseCode !== undefined && TRANSIENT_CODES.has(String(e.clickhouseCode))) return true;
  if (typeof e.code === 'string' && TRANSIENT_ERRNO.has(e.code)) return true;
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return true;
  return e.cause ? isTransientClickHouseError(e.cause) : false;
}

const queryCache = new Map<string, string>();
/** Named SQL from `sql/queries/<name>.sql`; parameters stay ClickHouse `{name:Type}` placeholders. */
export function namedQuery(name: string): string {
  let text = queryCache.get(name);
  if (text === undefined) {
    text = readFileSync(join(projectRoot, 'sql', 'queries', `${name}.sql`), 'utf8');
    queryCache.set(name, text);
  }
  return text;
}
