import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createCoverage, createHeldJobs, firstRunMs, noteAnalyzed, reanalysisSpacing } from '../../../stream/analyze/held-jobs.js';
import { mulberry32 } from '../../../core/random.js';

const held = (maxDeferMs = 30_000, notBefore?: (key: string) => number | undefined) => createHeldJobs<string>({ maxDeferMs, notBefore });
/** Adds a job before any is due (`nowMs` 0): nothing is superseded. */
const add = (h: ReturnType<typeof held>, item: string, key: string, dueMs: number, nowMs = 0) => h.add({ key, dueMs, item }, nowMs);

test('without lag: due jobs run earliest first, jobs not yet due stay held', () => {
  const h = held();
  add(h, 'b1', 'b', 200);
  add(h, 'a1', 'a', 100);
  add(h, 'c1', 'c', 1_000);
  assert.equal(h.take(50, false, 10), []);
  assert.is(h.nextRunMs(false), 100);
  assert.equal(h.take(500, false, 10), ['b1', 'a1']);
  assert.is(h.size, 1);
  assert.is(h.nextRunMs(false), 1_000);
  assert.equal(h.take(1_000, false, 10), ['c1']);
  assert.is(h.nextRunMs(false), undefined);
  assert.is(h.stats.deferredTotal, 0);
});

test('only eligible conversations are taken (not those in flight): the others\' due jobs stay held for a later batch', () => {
  const h = held();
  add(h, 'a1', 'a', 100);
  add(h, 'b1', 'b', 200);
  add(h, 'c1', 'c', 300);
  const inFlight = new Set(['a', 'c']);
  assert.equal(h.take(500, false, 10, (k) => !inFlight.has(k)), ['b1']);
  assert.is(h.size, 2);
  assert.is(h.dueCount(500), 2, 'still due');
  assert.equal(h.take(600, false, 1, (k) => k !== 'c'), ['a1'], 'the batch limit counts the conversations taken only');
  assert.equal(h.take(700, false, 10, (k) => k === 'c'), ['c1']);
  assert.is(h.size, 0);
});

test('runnableKeys counts the conversations take would return: two due jobs of one conversation once, none waiting for its spacing, lag or eligibility', () => {
  const spaced = new Set(['s']);
  const h = held(30_000, (k) => (spaced.has(k) ? 10_000 : undefined));
  // two jobs of `a` arrive before either is due (as through a lag): no merge, two due jobs later
  add(h, 'a1', 'a', 100);
  add(h, 'a2', 'a', 200);
  add(h, 'b1', 'b', 100);
  add(h, 's1', 's', 100);
  add(h, 'c1', 'c', 5_000);
  assert.is(h.dueCount(1_000), 4, 'jobs due');
  assert.is(h.runnableKeys(1_000, false, 10), 2, 'a and b: s waits for its spacing, c is not due');
  assert.is(h.runnableKeys(1_000, false, 1), 1, 'counted up to the limit');
  assert.is(h.runnableKeys(1_000, false, 10, (k) => k !== 'a'), 1, 'only eligible ones');
  assert.is(h.runnableKeys(1_000, true, 10), 0, 'held by the lag');
  assert.is(h.runnableKeys(10_000, false, 10), 4);
  assert.is(h.take(1_000, false, 10).length, 3, 'take agrees: a1, a2 and b1 (two conversations)');
});

test('noteAnalyzed: the jobs held meanwhile that the analysis covered leave the held set; later ones and other conversations stay', () => {
  const h = held();
  const published: Record<string, number> = { a1: 900, a2: 1_400, b1: 900 };
  add(h, 'a1', 'a', 1_000);
  add(h, 'a2', 'a', 1_500);
  add(h, 'b1', 'b', 1_000);
  const c = createCoverage({ marginMs: 0, maxEntries: 10 });
  c.noteDelivery(0, 0);
  const covered = noteAnalyzed(c, h, new Map([['a', 4]]), 1_000, 1_200, (item) => published[item]!);
  assert.equal(covered, ['a1'], 'published before the load at 1 s');
  assert.is(h.size, 2);
  assert.equal(h.take(2_000, false, 10), ['a2', 'b1']);
  assert.equal(h.remove('a', () => true), [], 'nothing left to remove');
});

