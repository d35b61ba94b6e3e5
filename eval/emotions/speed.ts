/**
 * CPU time of the detector on real user turns: conversations of 30 messages (windows of the real
 * BookMinder transcripts) and one conversation of 2,000 messages made of the same turns, to show
 * the cost stays linear.
 */
import { detectEmotions } from '../../stream/analyses/emotions.js';
import { buildSnapshot, type StoredMessage } from '../../stream/analyses/snapshot.js';
import type { ConversationSnapshot } from '../../stream/analyses/types.js';
import { DEV_DAYS, HELDOUT_DAYS, dayPath, snapshotsOfFile } from './turns.js';

function cpuMs(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function stored(s: ConversationSnapshot): StoredMessage[] {
  return s.messages.map((m) => ({ messageId: m.messageId, role: m.role, content: m.text, blocks: m.blocks, tsMs: m.ts, threadId: m.threadId }));
}

function window(messages: readonly StoredMessage[], from: number, size: number, id: string): ConversationSnapshot {
  return buildSnapshot({ tenantId: 'bench', conversationId: id, messages: messages.slice(from, from + size) });
}

export function measureSpeed(): { conversations30: number; msPer30: number; msPer2000: number; perMessage30: number; perMessage2000: number } {
  const all = [...DEV_DAYS, ...HELDOUT_DAYS].flatMap((d) => snapshotsOfFile(dayPath(d))).flatMap(stored);
  const windows: ConversationSnapshot[] = [];
  for (let i = 0; i + 30 <= all.length; i += 30) windows.push(window(all, i, 30, `w${i}`));
  const big = window(all, 0, 2000, 'big');
  // warm up the regular expressions and the JIT before measuring
  for (const w of windows.slice(0, 50)) detectEmotions(w);
  const ms30 = cpuMs(() => {
    for (const w of windows) detectEmotions(w);
  });
  const reps = 5;
  const ms2000 = cpuMs(() => {
    for (let i = 0; i < reps; i++) detectEmotions(big);
  });
  return {
    conversations30: windows.length,
    msPer30: ms30 / windows.length,
    msPer2000: ms2000 / reps,
    perMessage30: ms30 / windows.length / 30,
    perMessage2000: ms2000 / reps / big.messages.length,
  };
}
