/**
 * tau-bench's airline trajectories as snapshots with their real outcome: converted by the
 * OpenAI-chat importer (the path `tracehouse import` and `tracehouse analyze` take), read back as
 * direct events; `task_id`, `trial` and `reward` come from each conversation's first-message
 * metadata, as the importer records them. Shared by the step-score and world-state evaluations.
 */
import { existsSync, readFileSync } from 'node:fs';
import { snapshotsFromDirectEvents } from '../../stream/analyses/direct-input.js';
import type { ConversationSnapshot } from '../../stream/analyses/types.js';
import { convertFile } from '../../stream/import/index.js';
import { dataPath } from '../lib/data.js';

export const TAU_FILE = 'tau-bench/gpt-4o-airline.json';
/** Tasks below this id are the development split; the rest are held out. */
export const DEV_TASKS_BELOW = 25;

export interface TauCase {
  snapshot: ConversationSnapshot;
  taskId: number;
  trial: number;
  success: boolean;
  split: 'dev' | 'heldout';
}

let cached: TauCase[] | null | undefined;

export function loadTau(): TauCase[] | null {
  if (cached !== undefined) return cached;
  const path = dataPath(TAU_FILE);
  if (!existsSync(path)) return (cached = null);
  const { events } = convertFile(path);
  const meta = new Map<string, Record<string, unknown>>();
  for (const e of events) if (!meta.has(e.conversation_id) && e.metadata) meta.set(e.conversation_id, e.metadata as Record<string, unknown>);
  const { snapshots } = snapshotsFromDirectEvents(events);
  cached = snapshots.map((snapshot) => {
    const m = meta.get(snapshot.conversationId) ?? {};
    const taskId = Number(m.task_id);
    return { snapshot, taskId, trial: Number(m.trial), success: Number(m.reward) > 0.5, split: taskId < DEV_TASKS_BELOW ? 'dev' : 'heldout' };
  });
  return cached;
}

/** The raw trajectories as the file has them (for checks that must not go through our code). */
export function rawTau(): Array<{ task_id: number; trial: number; reward: number; traj: Array<Record<string, unknown>> }> | null {
  const path = dataPath(TAU_FILE);
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : null;
}
