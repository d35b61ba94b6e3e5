import { convertFile, findImportFiles, statsOf, type DirectEvent } from '../../stream/import/index.js';
import { backoffDelay, sleep } from '../../core/retry.js';
import { flagString, UsageError } from '../args.js';
import type { Command } from '../command.js';

const MAX_EVENTS_PER_REQUEST = 500;
/** Well under the 5 MB body limit of spec/ingestion.md. */
const MAX_BYTES_PER_REQUEST = 2 * 1024 * 1024;
const MAX_ATTEMPTS = 30;

interface Summary {
  files: number;
  conversations: number;
  messages: number;
  tool_calls: number;
  tool_errors: number;
  accepted: number;
  rejected: number;
  skipped: number;
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
Directories are searched recursively. Ids and times are derived from the files, so importing the
same files again stores nothing twice.

  --url URL          ingest address (default http://127.0.0.1:4318)
  --key KEY          API key with the ingest scope (default: env TRACEHOUSE_KEY)
  --environment ENV  development, staging or production (default production)
  --dry-run          convert and count only; send nothing
  --json             print the summary as JSON

Progress goes to stderr (a bar on a terminal, plain lines otherwise); the summary to stdout:
files, conversations, messages, tool calls, tool errors, rejected. 503 answers are retried after
their Retry-After. Exit code 1 when events were rejected or could not be sent.`,
  booleans: ['dry-run', 'json'],
  async run(args) {
    if (args.positionals.length === 0) throw new UsageError('give at least one file or directory');
    const url = (flagString(args, 'url') ?? 'http://127.0.0.1:4318').replace(/\/+$/, '');
    const key = flagString(args, 'key') ?? process.env.TRACEHOUSE_KEY ?? '';
    const environment = flagString(args, 'environment');
    const dryRun = args.flags['dry-run'] === true;
    if (!dryRun && !key) throw new UsageError('--key or env TRACEHOUSE_KEY is required');
    let files: string[];
    try {
      files = findImportFiles(args.positionals);
    } catch (err) {
      throw new UsageError(`cannot read ${(err as NodeJS.ErrnoException).path ?? 'input'}: ${(err as Error).message}`);
    }
    const converted = files.map(convertFile);
    const all = converted.flatMap((c) => c.events);
    const stats = statsOf(all, converted.reduce((a, c) => a + c.skipped, 0));
    const summary: Summary = {
      files: files.length,
      conversations: stats.conversations,
      messages: stats.messages,
      tool_calls: stats.toolCalls,
      tool_errors: stats.toolErrors,
      accepted: 0,
      rejected: 0,
      skipped: stats.skipped,
    };
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
          '\n',
      );
    return summary.rejected > 0 ? 1 : 0;
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

class ImportError extends Error {
  override name = 'ImportError';
}

/** One POST; 503/429 and network errors are retried (Retry-After, else backoff); others fail the import. */
async function send(url: string, key: string, events: DirectEvent[], environment?: string): Promise<{ accepted: number; rejected: number }> {
  const body = JSON.stringify(environment ? { environment, events } : { events });
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(`${url}/v1/ingest`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
    } catch (err) {
      if (attempt >= MAX_ATTEMPTS) throw new ImportError(`cannot reach ${url}: ${(err as Error).message}`);
      await sleep(backoffDelay(attempt, 250, 5000));
      continue;
    }
    const text = await res.text();
    if (res.status === 503 || res.status === 429) {
      if (attempt >= MAX_ATTEMPTS) throw new ImportError(`ingest kept answering ${res.status}`);
      const after = Number(res.headers.get('retry-after'));
      await sleep(Number.isFinite(after) && after > 0 ? after * 1000 : backoffDelay(attempt, 250, 5000));
      continue;
    }
    if (!res.ok) throw new ImportError(`ingest answered ${res.status}: ${text.slice(0, 300)}`);
    const json = JSON.parse(text) as { count?: number; rejected?: number };
    return { accepted: json.count ?? events.length, rejected: json.rejected ?? 0 };
  }
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
