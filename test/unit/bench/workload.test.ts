import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateWorkload, type WireRequest } from '../../../bench/workload/generate.js';
import { conversationAt, conversations, DEFAULT_CONVERSATION_OPTIONS, drawLength } from '../../../bench/workload/conversation.js';
import { createRng } from '../../../bench/workload/rng.js';
import { decodeProto } from '../../../bench/workload/protobuf.js';
import { conversationRows } from '../../../bench/workload/rows.js';

const bodyText = (r: WireRequest) => (typeof r.body === 'string' ? r.body : Buffer.from(r.body).toString('base64'));

test('same seed gives the same bytes; another seed does not', () => {
  const a = generateWorkload({ seed: 42, conversations: 60 });
  const b = generateWorkload({ seed: 42, conversations: 60 });
  const c = generateWorkload({ seed: 43, conversations: 60 });
  assert.equal(a.requests.map(bodyText), b.requests.map(bodyText));
  assert.equal(a.truth, b.truth);
  assert.not.equal(a.requests.map(bodyText).join(), c.requests.map(bodyText).join());
});

test('conversations are a pure function of (options, index): lazy and eager agree', () => {
  const opts = { ...DEFAULT_CONVERSATION_OPTIONS, seed: 9 };
  const lazy = [...conversations(opts, 5, 10)];
  for (let i = 0; i < 5; i++) assert.equal(lazy[i], conversationAt(opts, 10 + i));
});

function countWire(r: WireRequest): { events: number; invalid: number } {
  if (r.contentType === 'application/x-protobuf') {
    const msg = decodeProto(r.body as Uint8Array, 'ExportLogsServiceRequest') as any;
    const n = msg.resourceLogs.flatMap((rl: any) => rl.scopeLogs).flatMap((sl: any) => sl.logRecords).length;
    return { events: n, invalid: 0 };
  }
  const json = JSON.parse(r.body as string);
  if (json.resourceLogs) return { events: json.resourceLogs[0].scopeLogs[0].logRecords.length, invalid: 0 };
  const list: any[] = Array.isArray(json) ? json : json.events;
  const invalid = list.filter((e) => (Array.isArray(json) ? !e.hook : !e.role && e.messageType !== 'tool_call')).length;
  return { events: list.length, invalid };
}

test('ground truth matches what was emitted', () => {
  const { requests, truth } = generateWorkload({ seed: 5, conversations: 150, duplicateRate: 0.1, invalidRate: 0.05 });
  let events = 0, invalid = 0, dupReq = 0, dupEvents = 0;
  const convs = new Set<string>();
  for (const r of requests) {
    const w = countWire(r);
    assert.is(w.events, r.events, `${r.format} event count`);
    assert.is(w.invalid, r.invalidEvents, `${r.format} invalid count`);
    if (r.duplicate) {
      dupReq++;
      dupEvents += w.events;
    } else {
      events += w.events - w.invalid;
      invalid += w.invalid;
    }
    convs.add(r.conversationId);
  }
  assert.is(truth.totals.events, events);
  assert.is(truth.totals.invalid_events, invalid);
  assert.is(truth.totals.duplicate_requests, dupReq);
  assert.is(truth.totals.duplicate_events, dupEvents);
  assert.is(truth.totals.conversations, convs.size);
  const sum = (k: 'conversations' | 'messages' | 'tool_calls' | 'tool_errors' | 'events') => Object.values(truth.tenants).reduce((s, t) => s + t[k], 0);
  for (const k of ['conversations', 'messages', 'tool_calls', 'tool_errors', 'events'] as const) assert.is(sum(k), truth.totals[k], k);
  // messages and tool calls recomputed from the models
  let messages = 0, calls = 0, errors = 0;
  for (let i = 0; i < 150; i++) {
    const c = conversationAt({ ...DEFAULT_CONVERSATION_OPTIONS, seed: 5 }, i);
    messages += c.messages.length;
    for (const m of c.messages) for (const tc of m.toolCalls) { calls++; if (!tc.success) errors++; }
  }
  assert.equal([truth.totals.messages, truth.totals.tool_calls, truth.totals.tool_errors], [messages, calls, errors]);
});

