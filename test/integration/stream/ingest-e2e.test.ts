import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, eventually, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { runCli } from '../../helpers/cli.js';
import { batchOf, conversationEvents, msgIdOf } from '../../helpers/events.js';
import { startStream } from '../../../stream/main.js';
import { DLQ_HEADERS } from '../../../stream/dlq.js';
import { counts, sleep } from './helpers.js';
import { dataPath } from '../../helpers/shared.js';
import { runPipeline, type PreparedEvent } from '../../../ingest/pipeline.js';
import { encodeBatch } from '../../../ingest/publish.js';
import { kv } from '../ingest/lib.js';

const CC = dataPath('claude-code-viewer');
const TAU = dataPath('tau-bench/gpt-4o-airline.json');
let ts: TestSystem;
let stream: Awaited<ReturnType<typeof startStream>>;

test.before(async () => {
  // the stream role is composed here, on the same runtime: it needs the store the ingest role alone would not open
  ts = await startTestSystem({ roles: ['ingest'], openStore: true, env: { INGEST_MAX_BACKLOG_MESSAGES: '5', INGEST_RETRY_AFTER_SECONDS: '1' } });
  stream = await startStream(ts.system.rt, { paused: true });
});
test.after(async () => {
  await stream?.close();
  await ts?.stop({ withNats: true });
});

const post = (events: unknown[]) => http(`${ts.ingestUrl}/v1/ingest`, { headers: { authorization: `Bearer ${ts.adminKey}` }, body: { events } });
const msg = (conv: string, i: number) => ({ conversation_id: conv, role: i % 2 ? 'assistant' : 'user', message: `message ${i}`, timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString() });

test('backpressure: with the consumers stopped ingest answers 503 with Retry-After past the backlog limit, 200 again once they drain it', async () => {
  for (let i = 0; i < 6; i++) assert.is((await post([msg('bp-1', i)])).status, 200);
  await sleep(300); // the ingest role caches the stream state briefly
  const refused = await post([msg('bp-1', 99)]);
  assert.is(refused.status, 503);
  assert.is(refused.headers.get('retry-after'), '1');
  assert.match(JSON.stringify(refused.body), /temporarily unavailable/);
  stream.resume();
  const ok = await eventually(async () => (await post([msg('bp-1', 100)])).status === 200, { timeoutMs: 15_000, intervalMs: 300 });
  assert.ok(ok, 'ingest recovered by itself');
  const stored = await eventually(async () => ((await counts(ts.system.rt.store)).messages === 7 ? true : undefined));
  assert.ok(stored);
});

/** Expected numbers from the raw files, computed without the converters. */
function expected() {
  const sessions = new Set<string>();
  const messages = new Set<string>();
  let calls = 0;
  let errors = 0;
  const ids = new Set<string>();
  for (const f of readdirSync(CC).filter((f) => f.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(CC, f), 'utf8').split('\n').filter((l) => l.trim())) {
      const d = JSON.parse(line);
      if (d.type !== 'user' && d.type !== 'assistant') continue;
      sessions.add(d.sessionId);
      messages.add(`${d.sessionId}|${d.type === 'assistant' ? d.message.id : d.uuid}`);
      for (const b of Array.isArray(d.message.content) ? d.message.content : []) {
        if (b.type === 'tool_use') ids.add(`${d.sessionId}|${b.id}`);
        if (b.type === 'tool_result' && b.is_error === true) errors++;
      }
    }
  }
  calls += ids.size;
  const tau = JSON.parse(readFileSync(TAU, 'utf8')) as Array<{ traj: Array<{ role: string; content: string | null; tool_calls?: unknown[] }> }>;
  let tauMessages = 0;
  for (const t of tau) {
    tauMessages += t.traj.length;
    for (const m of t.traj) {
      calls += m.tool_calls?.length ?? 0;
      if (m.role === 'tool' && /^error/i.test(String(m.content).trim())) errors++;
    }
  }
  return { conversations: sessions.size + tau.length, messages: messages.size + tauMessages, toolCalls: calls, toolErrors: errors };
}

async function stored() {
  const store = ts.system.rt.store;
  const q = async (sql: string) => Number((await store.query<{ n: string }>(sql))[0]!.n);
  const where = `tenant_id = 'default' AND conversation_id != 'bp-1'`;
  return {
    conversations: await q(`SELECT count() AS n FROM {{db}}.conversations FINAL WHERE ${where}`),
    messages: await q(`SELECT sum(message_count) AS n FROM {{db}}.conversations FINAL WHERE ${where}`),
    toolCalls: await q(`SELECT sum(tool_call_count) AS n FROM {{db}}.conversations FINAL WHERE ${where}`),
    toolErrors: await q(`SELECT sum(tool_failure_count) AS n FROM {{db}}.conversations FINAL WHERE ${where}`),
  };
}

test('tracehouse import of every Claude Code log and the tau-bench file, over /v1/ingest: exact counts, idempotent', async () => {
  const want = expected();
  const env = { DATA_DIR: ts.env.DATA_DIR!, NATS_URL: ts.env.NATS_URL! };
  const r = await runCli(['import', CC, TAU, '--url', ts.ingestUrl, '--key', ts.adminKey, '--json'], env, { timeoutMs: 120_000 });
  assert.is(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.equal(
    { files: summary.files, conversations: summary.conversations, messages: summary.messages, toolCalls: summary.tool_calls, toolErrors: summary.tool_errors, rejected: summary.rejected },
    { files: 6, ...want, rejected: 0 },
  );
  assert.match(r.stderr, /importing .*gpt-4o-airline.json: \d+ messages/);
  const done = await eventually(async () => {
    const s = await stored();
    return JSON.stringify(s) === JSON.stringify(want) ? s : undefined;
  }, { timeoutMs: 60_000, intervalMs: 500 });
  assert.equal(done ?? (await stored()), want);
  // sidechains became threads of their session; messages of the merged reply are one row
  const threads = await ts.system.rt.store.query<any>(`SELECT thread_count FROM {{db}}.conversations FINAL WHERE conversation_id = 'fe5e1c67-53e7-4862-81ae-d0e013e3270b'`);
  assert.is(Number(threads[0].thread_count), 5);

  const again = await runCli(['import', CC, '--url', ts.ingestUrl, '--key', ts.adminKey], env, { timeoutMs: 60_000 });
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /imported: 5 files, 3 conversations/);
  await sleep(1500);
  assert.equal(await stored(), want);
});

