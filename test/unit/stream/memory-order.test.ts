import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { memoryOrder } from '../../../stream/analyze/state-rows.js';

/** The order the memory pass used before ranks: two key strings collated per comparison. */
function collatedOrder(keys: readonly string[], starts: readonly number[], ids: readonly string[]): number[] {
  return keys.map((_, i) => i).sort((a, b) => keys[a]!.localeCompare(keys[b]!) || starts[a]! - starts[b]! || (ids[a]! < ids[b]! ? -1 : 1));
}

/** A deterministic generator, so a failure reproduces. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

// keys as the pass builds them (`tenant \0 user`, '' without a user), with what collation treats
// specially: case, accents, a precomposed letter and its decomposed form (collated equal), digits
const USERS = ['', 'alice', 'Alice', 'bob', 'émile', 'e\u0301mile', 'zoë', 'user-10', 'user-9', 'Ünïcode', '李'];
const TENANTS = ['t1', 'T1', 'tenant-b'];

test('the batch order by ranks is the order of collating the keys per comparison, on random batches', () => {
  const next = rng(42);
  for (let round = 0; round < 300; round++) {
    const n = 1 + Math.floor(next() * 60);
    const keys: string[] = [];
    const starts: number[] = [];
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const user = USERS[Math.floor(next() * USERS.length)]!;
      keys.push(user ? `${TENANTS[Math.floor(next() * TENANTS.length)]}\u0000${user}` : '');
      // few distinct starts, so ties fall through to the conversation id
      starts.push(Math.floor(next() * 4) * 1000);
      ids.push(`c-${i}-${Math.floor(next() * 1e6)}`);
    }
    assert.equal(memoryOrder(keys, starts, ids), collatedOrder(keys, starts, ids), `round ${round}`);
  }
});

test('keys the collation holds equal share a rank: their conversations interleave by start', () => {
  const keys = ['t\u0000\u00e9mile', 't\u0000e\u0301mile', 't\u0000\u00e9mile'];
  assert.is('t\u0000\u00e9mile'.localeCompare('t\u0000e\u0301mile'), 0, 'precomposed and decomposed collate equal');
  assert.equal(memoryOrder(keys, [300, 100, 200], ['a', 'b', 'c']), [1, 2, 0]);
  // users without an id ('') come first
  assert.equal(memoryOrder(['t\u0000bob', '', 't\u0000alice'], [0, 0, 0], ['x', 'y', 'z']), [1, 2, 0]);
});

test.run();