test('every format appears and duplicates repeat the previous request byte for byte', () => {
  const { requests, truth } = generateWorkload({ seed: 3, conversations: 200, duplicateRate: 0.2 });
  for (const f of Object.values(truth.formats)) assert.ok(f.requests > 0);
  requests.forEach((r, i) => {
    if (r.duplicate) assert.is(bodyText(r), bodyText(requests[i - 1]!));
  });
});

test('rates are honored within sampling error', () => {
  const { truth } = generateWorkload({ seed: 11, conversations: 600, duplicateRate: 0.1, invalidRate: 0.05, toolErrorRate: 0.2 });
  const t = truth.totals;
  const requests = Object.values(truth.formats).reduce((s, f) => s + f.requests, 0);
  const dupShare = t.duplicate_requests / (requests - t.duplicate_requests);
  assert.ok(dupShare > 0.07 && dupShare < 0.13, `duplicate share ${dupShare}`);
  assert.ok(t.tool_errors / t.tool_calls > 0.17 && t.tool_errors / t.tool_calls < 0.23, `tool error share ${t.tool_errors / t.tool_calls}`);
  const hookDirect = truth.formats['hooks-a'].events + truth.formats.direct.events;
  const invalidShare = t.invalid_events / (hookDirect - t.invalid_events);
  assert.ok(invalidShare > 0.035 && invalidShare < 0.065, `invalid share ${invalidShare}`);
});

test('lengths: most conversations short, a long tail of hundreds; tenants skewed', () => {
  const rng = createRng(1);
  const lengths = Array.from({ length: 5000 }, () => drawLength(rng, 800)).sort((a, b) => a - b);
  const median = lengths[2500]!;
  assert.ok(median >= 4 && median <= 10, `median ${median}`);
  assert.ok(lengths.filter((n) => n >= 200).length >= 20, 'long tail reaches hundreds');
  assert.ok(lengths[lengths.length - 1]! <= 800);
  const { truth } = generateWorkload({ seed: 2, conversations: 400, tenants: 20, tenantSkew: 1.1 });
  const counts = Object.values(truth.tenants).map((t) => t.conversations).sort((a, b) => b - a);
  assert.ok(counts[0]! > 4 * counts[counts.length - 1]!, `skew ${counts}`);
});

test('protobuf and JSON bodies carry the same records', () => {
  const { requests } = generateWorkload({ seed: 8, conversations: 80, formatWeights: { 'otlp-proto-a': 1, 'otlp-json-a': 0, 'otlp-proto-b': 0, 'otlp-json-b': 0, 'hooks-a': 0, direct: 0 }, duplicateRate: 0 });
  const r = requests[0]!;
  const msg = decodeProto(r.body as Uint8Array, 'ExportLogsServiceRequest') as any;
  const rec = msg.resourceLogs[0].scopeLogs[0].logRecords[0];
  assert.is(rec.body.stringValue, 'claude_code.user_prompt');
  const keys = rec.attributes.map((a: any) => a.key);
  assert.ok(keys.includes('session.id') && keys.includes('event.sequence'));
  assert.is(msg.resourceLogs[0].scopeLogs[0].scope.name, 'com.anthropic.claude_code.events');
});

test('rows: one events row per valid wire event, messages and tool calls per model', () => {
  const c = conversationAt({ ...DEFAULT_CONVERSATION_OPTIONS, seed: 4 }, 3);
  const rows = conversationRows(c);
  assert.is(rows.messages.length, c.messages.length);
  assert.is(rows.tool_calls.length, c.messages.reduce((s, m) => s + m.toolCalls.length, 0));
  assert.is(rows.conversations.length, 1);
  const { requests } = generateWorkload({ seed: 4, conversations: 4, duplicateRate: 0, invalidRate: 0 });
  const wire = requests.filter((r) => r.conversationId === c.id).reduce((s, r) => s + r.events, 0);
  assert.is(rows.events.length, wire);
});

test.run();
