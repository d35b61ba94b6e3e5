import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { messageToolParts, truncate } from '../../../query/message-parts.js';
import { formatSnippet } from '../../../query/repo/search.js';
import { trendPct } from '../../../query/routes/overview.js';
import { ratePct, shapeStats } from '../../../query/routes/tool-failures.js';
import { isoTimestamp, timeRangeStartMs, utcDays } from '../../../query/time.js';

test('truncate keeps short text and cuts long text to the limit with an ellipsis', () => {
  assert.is(truncate('abc', 5), 'abc');
  assert.is(truncate('abcdef', 5), 'abcd…');
  assert.is(Array.from(truncate('😀'.repeat(10), 5)).length, 5);
});

test('tool parts from the stored columns, falling back to content blocks', () => {
  const stored = messageToolParts({
    content: '',
    tool_calls: JSON.stringify([{ id: 'c1', name: 'Read', input: '{"path":"a"}' }]),
    tool_results: JSON.stringify([{ tool_use_id: 'c1', content: 'ok', is_error: false }]),
    content_blocks: '[]',
  });
  assert.equal(stored, { tool_calls: [{ id: 'c1', name: 'Read', input: '{"path":"a"}' }], tool_results: [{ tool_use_id: 'c1', content: 'ok', is_error: false }] });
  const blocks = messageToolParts({
    content: '',
    tool_calls: '',
    tool_results: 'not json',
    content_blocks: JSON.stringify([
      { type: 'tool_use', tool_use_id: 'c2', tool_name: 'Bash', input: { command: 'ls' } },
      { type: 'tool_result', tool_use_id: 'c2', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }], is_error: true },
    ]),
  });
  assert.equal(blocks, { tool_calls: [{ id: 'c2', name: 'Bash', input: '{"command":"ls"}' }], tool_results: [{ tool_use_id: 'c2', content: 'a\nb', is_error: true }] });
  // blocks stored elided (one text block, the content itself) have no tool parts
  assert.equal(messageToolParts({ content: 'done', tool_calls: '[]', tool_results: '[]', content_blocks: '' }), { tool_calls: [], tool_results: [] });
});

test('snippets fold whitespace and mark cut ends', () => {
  assert.is(formatSnippet(' a\n\n b ', false, false), 'a b');
  assert.is(formatSnippet('mid', true, true), '…mid…');
});

test('trend and rates: one decimal, 0 on an empty base', () => {
  assert.is(trendPct(5, 0), 0);
  assert.is(trendPct(3, 2), 50);
  assert.is(trendPct(1, 3), -66.7);
  assert.is(ratePct(1, 3), 33.3);
  assert.is(ratePct(0, 0), 0);
});

test('time helpers', () => {
  assert.is(timeRangeStartMs('all', 1_000_000), 0);
  assert.is(timeRangeStartMs('1h', 10_000_000), 10_000_000 - 3_600_000);
  assert.equal(utcDays(Date.UTC(2024, 0, 30, 23), Date.UTC(2024, 1, 2, 1)), ['2024-01-30', '2024-01-31', '2024-02-01', '2024-02-02']);
  assert.is(isoTimestamp('2024-05-01 10:00:00.123'), '2024-05-01T10:00:00.123Z');
  assert.is(isoTimestamp('2024-05-01T10:00:00.123Z'), '2024-05-01T10:00:00.123Z');
});

test('tool stats: ordering and zero-filled timeline', () => {
  const row = (dim: any, extra: any) => ({ dim, tool: '', effect: '', day: '', calls: 0, failures: 0, conversations: 0, tools: 0, last_failure_at: null, example_errors: [], ...extra });
  const s = shapeStats(
    [row('tool', { tool: 'b', calls: 2, failures: 1 }), row('tool', { tool: 'a', calls: 5, failures: 1 }), row('day', { day: '2024-01-02', calls: 7, failures: 2 }), row('total', { calls: 7, failures: 2, tools: 2 })],
    Date.UTC(2024, 0, 1, 12),
    Date.UTC(2024, 0, 3, 12),
  );
  assert.equal(s.tools.map((t) => t.tool_name), ['a', 'b']);
  assert.equal(s.timeline, [
    { date: '2024-01-01', calls: 0, failures: 0 },
    { date: '2024-01-02', calls: 7, failures: 2 },
    { date: '2024-01-03', calls: 0, failures: 0 },
  ]);
  assert.equal(s.totals, { calls: 7, failures: 2, failure_rate_pct: 28.6, conversations: 0, tools: 2 });
});

test.run();