test('while lagging: due jobs are held and counted once; they all run when the lag clears', () => {
  const h = held();
  add(h, 'a1', 'a', 100);
  add(h, 'b1', 'b', 200);
  add(h, 'c1', 'c', 5_000);
  assert.equal(h.take(1_000, true, 10), []);
  assert.equal(h.take(2_000, true, 10), []);
  assert.is(h.stats.deferredTotal, 2, 'c is not due: not deferred');
  assert.is(h.dueCount(2_000), 2);
  assert.is(h.nextRunMs(true), 30_100, 'the earliest deferral bound');
  assert.equal(h.take(3_000, false, 10), ['a1', 'b1']);
  assert.is(h.stats.maxDeferralMs, 2_900);
  assert.is(h.size, 1);
});

test('a continuous lag still runs a job once it has been due for the max deferral', () => {
  const h = held(1_000);
  add(h, 'a1', 'a', 100);
  add(h, 'b1', 'b', 600);
  assert.equal(h.take(500, true, 10), []);
  assert.equal(h.take(1_099, true, 10), []);
  assert.equal(h.take(1_100, true, 10), ['a1']);
  assert.equal(h.take(1_599, true, 10), []);
  assert.equal(h.take(1_600, true, 10), ['b1']);
  assert.is(h.stats.maxDeferralMs, 1_000);
  assert.is(h.stats.deferredTotal, 2);
});

test('a batch takes every due job of the conversations it analyzes, bounded by conversations', () => {
  const h = held(1_000);
  add(h, 'a1', 'a', 100);
  add(h, 'b1', 'b', 150);
  add(h, 'a2', 'a', 600);
  add(h, 'c1', 'c', 700);
  add(h, 'a3', 'a', 5_000);
  // lagging: only a1 is past its bound, but a2 (due, deferred) goes with it; a3 is not due yet
  assert.equal(h.take(1_100, true, 10), ['a1', 'a2']);
  assert.equal(h.take(1_200, false, 1), ['b1']);
  assert.equal(h.take(1_200, false, 5), ['c1']);
  assert.is(h.size, 1);
});

test('maxDeferMs 0 never holds a due job; clear hands back every job with its due time', () => {
  const h = held(0);
  add(h, 'a1', 'a', 100);
  add(h, 'b1', 'b', 9_000);
  assert.equal(h.take(100, true, 10), ['a1']);
  assert.equal(h.clear(), [{ key: 'b', dueMs: 9_000, item: 'b1' }]);
  assert.is(h.size, 0);
  assert.equal([...h.items()], []);
});

test('coverage: a job published before a snapshot since analyzed is covered; one published after, or of another conversation, is not', () => {
  const c = createCoverage({ marginMs: 250, maxEntries: 10 });
  c.noteDelivery(1_005, 1_000); // clocks agree within 5 ms
  assert.is(c.covers('a', 1_000), false, 'nothing analyzed yet');
  c.noteLoaded('a', 10_000);
  assert.is(c.covers('a', 9_000), true);
  assert.is(c.covers('a', 9_800), false, 'within the margin');
  assert.is(c.covers('a', 10_500), false, 'published after the load: a change the snapshot may not hold');
  assert.is(c.covers('b', 1_000), false);
});

test('coverage: a clock ahead of the server moves the load time back by the smallest receive delay seen', () => {
  const c = createCoverage({ marginMs: 0, maxEntries: 10 });
  assert.is(c.covers('a', 0), false, 'no delivery seen: no estimate of the clocks, never covered');
  c.noteDelivery(5_000, 2_000); // this clock ahead by up to 3 s
  c.noteLoaded('a', 10_000);
  assert.is(c.covers('a', 6_500), true);
  assert.is(c.covers('a', 7_500), false, 'could have been published after the load in server time');
  c.noteDelivery(4_000, 3_500); // a faster delivery: the skew is at most 500 ms
  assert.is(c.covers('a', 7_500), true);
});

