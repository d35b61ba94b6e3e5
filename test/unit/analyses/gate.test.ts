import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateConversations } from '../../../eval/emotions/generator.js';
import { generateLazySet } from '../../../eval/laziness/generator.js';
import { CUES } from '../../../stream/analyses/emotions/lexicon.js';
import { CODE_RULES, COMPLETION_CLAIM, CODE_REQUEST, PROSE_RULES, SKIP_MARKER, TEST_REQUEST, TRUNCATED_RESULT } from '../../../stream/analyses/laziness-patterns.js';
import { LiteralGates, requiredLiterals } from '../../../stream/analyses/text/gate.js';

test('required literals: optional words grow the literal, alternations take one per branch', () => {
  assert.equal(requiredLiterals(/\bi (?:already )?told you\b/i), ['i already told you', 'i told you']);
  assert.equal(requiredLiterals(/\bthe (hell|heck)\b|\bffs\b/gi), ['the hell', 'the heck', 'ffs']);
  // a repeated character: "abc" and "cdef" are known ("abccdef"), not "abcdef"; the longer wins
  assert.equal(requiredLiterals(/abc+def/), ['cdef']);
  assert.equal(requiredLiterals(/\bw\.?t\.?f\b/i)!.sort(), ['w.t.f', 'w.tf', 'wt.f', 'wtf']);
  // nothing of three characters required: no gate
  assert.is(requiredLiterals(/\b\w+ed\b/), null);
  assert.is(requiredLiterals(/foo|\d+/), null);
  assert.is(requiredLiterals(/(?:abc)?x/), null);
  // wider case folding under the u flag: not gated
  assert.is(requiredLiterals(/hello/iu), null);
});

test('a gate closes only on texts the pattern cannot match, whatever the case', () => {
  // a case-sensitive pattern with letters is not gated; "zzz+" needs "zzz" in any case
  const gates = new LiteralGates([/\bi (?:already )?told you\b/i, /@Disabled\b/, /\btodo!\(\)/i, /zzz+/i]);
  const may = (t: string) => [...gates.scan(t)];
  assert.equal(may('As I TOLD YOU before'), [1, 1, 0, 0]);
  assert.equal(may('I already Told You'), [1, 1, 0, 0]);
  assert.equal(may('i told  you'), [0, 1, 0, 0]);
  assert.equal(may('    TODO!() here, zzzz'), [0, 1, 1, 1]);
});

/** Texts that exercise the patterns: generated turns and agent replies, and every literal in capitals. */
function corpus(patterns: readonly RegExp[]): string[] {
  const texts: string[] = [];
  for (const e of generateConversations(7, 60).events) if (typeof e.message === 'string') texts.push(e.message);
  for (const g of generateLazySet(3, 60)) for (const e of g.events) texts.push(typeof e.message === 'string' ? e.message : JSON.stringify(e.content ?? ''));
  for (const re of patterns) for (const l of requiredLiterals(re) ?? []) texts.push(`so ${l} now`, `SO ${l.toUpperCase()}!`, `${l.slice(0, -1)} ${l.slice(-1)}`);
  return texts;
}

test('on the analyses\' own patterns, a gate never closes on a text the pattern matches', () => {
  const patterns = [...CUES.map((c) => c.re), ...PROSE_RULES.map((r) => r.re), ...CODE_RULES.map((r) => r.re), COMPLETION_CLAIM, CODE_REQUEST, TEST_REQUEST, SKIP_MARKER, TRUNCATED_RESULT];
  const gates = new LiteralGates(patterns);
  let checked = 0;
  let skipped = 0;
  for (const text of corpus(patterns)) {
    const may = gates.scan(text);
    patterns.forEach((re, k) => {
      const matches = new RegExp(re.source, re.flags.replace('g', '')).test(text);
      if (matches) assert.ok(may[k], `${re.source.slice(0, 60)} matches ${JSON.stringify(text.slice(0, 80))} but its gate closed`);
      checked++;
      if (!may[k]) skipped++;
    });
  }
  // and it does skip most of them
  assert.ok(skipped > checked / 2, `${skipped} of ${checked} skipped`);
});

test.run();
