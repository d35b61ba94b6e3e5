/**
 * The hand labels (RULES.md): one JSON line per user turn. Each label names its message by
 * conversation, index and a verbatim prefix; a label whose prefix does not match the message it
 * names is refused, so labels cannot silently drift from the data.
 */
import { readFileSync } from 'node:fs';
import type { ConversationSnapshot, EmotionFamily } from '../../stream/analyses/types.js';
import { evalPath } from '../lib/data.js';
import { isUserTurn, prefixOf } from './turns.js';

export interface TurnLabel {
  conversation_id: string;
  message_index: number;
  prefix: string;
  frustrated: boolean;
  family?: EmotionFamily;
  signal?: string;
}

export function readLabels(file: string): TurnLabel[] {
  return readFileSync(evalPath('emotions', file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as TurnLabel);
}

export interface LabeledTurn {
  label: TurnLabel;
  snapshot: ConversationSnapshot;
}

/** Pairs labels with their snapshots; throws when a label names no user turn or its prefix differs. */
export function bindLabels(labels: readonly TurnLabel[], snapshots: readonly ConversationSnapshot[]): LabeledTurn[] {
  const byId = new Map(snapshots.map((s) => [s.conversationId, s]));
  return labels.map((label) => {
    const snapshot = byId.get(label.conversation_id);
    const m = snapshot?.messages[label.message_index];
    if (!snapshot || !m || !isUserTurn(m)) throw new Error(`label names no user turn: ${label.conversation_id} #${label.message_index}`);
    if (prefixOf(m.text) !== label.prefix) throw new Error(`label prefix differs from the message: ${label.conversation_id} #${label.message_index}`);
    return { label, snapshot };
  });
}
