import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRunCache } from '../../../core/run-cache.js';

/** A cache of `n`-byte values that counts its loads per key. */
function counted(maxBytes: number) {
  const loads = new Map<string, number>();
  const cache = createRunCache<{ key: string; bytes: number }>({ maxBytes, sizeOf: (v) => v.bytes });
  const get = (key: string, bytes = 10) =>
    cache.get(key, async () => {
      loads.set(key, (loads.get(key) ?? 0) + 1);
      return { key, bytes };
    });
  return { cache, get, loads };
}

test('a cyclic pass over more keys than a count limit would hold loads each key once when the bytes fit', async () => {
  const { cache, get, loads } = counted(1000);
  for (let pass = 0; pass < 5; pass++) for (let t = 0; t < 40; t++) assert.is((await get(`t${t}`)).key, `t${t}`);
  assert.is(loads.size, 40);
  assert.ok([...loads.values()].every((n) => n === 1), 'no key loaded twice');
  assert.is(cache.size, 40);
  assert.is(cache.bytes, 400);
});

test('over the byte bound the least recently used values leave first; a hit counts as a use', async () => {
  const { cache, get, loads } = counted(30);
  await get('a');
  await get('b');
  await get('c');
  await get('a'); // a is now the most recent: b is the oldest
  await get('d');
  assert.is(cache.bytes, 30);
  await get('a');
  await get('c');
  await get('d');
  assert.equal([...loads.entries()], [['a', 1], ['b', 1], ['c', 1], ['d', 1]], 'a, c and d stayed');
  await get('b');
  assert.is(loads.get('b'), 2, 'b had left');
  assert.is(cache.bytes, 30);
});

test('a value larger than the bound stays until another is loaded', async () => {
  const { cache, get, loads } = counted(30);
  await get('small');
  await get('huge', 100);
  await get('huge', 100);
  assert.is(loads.get('huge'), 1);
  assert.is(cache.size, 1, 'the older value left to make room');
  await get('next');
  assert.is(cache.size, 1);
  assert.is(cache.bytes, 10);
});

test('callers of a key while it loads share the load; a failed load is forgotten', async () => {
  let release!: () => void;
  let calls = 0;
  const cache = createRunCache<string>({ maxBytes: 100, sizeOf: () => 1 });
  const slow = () => {
    calls++;
    return new Promise<string>((resolve) => (release = () => resolve('v')));
  };
  const both = Promise.all([cache.get('k', slow), cache.get('k', slow)]);
  release();
  assert.equal(await both, ['v', 'v']);
  assert.is(calls, 1);
  let attempts = 0;
  const failing = () => {
    attempts++;
    return Promise.reject(new Error('engine unavailable'));
  };
  await cache.get('f', failing).then(
    () => assert.unreachable('the load failed'),
    (err: Error) => assert.is(err.message, 'engine unavailable'),
  );
  await new Promise((r) => setImmediate(r));
  assert.is(await cache.get('f', async () => 'loaded'), 'loaded', 'the next call loads again');
  assert.is(attempts, 1);
});

test('a value still loading is not evicted to make room', async () => {
  let release!: (v: number) => void;
  const cache = createRunCache<number>({ maxBytes: 10, sizeOf: (v) => v });
  const pending = cache.get('loading', () => new Promise<number>((r) => (release = r)));
  await cache.get('big', async () => 50);
  let reloaded = false;
  release(5);
  assert.is(await pending, 5);
  await new Promise((r) => setImmediate(r));
  assert.is(await cache.get('loading', async () => ((reloaded = true), 5)), 5);
  assert.not.ok(reloaded, 'the value that was loading is held');
});

test.run();
