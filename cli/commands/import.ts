import { statsOf, type DirectEvent } from '../../stream/import/index.js';
import { backoffDelay, sleep } from '../../core/retry.js';
import { loadConfig, type Config } from '../../core/config.js';
import { daysBackParam } from '../../schemas/api/common.js';
import { CommandError, flagString, UsageError } from '../args.js';
import type { Command } from '../command.js';
import { olderThan, planImport, type SkippedFile } from '../import-files.js';

const MAX_EVENTS_PER_REQUEST = 500;
/** Well under the 5 MB body limit of spec/ingestion.md. */
const MAX_BYTES_PER_REQUEST = 2 * 1024 * 1024;
/** 503/429 answers: retried after their Retry-After this many times. */
const MAX_BUSY_ATTEMPTS = 30;
/** An ingest address that does not answer: given up after this long (a restarting server comes back sooner). */
const UNREACHABLE_GIVE_UP_MS = 10_000;
/** The widest window of GET /overview (`days_back` at most 90): older history is stored but never in it. */
const OVERVIEW_MAX_DAYS: number = daysBackParam(7).maximum;

interface Summary {
  files: number;
  conversations: number;
  messages: number;
  tool_calls: number;
  tool_errors: number;
  accepted: number;
  rejected: number;
  skipped: number;
  skipped_files: SkippedFile[];
  /** Messages older than the overview's widest window. */
  outside_overview: number;
}

/** The ingest address `start` listens on, from the same configuration (INGEST_PORT, HOST). */
function defaultUrl(config: Config): string {
  const host = config.http.host === '0.0.0.0' || config.http.host === '::' ? '127.0.0.1' : config.http.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.http.ingestPort}`;
}

export const importCommand: Command = {
  name: 'import',
  summary: 'Backfill Claude Code session logs and OpenAI-chat trajectories through /v1/ingest',
  usage: `Usage: tracehouse import <file-or-dir>... [--url URL] [--key KEY] [--environment ENV] [--dry-run] [--json]

Reads files a user already has and sends them through the ingest role's direct route
(POST <url>/v1/ingest, Authorization: Bearer <key>):
  *.jsonl   Claude Code session logs (~/.claude/projects/**/*.jsonl); streamed assistant lines
            sharing one message.id become one message; sidechains (sub-agents) their own threads
  *.json    OpenAI-chat trajectories: a list of {messages|traj} objects (e.g. tau-bench results)
            or one message list; tool messages become tool_result blocks
