/**
 * Schema migrations: `sql/migrations/NNNN_name.sql` applied in order and recorded in
 * `schema_migrations`; on a cluster, MergeTree engines become Replicated and DDL runs ON CLUSTER.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Store } from './clickhouse.js';
import type { Logger } from './log.js';
import { projectRoot } from './paths.js';
import { rebuildWithGranularity } from './table-rebuild.js';

export interface Migration {
  version: number;
  name: string;
  statements: string[];
  checksum: string;
  /** A step SQL cannot express (a table rebuilt), run after `statements`. */
  run?: (store: Store, cluster: string, log?: Logger) => Promise<void>;
}

/**
 * The tables keyed by conversation with several rows per conversation, and the rows per granule
 * they are rebuilt with. They are read by conversation: the analyses' loader reads a batch's
 * conversations from the first five, the data API one conversation's rows from any of them. A
 * lookup reads every granule holding one of its conversations, and conversation ids are random, so
 * a batch of N conversations reads about N granules of each: with 8,192-row granules that grew with
 * the table up to 8,192 rows per conversation (docs/storage.md "Granules of the conversation-keyed
 * tables"). Tables of one row per conversation (`conversations`, `conversation_summaries`,
 * `conversation_signals`) keep 8,192.
 */
export const CONVERSATION_GRANULES: ReadonlyArray<{ table: string; granularity: number }> = [
  'events',
  'messages',
  'tool_calls',
  'analysis_state',
  'tool_call_rollup_state',
  'conversation_tool_calls',
  'conversation_segments',
  'segment_texts',
  'emotion_detections',
  'laziness_detections',
  'hallucination_findings',
  'step_scores',
  'world_state',
].map((table) => ({ table, granularity: 1024 }));

/** Migrations a SQL file cannot express, numbered among the files. */
const PROGRAMS: ReadonlyArray<Omit<Migration, 'statements' | 'checksum'> & { spec: unknown }> = [
  {
    version: 160,
    name: '0160_conversation_granules',
    spec: CONVERSATION_GRANULES,
    async run(store, cluster, log) {
      for (const t of CONVERSATION_GRANULES) await rebuildWithGranularity(store, { ...t, version: 160, cluster, log });
    },
  },
];

const sha = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** Reads `sql/migrations/NNNN_name.sql` and the programs, sorted by number. */
export function loadMigrations(dir = join(projectRoot, 'sql', 'migrations')): Migration[] {
  const programs: Migration[] = PROGRAMS.map(({ spec, ...m }) => ({ ...m, statements: [], checksum: sha(JSON.stringify(spec)) }));
  const files: Migration[] = readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8');
      return {
        version: Number(file.slice(0, 4)),
        name: file.replace(/\.sql$/, ''),
        statements: splitStatements(text),
        checksum: sha(text),
      };
    });
  const all = [...files, ...programs].sort((a, b) => a.version - b.version);
  const twice = all.find((m, i) => i > 0 && all[i - 1]!.version === m.version);
  if (twice) throw new Error(`two migrations are numbered ${twice.version}`);
  return all;
}

export function splitStatements(text: string): string[] {
  const withoutComments = text
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n');
  return withoutComments
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** On a cluster, MergeTree engines become their Replicated form and DDL runs ON CLUSTER. */
export function clusterize(statement: string, cluster: string): string {
  if (!cluster) return statement.replaceAll('{{on_cluster}}', '');
  return statement
    .replaceAll('{{on_cluster}}', `ON CLUSTER ${cluster}`)
    .replace(/ENGINE\s*=\s*(\w*)MergeTree(\(([^)]*)\))?/g, (_m, kind: string, _p: string, args: string | undefined) => {
      const path = `'/clickhouse/tables/{shard}/{database}/{table}', '{replica}'`;
      const rest = args && args.trim() ? `, ${args}` : '';
      return `ENGINE = Replicated${kind}MergeTree(${path}${rest})`;
    });
}

/**
 * Applies pending migrations in order and records each in `schema_migrations`. Statements are
 * written idempotently (IF NOT EXISTS), so a crash between a statement and its record is safe.
 * `before`: only the migrations numbered below it (a store as an older version left it).
 */
export async function migrate(store: Store, opts: { cluster?: string; log?: Logger; before?: number } = {}): Promise<{ applied: string[] }> {
  const cluster = opts.cluster ?? '';
  await store.command(clusterize(`CREATE DATABASE IF NOT EXISTS {{db}} {{on_cluster}}`, cluster));
  await store.command(
    clusterize(
      `CREATE TABLE IF NOT EXISTS {{db}}.schema_migrations {{on_cluster}} (version UInt32, name String, checksum String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3)) ENGINE = ReplacingMergeTree ORDER BY version`,
      cluster,
    ),
  );
  const done = new Set(
    (await store.query<{ version: number }>(`SELECT version FROM {{db}}.schema_migrations FINAL`)).map((r) => Number(r.version)),
  );
  const applied: string[] = [];
  for (const m of loadMigrations()) {
    if (done.has(m.version) || m.version >= (opts.before ?? Infinity)) continue;
    for (const statement of m.statements) await store.command(clusterize(statement, cluster));
    await m.run?.(store, cluster, opts.log);
    await store.insert('schema_migrations', [{ version: m.version, name: m.name, checksum: m.checksum }]);
    applied.push(m.name);
    opts.log?.info({ migration: m.name }, 'migration applied');
  }
  return { applied };
}