test('coverage: bounded, the least recently loaded forgotten first', () => {
  const c = createCoverage({ marginMs: 0, maxEntries: 2 });
  c.noteDelivery(0, 0);
  c.noteLoaded('a', 100);
  c.noteLoaded('b', 100);
  c.noteLoaded('a', 200);
  c.noteLoaded('c', 100);
  assert.is(c.covers('b', 0), false, 'forgotten: analyzed again, never skipped');
  assert.is(c.covers('a', 0), true);
  assert.is(c.covers('c', 0), true);
});

test('due jobs of one conversation: the latest due is kept, waiting since the earliest; the others are handed back to ack', () => {
  const h = held(1_000);
  assert.equal(add(h, 'a1', 'a', 100, 50), [], 'not due yet: kept as it is');
  assert.equal(add(h, 'b1', 'b', 120, 50), []);
  assert.equal(add(h, 'a2', 'a', 600, 700), ['a1'], 'a1 is due: superseded by a2');
  assert.equal(add(h, 'a3', 'a', 5_000, 700), [], 'a3 is not due: its window is still open, it stays on its own');
  assert.is(h.size, 3);
  // while lagging, the kept job is bound by the earliest due time it stands for (a1's), not its own
  assert.equal(h.take(1_099, true, 10), []);
  assert.equal(h.take(1_100, true, 10), ['a2'], 'bound by a1: due 100');
  assert.is(h.stats.maxDeferralMs, 1_000);
  assert.equal(h.take(1_119, true, 10), []);
  assert.equal(h.take(1_120, true, 10), ['b1']);
  assert.equal(h.take(5_000, false, 10), ['a3']);
});

test('a job superseded on arrival is handed back itself when the one held is due later', () => {
  const h = held();
  add(h, 'a2', 'a', 600, 0);
  assert.equal(add(h, 'a1', 'a', 100, 700), ['a1'], 'a redelivered older job: a2 already stands for it');
  assert.equal(h.take(700, false, 10), ['a2']);
});

test('spacing: a conversation analyzed recently waits until notBefore, never past the deferral bound; others run when due', () => {
  let spaced: Record<string, number> = { long: 20_000, short: 50 };
  const h = held(30_000, (key) => spaced[key]);
  add(h, 'long1', 'long', 1_000);
  add(h, 'short1', 'short', 1_000);
  add(h, 'new1', 'new', 1_000);
  assert.equal(h.take(1_000, false, 10), ['short1', 'new1'], 'short: its spacing already passed; new: never analyzed');
  assert.is(h.nextRunMs(false), 20_000);
  assert.equal(h.take(19_999, false, 10), []);
  assert.equal(h.take(20_000, false, 10), ['long1']);
  // a spacing beyond the bound is cut to it
  spaced = { long: 90_000 };
  add(h, 'long2', 'long', 40_000);
  assert.is(h.nextRunMs(false), 70_000, 'due 40,000 + the 30,000 bound');
  assert.equal(h.take(70_000, false, 10), ['long2']);
});

test('spacing: the jobs of a growing conversation collapse while it waits: one due, one in its window', () => {
  const h = held(30_000, () => 10_000);
  const acked: string[] = [];
  // job w is published during its window and due at its end (w × 500), as the publisher makes them
  for (let w = 1; w <= 8; w++) acked.push(...add(h, `j${w}`, 'a', w * 500, (w - 1) * 500 + 100));
  assert.is(h.size, 2, 'j7 (due, waiting for the spacing) and j8 (not due yet)');
  assert.equal(acked, ['j1', 'j2', 'j3', 'j4', 'j5', 'j6']);
  assert.equal(h.take(9_999, false, 10), []);
  assert.equal(h.take(10_000, false, 10), ['j7', 'j8']);
});

