import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CRASH_LOOP_FACTOR, exhausted, failedAgain, failuresOf } from '../../../stream/analyze/failed-jobs.js';
import { replayBytes, type ConversationJob } from '../../../stream/analyze/publisher.js';

const job = (failures?: unknown): ConversationJob => ({ v: 1, tenant_id: 't', conversation_id: 'c', due_ms: 1_000, ...(failures === undefined ? {} : { failures: failures as number }) });

test('a job is dead-lettered after maxDeliver failures, whatever its deliveries; deliveries alone only past the crash-loop bound', () => {
  assert.is(exhausted(job(), 1, 5), undefined);
  assert.is(exhausted(job(4), 1, 5), undefined, 'four failures of five');
  assert.is(exhausted(job(5), 1, 5), 'analysis failed 5 times');
  assert.is(exhausted(job(), 6, 5), undefined, 'six deliveries without a failure: held across restarts');
  assert.is(exhausted(job(), CRASH_LOOP_FACTOR * 5, 5), undefined);
  assert.match(exhausted(job(), CRASH_LOOP_FACTOR * 5 + 1, 5) ?? '', /^delivered 21 times without an analysis completing/);
});

test('a count that is not a positive integer is no failure', () => {
  for (const bad of [-1, 1.5, '3', null, Number.NaN, 2 ** 60]) assert.is(failuresOf(job(bad)), 0, String(bad));
  assert.is(failuresOf(job(3)), 3);
});

test('failedAgain: one failure more, due after the backoff of that many, the job it came from unchanged', () => {
  const first = job();
  const again = failedAgain(first, 10_000, (n) => n * 500);
  assert.equal(again, { v: 1, tenant_id: 't', conversation_id: 'c', due_ms: 10_500, failures: 1 });
  assert.equal(failedAgain(again, 20_000, (n) => n * 500), { v: 1, tenant_id: 't', conversation_id: 'c', due_ms: 21_000, failures: 2 });
  assert.equal(first, job(), 'not mutated');
});

test('replayBytes: an analysis job replayed from the DLQ starts with no failures; anything else is replayed as it was', () => {
  const bytes = (v: unknown) => Buffer.from(JSON.stringify(v));
  assert.equal(JSON.parse(Buffer.from(replayBytes('analyze.t.conversation', bytes(job(5)))).toString()), job());
  const plain = bytes(job());
  assert.is(replayBytes('analyze.t.conversation', plain), plain, 'no failures: the same bytes');
  const batch = bytes({ v: 2, failures: 3 });
  assert.is(replayBytes('ingest.t.logs', batch), batch, 'not an analysis job');
  const garbage = Buffer.from('{not json');
  assert.is(replayBytes('analyze.t.conversation', garbage), garbage, 'unreadable: as it was');
});

test.run();
