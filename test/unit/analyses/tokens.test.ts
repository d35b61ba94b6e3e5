import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateLazySet } from '../../../eval/laziness/generator.js';
import { contentTerms, isContentWord, stem, words } from '../../../stream/analyses/text/tokens.js';

/** What content terms are, by definition: the stemmed content words among the word tokens. */
const reference = (text: string, max = Infinity) => words(text).slice(0, max).filter(isContentWord).map(stem);

const TRICKY = [
  "Don't cancel order W7712 — it's the customer's 2nd booking; l'été, people’s, x'y'z, ab'', 'a, a'1, _snake_case_ 42 7",
  'ÀÉ\'ÿ 日本語テキスト привет\'ы ΑΒΓ αβγ עברית عربى हिन्दी 한국어 emoji 🎉 tests passed',
  'path/to/file.ts:12:3 error TS2345: Argument of type "string" is not assignable; cancelled bookings, stopped, installed',
  '',
  "trailing apostrophe' and ’curly’ quotes",
];

test('content terms are the stemmed content words of the word tokens, whatever the script', () => {
  for (const t of TRICKY) for (const max of [Infinity, 0, 1, 3, 10]) assert.equal(contentTerms(t, max), reference(t, max), `${JSON.stringify(t)} max ${max}`);
});

test('content terms of generated coding conversations match the definition', () => {
  for (const g of generateLazySet(5, 40)) for (const e of g.events) {
    const text = typeof e.message === 'string' ? e.message : JSON.stringify(e.content ?? '');
    assert.equal(contentTerms(text, 400), reference(text, 400));
  }
});

test.run();
