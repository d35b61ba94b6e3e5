import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../../core/paths.js';
import { redact, redactDeep, REDACTED } from '../../../ingest/redact/redact.js';
import { capBytes, LIMITS } from '../../../ingest/redact/cap.js';

const dir = join(projectRoot, 'test', 'fixtures', 'redaction');
const secrets = JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8')) as Array<{ text: string; secret: string }>;
const prose = JSON.parse(readFileSync(join(dir, 'prose.json'), 'utf8')) as string[];

test('the corpus has at least 60 secret-bearing and 60 prose strings', () => {
  assert.ok(secrets.length >= 60, `${secrets.length} secrets`);
  assert.ok(prose.length >= 60, `${prose.length} prose`);
});

test('every secret value is removed from every secret-bearing string', () => {
  const missed = secrets.filter((s) => redact(s.text).includes(s.secret)).map((s) => `${s.text} -> ${redact(s.text)}`);
  assert.equal(missed, [], `survived:\n${missed.join('\n')}`);
  for (const s of secrets) assert.ok(redact(s.text).includes(REDACTED), s.text);
});

test('no prose string is changed', () => {
  const changed = prose.filter((p) => redact(p) !== p).map((p) => `${p} -> ${redact(p)}`);
  assert.equal(changed, [], `changed:\n${changed.join('\n')}`);
});

test('redaction keeps the key and is idempotent', () => {
  assert.is(redact('PASSWORD=hunter22 ./run'), `PASSWORD=${REDACTED} ./run`);
  for (const s of secrets) assert.is(redact(redact(s.text)), redact(s.text));
});

test('redactDeep masks secret-named keys and strings inside objects', () => {
  const out = redactDeep({ command: 'export TOKEN=abc123def', nested: { password: 'x1', input_tokens: '12' }, list: ['Bearer abcdef123456'] });
  assert.equal(out, { command: `export TOKEN=${REDACTED}`, nested: { password: REDACTED, input_tokens: '12' }, list: [`Bearer ${REDACTED}`] });
});

test('redactDeep reaches every depth without recursion: 60, 128 and 100,000 levels', () => {
  for (const depth of [60, 128, 100_000]) {
    let value: unknown = { password: 'hunter2-x', note: 'export API_TOKEN=abc123def456', list: ['Bearer abcdef123456'] };
    for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { [`k${i}`]: value };
    let out = redactDeep(value);
    let levels = 0;
    while (out && typeof out === 'object' && !('note' in out)) {
      out = Array.isArray(out) ? out[0] : Object.values(out)[0];
      levels++;
    }
    assert.is(levels, depth);
    assert.equal(out, { password: REDACTED, note: `export API_TOKEN=${REDACTED}`, list: [`Bearer ${REDACTED}`] }, `depth ${depth}`);
  }
});

test('redactDeep with a cap cuts every text inside after redaction, keeping the structure', () => {
  const out = redactDeep({ command: `TOKEN=abc123def ${'x'.repeat(5000)}`, n: 7, argv: ['bash', '-lc', '€'.repeat(2000)], nested: { message: 'short' } }, 4096) as Record<string, unknown>;
  assert.is(out['command'], `TOKEN=${REDACTED} ${'x'.repeat(4096 - 7 - REDACTED.length)}`);
  assert.equal([out['n'], (out['argv'] as string[]).slice(0, 2), out['nested']], [7, ['bash', '-lc'], { message: 'short' }]);
  assert.is((out['argv'] as string[])[2], '€'.repeat(1365), 'cut on a character boundary');
});

test('capBytes cuts on a UTF-8 boundary and marks truncation', () => {
  assert.equal(capBytes('abc', 3), { text: 'abc', truncated: false });
  const euro = '€'.repeat(10); // 3 bytes each
  const c = capBytes(euro, 8);
  assert.is(c.text, '€€');
  assert.ok(c.truncated);
  const emoji = '😀'.repeat(3000);
  const p = capBytes(emoji, LIMITS.promptBytes);
  assert.ok(Buffer.byteLength(p.text) <= LIMITS.promptBytes);
  assert.is(p.text, '😀'.repeat(2048));
  assert.not.ok(p.text.includes('\ufffd'));
});

test('interleaved texts, repeated and equal-but-distinct strings, each get their own result', () => {
  // normalization redacts the same text twice in a row; the answer must never leak across texts
  const texts = [...secrets.slice(0, 6).map((s) => s.text), ...prose.slice(0, 6)];
  const expected = texts.map((t) => redact(t));
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < texts.length; i++) {
      const t = round === 1 ? ` ${texts[i]}`.slice(1) : texts[i]!; // equal content, another string
      assert.is(redact(t), expected[i], t);
      assert.is(redact(t), expected[i], `${t} (again)`);
    }
    texts.reverse();
    expected.reverse();
  }
});

test.run();
