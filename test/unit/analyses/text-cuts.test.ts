/**
 * Texts the analyses cut (summaries, quotes, labels, segment texts) never end or start inside a
 * surrogate pair: the store refuses half of one, and with it the whole insert of a batch.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { capText, cutAtWord, sliceText } from '../../../stream/analyses/text/prose.js';
import { runAnalysisWork } from '../../../stream/analyze/work.js';
import type { MessageRowIn } from '../../../stream/analyze/work-items.js';

const wellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed();
const SMILE = '\u{1F600}';
const ASTRAL_LETTER = '\u{1D400}'; // MATHEMATICAL BOLD CAPITAL A: a letter, two UTF-16 units
/** Words, emoji and astral letters, so that every position is tried against every kind of unit. */
const dense = (shift: number) => 'a'.repeat(shift) + Array.from({ length: 60 }, (_, i) => (i % 5 === 0 ? 'word ' : i % 3 ? SMILE : ASTRAL_LETTER)).join('');

test('sliceText, capText and cutAtWord keep whole pairs at every cut, and stay within the bound', () => {
  for (let shift = 0; shift < 4; shift++) {
    const t = dense(shift);
    for (let a = 0; a <= t.length; a++) {
      const cap = capText(t, a);
      assert.ok(wellFormed(cap) && cap.length <= a && cap.length >= a - 1, `capText at ${a}`);
      assert.ok(t.startsWith(cap));
      const cut = cutAtWord(t, a);
      assert.ok(wellFormed(cut) && cut.length <= a, `cutAtWord at ${a}: ${JSON.stringify(cut)}`);
      for (let b = a; b <= t.length; b += 7) {
        const s = sliceText(t, a, b);
        assert.ok(wellFormed(s) && s.length <= b - a + 1 && t.includes(s), `sliceText ${a}..${b}`);
      }
    }
  }
  // a cut that falls on a boundary is the plain slice
  assert.is(sliceText(`ab${SMILE}cd`, 2, 4), SMILE);
  assert.is(capText(`ab${SMILE}cd`, 3), 'ab');
  assert.is(cutAtWord('plain words only here', 12), 'plain words…');
});

const T0 = Date.parse('2025-06-01T10:00:00.000Z');
const msg = (id: string, i: number, role: string, content: string, calls: unknown[] = [], results: unknown[] = []): MessageRowIn => ({
  message_id: id, role, content, tool_calls: JSON.stringify(calls), tool_results: JSON.stringify(results), ts_ms: String(T0 + i * 1000), thread_id: '',
});

test('an analysis batch of emoji-dense conversations writes only well-formed text, in every table', () => {
  const seen = new Set<string>();
  for (let shift = 0; shift < 24; shift++) {
    const long = () => dense(shift);
    const messages = [
      msg('m0', 0, 'user', `${long()} please fix the failing test in src/app.ts, I am frustrated ${long()}`),
      msg('m1', 1, 'assistant', `I fixed it ${long()} all tests pass now ${long()}`, [{ id: 'x', name: 'Bash', input: JSON.stringify({ command: `npm test ${long()}` }) }]),
      msg('m2', 2, 'user', '', [], [{ tool_use_id: 'x', content: `Error: ${long()}`, is_error: true }]),
      msg('m3', 3, 'assistant', `TODO: implement the rest later ${long()}`),
      msg('m4', 4, 'user', `no, that is wrong ${long()}`),
    ];
    const aggregate = { events: 5, environment: 'production', user_id: 'u1', agent: 'direct', message_count: 5, first_ts: '2025-06-01T10:00:00.000Z', last_ts: '2025-06-01T10:00:04.000Z', input_tokens: 0, output_tokens: 0, cost_usd: 0, api_request_count: 0, api_error_count: 0, thread_count: 0, summary: '' };
    const out = runAnalysisWork({ version: 1, items: [{ tenantId: 't', conversationId: `c${shift}`, messages, calls: [], aggregate, state: [], toolState: [] }] });
    for (const [table, rows] of Object.entries(out.tables)) {
      for (const row of rows) {
        for (const [column, v] of Object.entries(row)) {
          for (const s of Array.isArray(v) ? v : [v]) {
            if (typeof s !== 'string') continue;
            seen.add(`${table}.${column}`);
            assert.ok(wellFormed(s), `${table}.${column} of c${shift}: ${JSON.stringify(s.slice(-40))}`);
          }
        }
      }
    }
  }
  // the texts that used to be cut inside a pair were among those checked
  for (const c of ['conversations.summary', 'conversation_summaries.summary', 'segment_texts.text']) assert.ok(seen.has(c), c);
});

test.run();
