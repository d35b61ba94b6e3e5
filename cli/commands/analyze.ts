import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { OfflineResult } from '../../stream/analyses/offline.js';
import { convertClaudeCode, convertConsoleTranscript, convertTrajectory, findImportFiles, trajectoriesOf } from '../../stream/import/index.js';
import { flagString, UsageError } from '../args.js';
import type { Command } from '../command.js';

const FORMATS = ['direct', 'claude-code', 'openai-chat', 'console'] as const;
type Format = (typeof FORMATS)[number];

export const analyzeCommand: Command = {
  name: 'analyze',
  summary: 'Run the conversation analyses on files, offline (no server)',
  usage: `Usage: tracehouse analyze [FILE|DIR|-] [--format direct|claude-code|openai-chat|console] [--quiet]

Runs the same analyses the stream role runs on every conversation — summary, segments, emotion
signals, tool calls with failure categories, laziness, hallucination checks, world state, step
scores — on files, with no server and no data directory. All input is one workspace (failure
categories are mined across it); conversations of one user (user_id) run in time order, each
warm-started with the durable facts of the earlier ones (user memory).

  --format direct        (default) JSON lines, each a direct-ingest event in the standard form of
                         POST /v1/ingest: conversation_id, role, message or content blocks
                         (tool_use / tool_result), optional timestamp and message_id
  --format claude-code   Claude Code session logs (*.jsonl; a directory is searched)
  --format openai-chat   OpenAI-chat trajectories (*.json, e.g. tau-bench results)
  --format console       Claude Code terminal transcripts (text: "> prompt", "⏺ Tool(...)", "⎿ result")
  --quiet                no totals on stderr

FILE "-" or no FILE reads standard input. Output on stdout: one JSON line per conversation, in
first-seen order:
  {conversation_id, summary, segments[], emotions[], tool_calls[], laziness[], hallucinations[],
   hallucination_stats, world_state, step_scores}
where world_state and step_scores have the shapes of GET /conversations/:id/world-state and
GET /conversations/:id/step-scores (without conversation_id and without their limits), and
message indexes are zero-based in input order. With at least 50 segments in the input, the input
builds its own use-case taxonomy and every segment carries
  cluster: {node_id, label, category_id, category_label, similarity} (null when held aside). Totals and any refused input line go to stderr.
Exit code 1 when an input line was refused or an analyzer failed (the output is still written).`,
  booleans: ['quiet'],
  async run(args) {
    const format = (flagString(args, 'format') ?? 'direct') as Format;
    if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
    if (args.positionals.length > 1) throw new UsageError('give at most one FILE (or - for standard input)');
    const source = args.positionals[0] ?? '-';
    const events = await readEvents(source, format);
    const { analyzeDirectEvents } = await import('../../stream/analyses/offline.js');
    const { workspaceEnv } = await import('../../stream/analyses/workspace.js');
    const out = analyzeDirectEvents(events, { workspace: workspaceEnv });
    // segment goal texts are an input of the taxonomy, not a result of their own
    for (const { segment_goals: _goals, ...r } of out.results) process.stdout.write(JSON.stringify(r) + '\n');
    report(out, args.flags.quiet === true);
    return out.problems.length || out.errors.length ? 1 : 0;
  },
};

/** Standard input read through its stream: a synchronous read of a non-blocking pipe fails with EAGAIN. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

async function readText(source: string): Promise<string> {
  if (source === '-') return readStdin();
  try {
    return readFileSync(source, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${source}: ${(err as Error).message}`);
  }
}

function isDirectory(source: string): boolean {
  try {
    return source !== '-' && statSync(source).isDirectory();
  } catch {
    throw new UsageError(`cannot read ${source}: no such file or directory`);
  }
}

/** The input as direct-ingest events; lines that are not JSON become refused events. */
async function readEvents(source: string, format: Format): Promise<unknown[]> {
  if (format !== 'direct' && isDirectory(source)) {
    const files = findImportFiles([source]).filter((f) => (format === 'claude-code' ? f.endsWith('.jsonl') : format === 'openai-chat' ? f.endsWith('.json') : /\.(md|txt)$/.test(f)));
    return files.flatMap((f) => convert(readFileSync(f, 'utf8'), basename(f), format));
  }
  return convert(await readText(source), source === '-' ? 'stdin' : basename(source), format);
}

function convert(text: string, label: string, format: Format): unknown[] {
  switch (format) {
    case 'claude-code':
      return convertClaudeCode(text, label).events;
    case 'console':
      return convertConsoleTranscript(text, label);
    case 'openai-chat': {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (err) {
        throw new UsageError(`${label} is not JSON: ${(err as Error).message}`);
      }
      return trajectoriesOf(json, label).flatMap(convertTrajectory);
    }
    case 'direct':
      return text.split('\n').flatMap((line) => {
        if (!line.trim()) return [];
        try {
          return [JSON.parse(line)];
        } catch {
          return [null]; // refused with its line number by the analysis input
        }
      });
  }
}

function report(out: OfflineResult, quiet: boolean): void {
  for (const p of out.problems.slice(0, 20)) process.stderr.write(`event ${p.line}: ${p.reason}\n`);
  if (out.problems.length > 20) process.stderr.write(`… and ${out.problems.length - 20} more refused events\n`);
  for (const e of out.errors) process.stderr.write(`${e.conversation_id}: ${e.analyzer} failed: ${e.error}\n`);
  if (quiet) return;
  const t = out.totals;
  process.stderr.write(
    `${t.conversations} conversations, ${t.messages} messages, ${t.tool_calls} tool calls (${t.failed_calls} failed, ${t.categories} categories), ` +
      `${t.emotions} emotion signals (${t.frustrated_conversations} conversations frustrated, ${t.at_risk_conversations} at risk), ` +
      `${t.laziness} laziness detections (${t.lazy_conversations} conversations lazy by the headline rule), hallucination checks: ${t.hallucinations_contradicted} contradicted, ` +
      `${t.hallucinations_verified} verified, ${t.hallucinations_unverified} unverified, ${t.clusters} use-case clusters\n`,
  );
}
