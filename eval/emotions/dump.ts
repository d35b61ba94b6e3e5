/**
 * Prints the user turns of real transcripts with what preceded them (the agent's last words and
 * the calls that failed since the previous turn), for labeling by reading:
 * `node dist/eval/emotions/dump.js 002 017 …` (BookMinder days) or a claude-code-viewer session id.
 * It never runs the detector, so labels are made without seeing its output.
 */
import { DEV_DAYS, HELDOUT_DAYS, VIEWER_SESSIONS, dayPath, isUserTurn, prefixOf, snapshotsOfFile, viewerPath } from './turns.js';

const args = process.argv.slice(2);
const names = args.length ? args : [...DEV_DAYS, ...HELDOUT_DAYS, ...VIEWER_SESSIONS];
const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n) + '…' : s);

for (const name of names) {
  const path = /^\d{3}$/.test(name) ? dayPath(name) : viewerPath(name);
  for (const s of snapshotsOfFile(path)) {
    process.stdout.write(`\n######## ${s.conversationId} (${s.messages.length} messages)\n`);
    let prevUser = -1;
    for (const m of s.messages) {
      if (!isUserTurn(m)) continue;
      const before = s.messages.slice(prevUser + 1, m.index).filter((x) => x.role === 'assistant' && x.text.trim());
      const last = before[before.length - 1];
      const failed = s.toolCalls.filter((c) => c.position > prevUser && c.position < m.index && c.success === false);
      process.stdout.write(`\n--- [${m.index}] prefix=${JSON.stringify(prefixOf(m.text))}\n`);
      if (last) process.stdout.write(`  agent: ${clip(last.text.replace(/\s+/g, ' '), 200)}\n`);
      for (const c of failed) process.stdout.write(`  failed ${c.toolName}: ${clip(c.resultText.replace(/\s+/g, ' '), 120)}\n`);
      const lines = m.text.split('\n');
      // long pastes: the head and the tail carry the user's own words; the middle is elided
      const shown = lines.length > 16 ? [...lines.slice(0, 10), `… ${lines.length - 14} lines …`, ...lines.slice(-4)] : lines;
      process.stdout.write(shown.map((l) => `  | ${clip(l, 400)}`).join('\n') + '\n');
      prevUser = m.index;
    }
  }
}
