/**
 * The real failures of the evaluation: every failed call of the four sources in ../shared/data,
 * read through the same path `tracehouse analyze` takes (importer → direct events → snapshot).
 * mini-swe-agent trajectories have no importer (bash commands in fenced blocks, results with a
 * `<returncode>`), so a small converter here turns them into direct events first.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { snapshotsFromDirectEvents } from '../../stream/analyses/direct-input.js';
import type { ConversationSnapshot, SnapshotToolCall } from '../../stream/analyses/types.js';
import { convertFile, type DirectEvent } from '../../stream/import/index.js';
import { dataPath } from '../lib/data.js';

export type SourceName = 'tau-bench' | 'claude-code-viewer' | 'bookminder' | 'agent-trajectories';

export interface SourceSnapshots {
  source: SourceName;
  snapshots: ConversationSnapshot[];
}

/** A failed call (success false, or a rejected permission decision) of a snapshot. */
export const isFailed = (c: SnapshotToolCall): boolean => c.success === false || c.decision === 'reject';

const FENCE = /```[a-z_]*bash[a-z_]*\n([\s\S]*?)```/i;
const RETURN_CODE = /^\s*<returncode>(-?\d+)<\/returncode>/;

/** mini-swe-agent message list → direct events: each fenced command is a `bash` call. */
export function convertMiniSweAgent(messages: ReadonlyArray<{ role?: string; content?: unknown }>, id: string): DirectEvent[] {
  const out: DirectEvent[] = [];
  const base = Date.parse('2025-01-01T00:00:00.000Z');
  let pending: string | null = null;
  messages.forEach((m, i) => {
    const text = typeof m.content === 'string' ? m.content : '';
    const head = { conversation_id: id, timestamp: new Date(base + i * 1000).toISOString(), message_id: `${id}:${i}` };
    const rc = RETURN_CODE.exec(text);
    if (m.role === 'user' && pending && rc) {
      out.push({ ...head, role: 'user', content: [{ type: 'tool_result', tool_use_id: pending, content: text, is_error: Number(rc[1]) !== 0 }] });
      pending = null;
      return;
    }
    const fence = m.role === 'assistant' ? FENCE.exec(text) : null;
    if (fence) {
      pending = `${id}:call-${i}`;
      out.push({ ...head, role: 'assistant', content: [{ type: 'text', text }, { type: 'tool_use', tool_name: 'bash', tool_use_id: pending, input: { command: fence[1]!.trim() } }] });
      return;
    }
    const role = m.role === 'assistant' || m.role === 'system' ? m.role : 'user';
    out.push({ ...head, role, message: text });
  });
  return out;
}

function snapshotsOf(events: readonly DirectEvent[]): ConversationSnapshot[] {
  return snapshotsFromDirectEvents(events, { tenantId: 'eval', nowMs: 0 }).snapshots;
}

const filesIn = (dir: string, pattern: RegExp) => (existsSync(dir) ? readdirSync(dir).filter((f) => pattern.test(f)).sort().map((f) => `${dir}/${f}`) : []);

/** Snapshots of every source, in a fixed order (absent folders give empty sources). */
export function loadSources(): SourceSnapshots[] {
  const tau = filesIn(dataPath('tau-bench'), /^gpt-4o-airline\.json$/).flatMap((f) => convertFile(f).events);
  const viewer = filesIn(dataPath('claude-code-viewer'), /\.jsonl$/).flatMap((f) => convertFile(f).events);
  const console = filesIn(dataPath('bookminder-cc-console'), /^day-.*\.md$/).flatMap((f) => convertFile(f).events);
  const trajectories: DirectEvent[] = [];
  for (const f of filesIn(dataPath('agent-trajectories-small'), /\.json$/)) {
    const json = JSON.parse(readFileSync(f, 'utf8')) as unknown;
    const label = basename(f).replace(/\.[^.]+$/, '');
    // mini-swe-agent: a bare message list; OpenHands: an event list (no failed calls; read as chat when it is one)
    if (Array.isArray(json) && json.every((m) => m && typeof m === 'object' && 'role' in m)) trajectories.push(...convertMiniSweAgent(json as Array<{ role?: string; content?: unknown }>, label));
    else trajectories.push(...convertFile(f).events);
  }
  return [
    { source: 'tau-bench', snapshots: snapshotsOf(tau) },
    { source: 'claude-code-viewer', snapshots: snapshotsOf(viewer) },
    { source: 'bookminder', snapshots: snapshotsOf(console) },
    { source: 'agent-trajectories', snapshots: snapshotsOf(trajectories) },
  ];
}
