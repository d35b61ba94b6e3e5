/**
 * messages.content_blocks stored by reference (schemas/content-blocks.ts): whatever a message's
 * blocks are, the row the stream makes reads back as the exact JSON received. Random messages from a
 * seeded generator go through the stream's own rows (decodeMessage), and each stored row is read
 * back the way a reader reads it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mulberry32 } from '../../../core/random.js';
import { decodeMessage } from '../../../stream/batch.js';
import { decodeTable } from '../../../stream/row-bytes.js';
import { MAX_INPUT_CHARS, MAX_RESULT_CHARS } from '../../../stream/analyses/snapshot.js';
import { contentBlocksJson, parseContentBlocks } from '../../../schemas/content-blocks.js';

type Block = Record<string, unknown>;

function generator(seed: number) {
  const rand = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const words = ['run', 'the', 'tests', 'ok', 'fixed', '\n', 'é', '😀', '"quoted"', '\\', 'n', '~', '[', ''];
  const text = (max: number) => Array.from({ length: Math.floor(rand() * max) }, () => pick(words)).join(rand() < 0.5 ? ' ' : '');
  // around the columns' caps: some blocks fit, some are cut there
  const sized = (cap: number) => (rand() < 0.15 ? 'z'.repeat(cap - 2 + Math.floor(rand() * 5)) : text(12));
  const block = (i: number): Block => {
    switch (pick(['text', 'text', 'thinking', 'tool_use', 'tool_result', 'odd'] as const)) {
      case 'text':
        return rand() < 0.1 ? { text: text(8), type: 'text' } : { type: 'text', text: text(8) };
      case 'thinking':
        return { type: 'thinking', text: text(8) };
      case 'tool_use': {
        const input = pick([{ command: text(4) }, { data: sized(MAX_INPUT_CHARS) }, text(4), [1, 2, { a: null }], {}]);
        return rand() < 0.1 ? { type: 'tool_use', tool_use_id: `u${i}`, tool_name: 'Bash', input } : { type: 'tool_use', tool_name: pick(['Bash', 'Read']), tool_use_id: pick([`u${i}`, '']), input };
      }
      case 'tool_result': {
        const content = pick([sized(MAX_RESULT_CHARS), [{ type: 'text', text: text(3) }], text(3)]);
        return rand() < 0.1 ? { type: 'tool_result', content, tool_use_id: `u${i}`, is_error: false } : { type: 'tool_result', tool_use_id: `u${i}`, content, is_error: rand() < 0.3 };
      }
      default:
        // shapes a reference could be mistaken for
        return pick([{ type: 'text', n: 2 }, { type: 'tool_use', c: 0 }, { type: 'tool_result', r: 0 }, { type: 'image', source: { url: 'x' } }]);
    }
  };
  return (id: number) => {
    const blocks = Array.from({ length: Math.floor(rand() * 6) }, (_, i) => block(i));
    const texts = blocks.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string);
    // content: usually the text blocks joined (as the normalizers make it), sometimes other text
    const content = rand() < 0.75 ? texts.join('\n') : text(6);
    return { message_id: `m${id}`, role: 'assistant', content, content_blocks: blocks, format: 'standard' };
  };
}

test('random messages: every stored row reads back as the exact JSON of the blocks received', () => {
  const base = { tenant_id: 't', event_time: '2025-01-01T00:00:00.000Z', receive_time: '2025-01-01T00:00:01.000Z', conversation_id: 'c', type: 'message' };
  const forms = { '': 0, '~': 0, '[': 0 } as Record<string, number>;
  for (const seed of [1, 2, 3, 4, 5]) {
    const next = generator(seed);
    const messages = Array.from({ length: 400 }, (_, i) => next(i));
    const r = decodeMessage(JSON.stringify({ v: 1, tenant_id: 't', events: messages.map((message, i) => ({ ...base, event_id: `e${i}`, message })) }));
    assert.is(r.kind, 'ok');
    const rows = decodeTable('messages', (r as any).output.tables.messages) as Array<{ message_id: string; content: string; content_blocks: string; tool_calls: string; tool_results: string }>;
    assert.is(rows.length, messages.length);
    const sent = new Map(messages.map((m) => [m.message_id, JSON.stringify(m.content_blocks)]));
    for (const row of rows) {
      const json = sent.get(row.message_id)!;
      assert.is(contentBlocksJson(row), json, `seed ${seed} ${row.message_id}: stored ${JSON.stringify(row.content_blocks)}`);
      assert.is(JSON.stringify(parseContentBlocks(row)), json, `seed ${seed} ${row.message_id}`);
      assert.ok(row.content_blocks.length <= json.length, `${row.message_id}: never longer than the JSON`);
      forms[row.content_blocks === '' ? '' : row.content_blocks[0]!]!++;
    }
  }
  // the generator reaches every stored form
  assert.ok(forms['']! > 0 && forms['~']! > 0 && forms['[']! > 0, JSON.stringify(forms));
});

test.run();