test('spacing: proportional to the messages of the last snapshot, capped; applied once a conversation is growing', () => {
  const spacing = reanalysisSpacing(10, 30_000);
  assert.is(spacing(35), 350);
  assert.is(spacing(2_000), 20_000);
  assert.is(spacing(50_000), 30_000);
  const c = createCoverage({ marginMs: 0, maxEntries: 10, spacingMs: spacing, growingGapMs: 30_000 });
  assert.is(c.notBefore('a'), undefined, 'never analyzed here');
  c.noteLoaded('a', 1_000, 2_000);
  assert.is(c.notBefore('a'), undefined, 'analyzed once: one more change is analyzed as soon as due');
  c.noteLoaded('a', 5_000, 2_010);
  assert.is(c.notBefore('a'), 25_100, 'analyzed again 4 s later: growing, spaced by its 2,010 messages');
  c.noteLoaded('a', 25_200, 2_020);
  assert.is(c.notBefore('a'), 45_400, 'still growing');
  c.noteLoaded('a', 25_200 + 20_200 + 30_001, 2_030);
  assert.is(c.notBefore('a'), undefined, 'quiet for longer than its spacing and the gap: no longer growing');
  const off = createCoverage({ marginMs: 0, maxEntries: 10 });
  off.noteLoaded('a', 1_000, 2_000);
  assert.is(off.notBefore('a'), undefined, 'no spacing configured');
});

test('spacing: counted from the end of the analysis, so a batch slower than the spacing still leaves a growing conversation waiting', () => {
  // 150 messages: 1.5 s of spacing; each analysis (load to written) takes 2 s, longer than that
  const c = createCoverage({ marginMs: 0, maxEntries: 10, spacingMs: reanalysisSpacing(10, 30_000), growingGapMs: 30_000 });
  c.noteLoaded('long', 0, 150, 2_000);
  c.noteLoaded('long', 2_100, 151, 4_100);
  assert.is(c.notBefore('long'), 4_100 + 1_510, 'written at 4.1 s: not before 5.61 s, not at once (a load at 2.1 s plus 1.51 s is already past)');
  c.noteLoaded('long', 5_700, 152, 7_700);
  assert.is(c.notBefore('long'), 7_700 + 1_520, 'still growing: its load came within the spacing of the previous end');
  // the covered-job rule still reads the load time: a job published after the load is not covered
  c.noteDelivery(10, 10);
  assert.ok(c.covers('long', 5_600), 'published before the last load');
  assert.not.ok(c.covers('long', 5_800), 'published after the last load (and before its end): not covered');
  // an end before the load (a clock stepped back) counts as the load
  c.noteLoaded('short', 1_000, 10, 500);
  c.noteLoaded('short', 1_050, 10, 400);
  assert.is(c.notBefore('short'), 1_050 + 100);
});


/**
 * The rule of `add` and `take` stated over one plain list of jobs (scanned whole at every step):
 * the indexed store must answer every call the same way, in the same order.
 */
function listModel(maxDeferMs: number) {
  type E = { key: string; dueMs: number; item: string; sinceMs: number; deferred: boolean };
  let list: E[] = [];
  let deferredTotal = 0;
  const runnableAt = (e: E, lagging: boolean) => (lagging ? Math.max(e.dueMs, e.sinceMs + maxDeferMs) : e.dueMs);
  return {
    add(key: string, dueMs: number, item: string, nowMs: number): string[] {
      list.push({ key, dueMs, item, sinceMs: dueMs, deferred: false });
      const due = list.filter((e) => e.key === key && e.dueMs <= nowMs);
      if (due.length < 2) return [];
      // kept: the first of those due latest; it waits since the earliest and is deferred if any was
      const latest = Math.max(...due.map((e) => e.dueMs));
      const keep = due.find((e) => e.dueMs === latest)!;
      keep.sinceMs = Math.min(...due.map((e) => e.sinceMs));
      keep.deferred = due.some((e) => e.deferred);
      const dropped = due.filter((e) => e !== keep);
      list = list.filter((e) => !dropped.includes(e));
      return dropped.map((e) => e.item);
    },
    take(nowMs: number, lagging: boolean, maxKeys: number, eligible: (k: string) => boolean): string[] {
      const runnable = list.filter((e) => runnableAt(e, lagging) <= nowMs && eligible(e.key)).sort((a, b) => a.sinceMs - b.sinceMs);
      const keys = new Set<string>();
      for (const e of runnable) if (keys.size < maxKeys) keys.add(e.key);
      const out = list.filter((e) => keys.has(e.key) && e.dueMs <= nowMs);
      list = list.filter((e) => !out.includes(e));
      for (const e of list) {
        if (lagging && !e.deferred && e.dueMs <= nowMs) {
          e.deferred = true;
          deferredTotal++;
        }
      }
      return out.map((e) => e.item);
    },
    get size() {
      return list.length;
    },
    get deferredTotal() {
      return deferredTotal;
    },
    items: () => list.map((e) => e.item),
  };
}

