/** A batch's conversations split into parts of whole tenants for analysis threads (stream/analyze/loader.ts `tenantGroups`). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tenantGroups, type ConversationKey } from '../../../stream/analyze/loader.js';

const keys = (spec: Record<string, number>): ConversationKey[] =>
  Object.entries(spec).flatMap(([tenantId, n]) => Array.from({ length: n }, (_, i) => ({ tenantId, conversationId: `${tenantId}-${i}` })));
const tenantsOf = (groups: ConversationKey[][]) => groups.map((g) => [...new Set(g.map((k) => k.tenantId))].sort());

test('every conversation in exactly one part; a tenant never split; the parts balanced by conversations', () => {
  const batch = keys({ a: 50, b: 30, c: 25, d: 5 });
  const groups = tenantGroups(batch, 2);
  assert.is(groups.length, 2);
  assert.equal(groups.flat().map((k) => k.conversationId).sort(), batch.map((k) => k.conversationId).sort());
  assert.equal(tenantsOf(groups), [['a', 'd'], ['b', 'c']]);
  assert.equal(groups.map((g) => g.length), [55, 55]);
});

test('the batch order is kept inside a part', () => {
  const batch = [...keys({ a: 2 }), ...keys({ b: 1 }), { tenantId: 'a', conversationId: 'a-late' }];
  const groups = tenantGroups(batch, 2);
  assert.equal(groups[0]!.map((k) => k.conversationId), ['a-0', 'a-1', 'a-late']);
  assert.equal(groups[1]!.map((k) => k.conversationId), ['b-0']);
});

test('one tenant, one thread or fewer tenants than threads: no more parts than tenants', () => {
  assert.is(tenantGroups(keys({ a: 10 }), 4).length, 1);
  assert.is(tenantGroups(keys({ a: 3, b: 3 }), 1).length, 1);
  assert.equal(tenantsOf(tenantGroups(keys({ a: 3, b: 2 }), 8)), [['a'], ['b']]);
  assert.equal(tenantGroups([], 2), []);
});

test('the split does not depend on the order of the tenants in the batch', () => {
  const one = tenantsOf(tenantGroups(keys({ a: 4, b: 4, c: 4, d: 1 }), 3));
  const two = tenantsOf(tenantGroups(keys({ d: 1, c: 4, b: 4, a: 4 }), 3));
  assert.equal(one, two);
});

test.run();
