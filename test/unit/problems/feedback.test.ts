/**
 * The problem feedback rules (stream/problems/feedback.ts), which every path that submits feedback
 * goes through (the data API, the fix pipeline): text limits count characters (Unicode code
 * points), the way the request schema counts them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateFeedback } from '../../../stream/problems/feedback.js';

const ID = '3f1c2b9e-8a4d-4c6e-9b2a-1d5e7f8a9b0c';
const emoji = (n: number) => '😀'.repeat(n);

test('a 2,000-character reason of emoji and 255-character name and actor are accepted', () => {
  const f = validateFeedback(ID, { action: 'dismiss', reason: emoji(2000), actor: emoji(255) });
  assert.is(f.reason, emoji(2000));
  assert.is(f.actor, emoji(255));
  assert.is(validateFeedback(ID, { action: 'rename', new_display_name: `é${emoji(254)}` }).new_display_name, `é${emoji(254)}`);
  assert.is(validateFeedback(ID, { action: 'mark_fixed', fix_ref: { short_ref: emoji(2000) } }).fix_ref?.short_ref, emoji(2000));
});

test('one character more is refused, with the field named', () => {
  assert.throws(() => validateFeedback(ID, { action: 'dismiss', reason: emoji(2001) }), /reason must be at most 2000 characters/);
  assert.throws(() => validateFeedback(ID, { action: 'rename', new_display_name: emoji(256) }), /new_display_name must be at most 255 characters/);
  assert.throws(() => validateFeedback(ID, { action: 'mark_fixed', actor: emoji(256) }), /actor must be at most 255 characters/);
  assert.throws(() => validateFeedback(ID, { action: 'mark_fixed', fix_ref: { pr_url: emoji(2001) } }), /fix_ref\.pr_url must be a string of at most 2000 characters/);
});

test.run();