test('the store indexed by conversation answers 4,000 seeded random adds and takes as the plain list rule does', () => {
  const random = mulberry32(20261130);
  const pick = (n: number) => Math.floor(random() * n);
  const h = held(3_000);
  const model = listModel(3_000);
  let now = 0;
  let supersededSeen = 0;
  for (let step = 0; step < 4_000; step++) {
    now += pick(40);
    if (random() < 0.85) {
      const key = `c${pick(60)}`;
      const dueMs = now - 500 + pick(2_000);
      const item = `j${step}`;
      const got = h.add({ key, dueMs, item }, now);
      assert.equal(got, model.add(key, dueMs, item, now), `add at step ${step}`);
      supersededSeen += got.length;
    } else {
      const lagging = random() < 0.3;
      const maxKeys = 1 + pick(8);
      const skip = `c${pick(60)}`;
      assert.equal(h.take(now, lagging, maxKeys, (k) => k !== skip), model.take(now, lagging, maxKeys, (k) => k !== skip), `take at step ${step}`);
    }
    assert.is(h.size, model.size);
  }
  assert.equal([...h.items()], model.items(), 'the jobs still held, in arrival order');
  assert.is(h.stats.deferredTotal, model.deferredTotal);
  assert.ok(supersededSeen > 100, `the walk superseded jobs (${supersededSeen})`);
});

test('the runner is woken when an arriving job can first run: while lagging its deferral bound, not its due time', () => {
  const random = mulberry32(7);
  for (let i = 0; i < 200; i++) {
    const lagging = random() < 0.5;
    const maxDeferMs = Math.floor(random() * 5_000);
    const h = held(maxDeferMs);
    const nowMs = 10_000;
    // earlier jobs of the same conversation, some due already: the kept job waits since the earliest
    for (let j = 0; j < 3; j++) h.add({ key: 'a', dueMs: nowMs - 2_000 + Math.floor(random() * 4_000), item: `old${j}` }, nowMs);
    const before = h.nextRunMs(lagging)!;
    const dueMs = nowMs - 1_000 + Math.floor(random() * 2_000);
    h.add({ key: 'a', dueMs, item: 'new' }, nowMs);
    const wake = firstRunMs(dueMs, lagging, maxDeferMs);
    // what the runner may run next is never sooner than it planned before the arrival or than the wake
    assert.ok(h.nextRunMs(lagging)! >= Math.min(before, wake), `case ${i}: a job runnable before anything wakes the runner`);
    const alone = held(maxDeferMs);
    alone.add({ key: 'b', dueMs, item: 'new' }, nowMs);
    assert.is(alone.nextRunMs(lagging), wake, `case ${i}: a job of its own runs exactly at the wake`);
    assert.equal(alone.take(wake - 1, lagging, 10), [], `case ${i}: not before`);
    assert.equal(alone.take(wake, lagging, 10), ['new'], `case ${i}: at the wake`);
  }
  assert.is(firstRunMs(1_000, true, 30_000), 31_000);
  assert.is(firstRunMs(1_000, false, 30_000), 1_000);
});

test.run();
