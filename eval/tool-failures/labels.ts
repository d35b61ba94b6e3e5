/** The hand-made labels (labels.jsonl) joined to the failed calls of the sources. */
import { existsSync, readFileSync } from 'node:fs';
import type { FailureFamily, SnapshotToolCall } from '../../stream/analyses/types.js';
import { evalPath } from '../lib/data.js';
import { isFailed, type SourceName, type SourceSnapshots } from './sources.js';

export interface Label {
  source: SourceName;
  conversation: string;
  key: string;
  tool: string;
  error_prefix: string;
  template: string;
  family: FailureFamily;
}

export interface LabeledFailure {
  source: SourceName;
  conversation: string;
  call: SnapshotToolCall;
  label: Label;
  /** Part of the held-out split (RULES.md). */
  heldOut: boolean;
}

export function readLabels(): Label[] {
  const file = evalPath('tool-failures', 'labels.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Label);
}

const labelKey = (source: string, conversation: string, key: string) => `${source}\u0000${conversation}\u0000${key}`;

/** RULES.md "Held-out split". */
export function isHeldOut(source: SourceName, conversation: string): boolean {
  if (source === 'bookminder') return !/^day-0(0\d|10)\b/.test(conversation);
  if (source === 'tau-bench') return /trial-[23]$/.test(conversation);
  if (source === 'claude-code-viewer') return !conversation.startsWith('fe5e1c67');
  return true;
}

/** Every failed call with its label; calls without a label are counted apart. */
export function joinLabels(sources: readonly SourceSnapshots[], labels: readonly Label[]): { labeled: LabeledFailure[]; unlabeled: number } {
  const byKey = new Map(labels.map((l) => [labelKey(l.source, l.conversation, l.key), l]));
  const labeled: LabeledFailure[] = [];
  let unlabeled = 0;
  for (const s of sources) {
    for (const snap of s.snapshots) {
      for (const call of snap.toolCalls) {
        if (!isFailed(call)) continue;
        const label = byKey.get(labelKey(s.source, snap.conversationId, call.key));
        if (label) labeled.push({ source: s.source, conversation: snap.conversationId, call, label, heldOut: isHeldOut(s.source, snap.conversationId) });
        else unlabeled++;
      }
    }
  }
  return { labeled, unlabeled };
}