Directories are searched recursively for *.json and *.jsonl. A file that is neither format is
skipped and named with the reason. Ids and times are derived from the files, so importing the same
files again stores nothing twice.

  --url URL          ingest address (default http://127.0.0.1:<INGEST_PORT>, as \`start\` uses)
  --key KEY          API key with the ingest scope (default: env TRACEHOUSE_KEY)
  --environment ENV  development, staging or production (default production)
  --dry-run          convert and count only; send nothing
  --json             print the summary as JSON

Progress goes to stderr (a bar on a terminal, plain lines otherwise); the summary to stdout:
files, conversations, messages, tool calls, tool errors, rejected, skipped files. A warning says
how much of the history is older than ${OVERVIEW_MAX_DAYS} days: it is stored, but GET /overview (days_back at
most ${OVERVIEW_MAX_DAYS}) never counts it. 503 answers are retried after their Retry-After. Exit code 1 when
events were rejected or could not be sent, or when no file could be imported.`,
  booleans: ['dry-run', 'json'],
  async run(args) {
    if (args.positionals.length === 0) throw new UsageError('give at least one file or directory');
    const config = loadConfig();
    const url = (flagString(args, 'url') ?? defaultUrl(config)).replace(/\/+$/, '');
    const key = flagString(args, 'key') ?? process.env.TRACEHOUSE_KEY ?? '';
    const environment = flagString(args, 'environment');
    const dryRun = args.flags['dry-run'] === true;
    if (!dryRun && !key) throw new UsageError('--key or env TRACEHOUSE_KEY is required');
    let plan: ReturnType<typeof planImport>;
    try {
      plan = planImport(args.positionals);
    } catch (err) {
      throw new UsageError(`cannot read ${(err as NodeJS.ErrnoException).path ?? 'input'}: ${(err as Error).message}`);
    }
    const { converted, skippedFiles } = plan;
    for (const f of skippedFiles) process.stderr.write(`skipped ${f.file}: ${f.reason}\n`);
    const all = converted.flatMap((c) => c.events);
    const stats = statsOf(all, converted.reduce((a, c) => a + c.skipped, 0));
    const old = olderThan(all, Date.now() - OVERVIEW_MAX_DAYS * 86_400_000);
    const summary: Summary = {
      files: converted.length,
      conversations: stats.conversations,
      messages: stats.messages,
      tool_calls: stats.toolCalls,
      tool_errors: stats.toolErrors,
      accepted: 0,
      rejected: 0,
      skipped: stats.skipped,
      skipped_files: skippedFiles,
      outside_overview: old.events,
    };
    if (old.events > 0) {
      process.stderr.write(
        `warning: ${old.events} of ${all.length} messages (${old.conversations} of ${old.total} conversations entirely) are older than ${OVERVIEW_MAX_DAYS} days: ` +
          `they are stored and listed by /conversations and /search, but GET /overview covers at most the last ${OVERVIEW_MAX_DAYS} days and never counts them\n`,
      );
    }
    const progress = createProgress(all.length);
    if (!dryRun) {
      for (const c of converted) {
        progress.file(c.file, c.events.length);
        for (const chunk of chunks(c.events)) {
          const r = await send(url, key, chunk, environment);
          summary.accepted += r.accepted;
          summary.rejected += r.rejected;
          progress.advance(chunk.length);
        }
      }
    }
    progress.done();
    if (args.flags.json) process.stdout.write(JSON.stringify(summary) + '\n');
    else
      process.stdout.write(
        `${dryRun ? 'would import' : 'imported'}: ${summary.files} files, ${summary.conversations} conversations, ${summary.messages} messages, ` +
          `${summary.tool_calls} tool calls, ${summary.tool_errors} tool errors, ${summary.rejected} rejected` +
          (summary.skipped ? `, ${summary.skipped} unreadable records skipped` : '') +
          (skippedFiles.length ? `, ${skippedFiles.length} file${skippedFiles.length === 1 ? '' : 's'} skipped (not a known format)` : '') +
          '\n',
      );
    return summary.rejected > 0 || converted.length === 0 ? 1 : 0;
  },
};

function* chunks(events: DirectEvent[]): Generator<DirectEvent[]> {
  let cur: DirectEvent[] = [];
  let bytes = 0;
  for (const e of events) {
    const size = Buffer.byteLength(JSON.stringify(e));
    if (cur.length && (cur.length >= MAX_EVENTS_PER_REQUEST || bytes + size > MAX_BYTES_PER_REQUEST)) {
      yield cur;
      cur = [];
      bytes = 0;
    }
    cur.push(e);
    bytes += size;
  }
  if (cur.length) yield cur;
}

/** One POST; 503/429 and network errors are retried (Retry-After, else backoff); others fail the import. */
async function send(url: string, key: string, events: DirectEvent[], environment?: string): Promise<{ accepted: number; rejected: number }> {
  const body = JSON.stringify(environment ? { environment, events } : { events });
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(`${url}/v1/ingest`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
    } catch (err) {
      const why = (err as { cause?: { code?: string; message?: string } }).cause;
      if (Date.now() - started > UNREACHABLE_GIVE_UP_MS) throw new CommandError(`cannot reach ${url}: ${why?.code ?? why?.message ?? (err as Error).message} (is \`tracehouse start\` running? --url or INGEST_PORT name another address)`);
      await sleep(backoffDelay(attempt, 250, 2000));
      continue;
    }
    const text = await res.text();
    if (res.status === 503 || res.status === 429) {
      if (attempt >= MAX_BUSY_ATTEMPTS) throw new CommandError(`ingest kept answering ${res.status}`);
      const after = Number(res.headers.get('retry-after'));
      await sleep(Number.isFinite(after) && after > 0 ? after * 1000 : backoffDelay(attempt, 250, 5000));
      continue;
    }
    if (!res.ok) throw new CommandError(`ingest answered ${res.status}: ${errorText(text)}`);
    const json = JSON.parse(text) as { count?: number; rejected?: number };
    return { accepted: json.count ?? events.length, rejected: json.rejected ?? 0 };
  }
}

/** The `error` of an ingest error body, else the start of the text. */
function errorText(text: string): string {
  try {
    const e = (JSON.parse(text) as { error?: unknown }).error;
    if (typeof e === 'string') return e;
  } catch {
    // not JSON: show the text itself
  }
  return text.slice(0, 300).replace(/\s+/g, ' ');
}

function createProgress(total: number) {
  const tty = process.stderr.isTTY === true;
  let done = 0;
  const draw = () => {
    const width = 30;
    const frac = total ? done / total : 1;
    const bar = '#'.repeat(Math.round(frac * width)).padEnd(width, '.');
    process.stderr.write(`\r[${bar}] ${Math.round(frac * 100)}% ${done}/${total} messages`);
  };
  return {
    file(name: string, n: number) {
      if (!tty) process.stderr.write(`importing ${name}: ${n} messages\n`);
    },
    advance(n: number) {
      done += n;
      if (tty) draw();
    },
    done() {
      if (tty && total) {
        draw();
        process.stderr.write('\n');
      }
    },
  };
}