test('tracehouse dlq list shows dead letters with their reason; replay stores them', async () => {
  const { js } = ts.system.rt.bus;
  const batch = batchOf(conversationEvents('dlq-replay', 1));
  const h = natsHeaders();
  h.set(DLQ_HEADERS.reason, 'rejected');
  h.set(DLQ_HEADERS.error, 'injected: table was read-only');
  h.set(DLQ_HEADERS.subject, 'ingest.default.logs');
  h.set(DLQ_HEADERS.msgId, msgIdOf(batch));
  h.set(DLQ_HEADERS.deliveries, '1');
  await js.publish('dlq.ingest.store', JSON.stringify(batch), { headers: h });
  const env = { DATA_DIR: ts.env.DATA_DIR!, NATS_URL: ts.env.NATS_URL! };
  const list = await runCli(['dlq', 'list'], env);
  assert.is(list.code, 0, list.stderr);
  assert.match(list.stdout, /rejected\s+1\s+\d+\s+ingest\.default\.logs\s+injected: table was read-only/);
  const replay = await runCli(['dlq', 'replay', '--all'], env);
  assert.is(replay.code, 0, replay.stderr);
  assert.match(replay.stdout, /replayed 1 message/);
  const ok = await eventually(async () => (await ts.system.rt.store.query<any>(`SELECT count() AS n FROM {{db}}.events FINAL WHERE conversation_id = 'dlq-replay'`))[0].n === '4');
  assert.ok(ok);
  assert.match((await runCli(['dlq', 'list'], env)).stdout, /no dead letters/);
});

test('a v3 message an older stream role dead-lettered (unsupported batch version 3) is stored once replayed, with its group and what its events share', async () => {
  const { js } = ts.system.rt.bus;
  const record = (i: number) => ({ timeUnixNano: `${1767603657332000000 + i * 1_000_000}`, body: { stringValue: 'claude_code.api_request' }, attributes: kv({ 'event.name': 'api_request', 'session.id': 'v3-replay', model: 'm', cost_usd: '0.01' }) });
  const body = { resourceLogs: [{ resource: { attributes: kv({ 'service.name': 'claude-code', 'deploy.region': 'eu' }) }, scopeLogs: [{ scope: { name: 'com.anthropic.claude_code.events', version: '2.1.294' }, logRecords: [record(0), record(1), record(2)] }] }] };
  const out = runPipeline({ route: 'logs', agent: 'agent-a', encoding: 'json', body: new TextEncoder().encode(JSON.stringify(body)), tenant: 'default', receiveTime: new Date().toISOString() });
  assert.is(out.kind, 'ok');
  const msg = encodeBatch('default', 'logs', 'req-v3', new Date().toISOString(), (out as { events: PreparedEvent[] }).events);
  assert.is(JSON.parse(msg.data.toString()).v, 3);
  const h = natsHeaders();
  h.set(DLQ_HEADERS.reason, 'poison');
  h.set(DLQ_HEADERS.error, 'unsupported batch version 3');
  h.set(DLQ_HEADERS.subject, 'ingest.default.logs');
  h.set(DLQ_HEADERS.msgId, msg.msgId);
  h.set(DLQ_HEADERS.deliveries, '1');
  await js.publish('dlq.ingest.store', msg.data, { headers: h });
  const env = { DATA_DIR: ts.env.DATA_DIR!, NATS_URL: ts.env.NATS_URL! };
  const replay = await runCli(['dlq', 'replay', '--all'], env);
  assert.is(replay.code, 0, replay.stderr);
  const rows = await eventually(async () => {
    const r = await ts.system.rt.store.query<{ region: string; service: string; scope_name: string; agent: string; source: string; event_id: string }>(`SELECT resource['deploy.region'] AS region, resource['service.name'] AS service, scope_name, agent, source, event_id FROM {{db}}.events FINAL WHERE conversation_id = 'v3-replay' ORDER BY event_id`);
    return r.length === 3 ? r : undefined;
  });
  assert.equal(rows, msg.eventIds.map((event_id) => ({ region: 'eu', service: 'claude-code', scope_name: 'com.anthropic.claude_code.events', agent: 'agent-a', source: 'logs', event_id })));
});

test('tracehouse status prints stream and consumer state', async () => {
  const env = { DATA_DIR: ts.env.DATA_DIR!, NATS_URL: ts.env.NATS_URL! };
  const r = await runCli(['status', '--json'], env);
  assert.is(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.streams.map((x: any) => x.stream), ['INGEST', 'DLQ', 'ANALYZE', 'REPLAY_WORK', 'REPLAY_RESULTS']);
  assert.equal(s.consumers.map((x: any) => x.consumer), ['store', 'analyze']);
  assert.is(s.consumers[0].pending, 0);
  // the embedded data directory belongs to this process: the running stream role answers the counts
  assert.is(s.tables.source, 'running system');
  assert.is(typeof s.tables.counts.events, 'number');
  const text = await runCli(['status'], env);
  assert.match(text.stdout, /INGEST\s+0/);
  assert.match(text.stdout, /INGEST\/store/);
});

test.run();
