/**
 * The user turns of the real coding transcripts the emotion labels cover, read through the same
 * importers and snapshot builder as `tracehouse analyze`. A user turn is a user message with text
 * (tool-result-only messages are not user speech).
 */
import { basename } from 'node:path';
import { convertFile } from '../../stream/import/index.js';
import { snapshotsFromDirectEvents } from '../../stream/analyses/direct-input.js';
import type { ConversationSnapshot, SnapshotMessage } from '../../stream/analyses/types.js';
import { dataPath } from '../lib/data.js';

export const DEV_DAYS = ['002', '003', '004', '005', '006', '007', '008', '009', '010'];
export const HELDOUT_DAYS = ['017', '018', '019', '020', '021'];
export const VIEWER_SESSIONS = ['1af7fc5e-8455-4414-9ccd-011d40f70b2a', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b'];

/** Snapshots of one real file (a BookMinder day or a claude-code-viewer session). */
export function snapshotsOfFile(path: string): ConversationSnapshot[] {
  const { events } = convertFile(path);
  return snapshotsFromDirectEvents(events, { nowMs: 0 }).snapshots;
}

export const dayPath = (day: string) => dataPath('bookminder-cc-console', `day-${day}.md`);
export const viewerPath = (id: string) => dataPath('claude-code-viewer', `${id}.jsonl`);

export const isUserTurn = (m: SnapshotMessage): boolean => m.role === 'user' && m.text.trim() !== '' && m.threadId === '';

/** The short verbatim prefix that makes a label checkable against the message it names. */
export const prefixOf = (text: string): string => text.slice(0, 40);

export const fileLabel = (path: string) => basename(path);
