import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { CRASH_LOOP_FACTOR, exhausted, failedAgain, failuresOf, requeueFailed } from '../../../stream/analyze/failed-jobs.js';
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

/** A delivery of `j` at stream sequence `seq`, recording what the consumer answered. */
function delivery(seq: number, j: ConversationJob) {
  const answers: string[] = [];
  const m = { subject: `analyze.${j.tenant_id}`, info: { streamSequence: seq }, ack: () => answers.push('ack'), nak: (ms?: number) => answers.push(`nak ${ms}`) } as unknown as JsMsg;
  return { m, job: j, answers };
}

/** The client's publishes (subject, job, message id), failing for the conversations `refuse` names. */
function fakeJs(refuse: (job: ConversationJob) => boolean = () => false) {
  const published: Array<{ subject: string; job: ConversationJob; msgID: string }> = [];
  const js = {
    publish: async (subject: string, data: string, opts: { msgID: string }) => {
      const j = JSON.parse(data) as ConversationJob;
      if (refuse(j)) throw new Error('no responders');
      published.push({ subject, job: j, msgID: opts.msgID });
    },
  } as unknown as JetStreamClient;
  return { js, published };
}

test('requeueFailed: one job per conversation goes on, from its job with the most failures, and every delivery of the conversation is acked', async () => {
  const at = (c: string, failures?: number, tenant = 't') => ({ ...job(failures), tenant_id: tenant, conversation_id: c });
  const a1 = delivery(11, at('a'));
  const a2 = delivery(12, at('a', 1));
  const a3 = delivery(13, at('a'));
  const b = delivery(14, at('b'));
  const otherTenant = delivery(15, at('a', undefined, 'u'));
  const { js, published } = fakeJs();
  await requeueFailed(js, [a1, a2, a3, b, otherTenant], (n) => n * 500, 10_000);
  assert.equal(
    published.sort((x, y) => x.msgID.localeCompare(y.msgID)),
    [
      { subject: 'analyze.t', job: { ...at('a', 2), due_ms: 11_000 }, msgID: 'failed:12:2' },
      { subject: 'analyze.t', job: { ...at('b', 1), due_ms: 10_500 }, msgID: 'failed:14:1' },
      { subject: 'analyze.u', job: { ...at('a', 1, 'u'), due_ms: 10_500 }, msgID: 'failed:15:1' },
    ],
  );
  for (const d of [a1, a2, a3, b, otherTenant]) assert.equal(d.answers, ['ack']);
});

test('requeueFailed: a conversation whose job cannot be published has every delivery nakked with the backoff, the others go on', async () => {
  const a1 = delivery(21, { ...job(), conversation_id: 'a' });
  const a2 = delivery(22, { ...job(2), conversation_id: 'a' });
  const b = delivery(23, { ...job(), conversation_id: 'b' });
  const { js, published } = fakeJs((j) => j.conversation_id === 'a');
  await requeueFailed(js, [a1, a2, b], (n) => n * 500, 10_000);
  assert.equal(published.map((p) => p.msgID), ['failed:23:1']);
  assert.equal(a1.answers, ['nak 1500']);
  assert.equal(a2.answers, ['nak 1500']);
  assert.equal(b.answers, ['ack']);
});

test('requeueFailed: a conversation with a retry pending and not yet due is covered by it; once that is due, its next failure goes on', async () => {
  const pending = new Map<string, number>();
  const { js, published } = fakeJs();
  const first = delivery(31, { ...job(), conversation_id: 'a' });
  assert.equal(await requeueFailed(js, [first], (n) => n * 500, 10_000, pending), { published: 1, covered: 0 });
  // another job of the conversation (the reconciler's) fails before the retry is due: acked, nothing published
  const other = delivery(32, { ...job(), conversation_id: 'a' });
  const b = delivery(33, { ...job(), conversation_id: 'b' });
  assert.equal(await requeueFailed(js, [other, b], (n) => n * 500, 10_400, pending), { published: 1, covered: 1 });
  assert.equal(other.answers, ['ack']);
  assert.equal(published.map((p) => p.msgID), ['failed:31:1', 'failed:33:1']);
  // the retry came due and failed: it goes on with one failure more
  const retry = delivery(34, { ...job(1), conversation_id: 'a', due_ms: 10_500 });
  assert.equal(await requeueFailed(js, [retry], (n) => n * 500, 10_600, pending), { published: 1, covered: 0 });
  assert.equal(published.at(-1)!.msgID, 'failed:34:2');
  assert.equal(published.at(-1)!.job.due_ms, 11_600);
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
