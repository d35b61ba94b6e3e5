import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Worker } from 'node:worker_threads';
import { parseStatLine, sampleThreads, statementShape, statementThreads, threadGroup, ticksByGroup, type ThreadSample } from '../../../bench/lib/threads.js';

// a /proc/<pid>/task/<tid>/stat line as the kernel writes it (proc(5)): utime 7, stime 3, nice 19
const STAT = '4242 (node) S 4200 4200 4200 0 -1 4194624 100 0 0 0 7 3 0 0 39 19 12 0 123 456 789';

test('a stat line gives the thread name, its nice value and its CPU ticks; a name with spaces and parentheses too', () => {
  assert.equal(parseStatLine(4242, STAT), { tid: 4242, comm: 'node', nice: 19, ticks: 10 });
  const odd = STAT.replace('(node)', '(a (b) c)');
  assert.equal(parseStatLine(4242, odd)?.comm, 'a (b) c');
  assert.equal(parseStatLine(4242, odd)?.ticks, 10);
  assert.is(parseStatLine(1, 'garbage'), undefined);
  assert.is(parseStatLine(1, '1 (x) S 1 2'), undefined);
});

test('threads group as main, the nice-19 analysis worker, other Node threads, and the engine by name without its number', () => {
  const main = 100;
  assert.is(threadGroup({ tid: 100, comm: 'node', nice: 0 }, main), 'main thread');
  assert.is(threadGroup({ tid: 101, comm: 'node', nice: 19 }, main), 'analysis worker (nice 19)');
  assert.is(threadGroup({ tid: 102, comm: 'node', nice: 0 }, main), 'other Node threads');
  assert.is(threadGroup({ tid: 103, comm: 'QueryPipelineEx3', nice: 0 }, main), 'engine: QueryPipelineEx');
  assert.is(threadGroup({ tid: 104, comm: 'MergeMutate', nice: 0 }, main), 'engine: MergeMutate');
});

test('ticks per group are the differences between two samples; a thread born in between counts from zero', () => {
  const t = (tid: number, comm: string, ticks: number, nice = 0): ThreadSample => ({ tid, comm, nice, ticks });
  const before = [t(1, 'node', 100), t(2, 'ThreadPool', 50), t(3, 'ThreadPool', 10)];
  const after = [t(1, 'node', 130), t(2, 'ThreadPool', 70), t(3, 'ThreadPool', 15), t(4, 'ThreadPool', 5), t(5, 'node', 8, 19)];
  const groups = ticksByGroup(before, after, 1);
  assert.equal(groups.get('main thread'), { ticks: 30, threads: 1 });
  assert.equal(groups.get('engine: ThreadPool'), { ticks: 30, threads: 3 });
  assert.equal(groups.get('analysis worker (nice 19)'), { ticks: 8, threads: 1 });
});

test('sampling this process finds its main thread and a busy worker thread, with the work counted on the worker', async () => {
  const before = sampleThreads();
  assert.ok(before.some((s) => s.tid === process.pid), 'the main thread is listed');
  // a worker that spins until its own thread has used 30 clock ticks of CPU (its /proc stat), then
  // reports its thread id: on a busy machine 300 ms of wall time can be far less CPU than that
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads'); const { readlinkSync, readFileSync } = require('node:fs');
     const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
     const ticks = () => { const f = readFileSync('/proc/thread-self/stat', 'utf8'); const r = f.slice(f.lastIndexOf(')') + 2).split(' '); return Number(r[11]) + Number(r[12]); };
     const deadline = Date.now() + 20000; let x = 0;
     while (ticks() < 30 && Date.now() < deadline) for (let i = 0; i < 1e6; i++) x++;
     parentPort.postMessage(tid); setTimeout(() => {}, 1000);`,
    { eval: true },
  );
  const tid = await new Promise<number>((resolve) => worker.once('message', resolve));
  const after = sampleThreads();
  await worker.terminate();
  const spun = after.find((s) => s.tid === tid);
  assert.ok(spun, 'the worker thread is listed');
  // at least 20 of the 30 ticks the thread counted itself (clock ticks, usually 100 per second)
  assert.ok(spun!.ticks >= 20, `worker ticks ${spun!.ticks}`);
  assert.is(threadGroup(spun!, process.pid), 'other Node threads');
});

test("a statement's threads: busy mostly inside statement calls; never the main thread, the nice-19 worker or the merges", () => {
  const t = (tid: number, comm: string, ticks: number, nice = 0): ThreadSample => ({ tid, comm, nice, ticks });
  // the window's ticks of each thread, and those gained inside the calls of two statement shapes
  const window = [t(1, 'node', 500), t(2, 'node', 40), t(3, 'node', 30), t(4, 'ThreadPool', 20), t(5, 'node', 100, 19), t(6, 'MergeMutate', 90), t(7, 'node', 0)];
  const inside = new Map([
    ['INSERT INTO events', new Map([[1, 200], [2, 30], [3, 10], [4, 20], [5, 50], [6, 80]])],
    ['SELECT messages', new Map([[2, 10], [3, 5]])],
  ]);
  // 2: 40 of 40 inside (a libuv thread running calls); 4: 20 of 20; 3: 15 of 30 (runs beside the calls as much as outside)
  assert.equal([...statementThreads(window, inside, 1)].sort(), [2, 4]);
  assert.equal([...statementThreads(window, inside, 1, 0.5)].sort(), [2, 3, 4]);
});

test('statement shapes: session SETs dropped, literals and numbers folded, whitespace collapsed, cut at the limit', () => {
  const a = statementShape("SET output_format_json_quote_64bit_integers = 1; SET date_time_output_format = 'iso';\n  SELECT x FROM t\n WHERE id = 'abc' AND n > 42");
  const b = statementShape("SELECT x FROM t WHERE id = 'it\\'s other' AND n > 7");
  assert.is(a, "SELECT x FROM t WHERE id = '?' AND n > N");
  assert.is(b, a);
  assert.is(statementShape('-- The messages of a set\nSELECT 1'), '-- The messages of a set SELECT N');
  assert.is(statementShape('SELECT 123456', 8), 'SELECT N');
  assert.is(statementShape('x'.repeat(300)).length, 120);
});

test.run();
