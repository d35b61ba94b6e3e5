import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventJson, runPipeline, type PipelineTask, type PreparedEvent } from '../../../ingest/pipeline.js';
import { encodeBatch } from '../../../ingest/publish.js';
import { decodeMessage, splitMessage, wholeEvents, type DecodeResult } from '../../../stream/batch.js';
import type { IngestBatch } from '../../../schemas/events.js';
import { buildPool } from '../../../bench/lib/pool.js';
import { dataPath } from '../../helpers/shared.js';

const RECEIVED = '2026-12-01T01:00:00.000Z';

/** The OTLP example's one record under three resources, the last with two scopes; a record's body mentions its group. */
function groupedBody(): Uint8Array {
  const example = JSON.parse(readFileSync(dataPath('otlp-examples', 'logs.json'), 'utf8')) as {
    resourceLogs: Array<{ resource: { attributes: unknown[] }; scopeLogs: Array<{ scope: Record<string, unknown>; logRecords: Array<Record<string, unknown>> }> }>;
  };
  const [rl] = example.resourceLogs;
  const record = rl!.scopeLogs[0]!.logRecords[0]!;
  const resourceLogs = ['api', 'worker', 'cron 🙂'].map((service, r) => ({
    resource: { attributes: [...rl!.resource.attributes, { key: 'service.name', value: { stringValue: service } }] },
    scopeLogs: Array.from({ length: r === 2 ? 2 : 1 }, (_, s) => ({
      scope: { name: `scope-${s}`, version: `1.${s}` },
      logRecords: Array.from({ length: 3 }, (_, i) => ({ ...record, body: { stringValue: `record ${i} of ${service} scope ${s}` } })),
    })),
  }));
  return new TextEncoder().encode(JSON.stringify({ resourceLogs }));
}

function prepared(task: Omit<PipelineTask, 'receiveTime' | 'tenant'>): PreparedEvent[] {
  const out = runPipeline({ ...task, tenant: 't1', receiveTime: RECEIVED });
  if (out.kind !== 'ok') throw new Error(out.message);
  return out.events;
}

/** The same events as a v1 message: each event whole, as every release before groups published them. */
const v1Message = (events: PreparedEvent[], ids: string[]) =>
  `{"v":1,"tenant_id":"t1","source":"logs","request_id":"r","events":[${events.map((e, i) => `{"event_id":"${ids[i]}","receive_time":"${RECEIVED}",${eventJson(e).slice(1)}`).join(',')}]}`;

/** The same events as a v2 message: each group once, the rest of every event whole, as releases of 1 Dec 2026 published them. */
function v2Message(events: PreparedEvent[], ids: string[]): string {
  const groups: Array<NonNullable<PreparedEvent['group']>> = [];
  for (const e of events) if (e.group && !groups.includes(e.group)) groups.push(e.group);
  const list = events.map((e, i) => `{"event_id":"${ids[i]}","receive_time":"${RECEIVED}"${e.group ? `,"group":${groups.indexOf(e.group)}` : ''},${e.json.slice(1)}`);
  return `{"v":2,"tenant_id":"t1","source":"logs","request_id":"r","groups":[${groups.map((g) => `{"resource":${g.resource},"scope":${g.scope}}`).join(',')}],"events":[${list.join(',')}]}`;
}

const tablesOf = (r: DecodeResult) => {
  if (r.kind !== 'ok') throw new Error(r.reason);
  return Object.fromEntries(Object.entries(r.output.tables).map(([t, chunks]) => [t, chunks!.map((c) => `${c.month} ${c.rows} ${Buffer.from(c.data).toString('base64')}`)]));
};

test('the resource and scope of a group are written once per message, and each event names its group', () => {
  const events = prepared({ route: 'logs', agent: 'otlp', encoding: 'json', body: groupedBody() });
  assert.is(events.length, 12);
  const out = encodeBatch('t1', 'logs', 'r', RECEIVED, events);
  const parsed = JSON.parse(out.data.toString('utf8')) as { v: number; groups: Array<{ resource: Record<string, string>; scope: { name: string } }>; events: Array<{ group: number; body?: string }> };
  assert.is(parsed.v, 3);
  assert.equal(parsed.groups.map((g) => `${g.resource['service.name']}/${g.scope.name}`), ['api/scope-0', 'worker/scope-0', 'cron 🙂/scope-0', 'cron 🙂/scope-1']);
  assert.equal(parsed.events.map((e) => e.group), [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]);
  for (const e of parsed.events) assert.not.ok('resource' in e || 'scope' in e, 'no event repeats its group');
  // what the groups save: each event's resource and scope (`group.bytes`), against each group's once
  // in `"groups":[{…},…],` and `"group":n,` in every event (v2 against v1: v3 saves it the same way)
  const whole = Buffer.byteLength(v1Message(events, out.eventIds));
  const perEvent = events.reduce((a, e) => a + e.group!.bytes, 0);
  const table = '"groups":[],'.length + [0, 3, 6, 9].reduce((a, i) => a + events[i]!.group!.bytes + '{}'.length - ','.length, 0) + 3 * ','.length;
  assert.is(whole - Buffer.byteLength(v2Message(events, out.eventIds)), perEvent - table - events.length * ',"group":0'.length);
  assert.ok(perEvent - table > 600, `${whole} → ${out.data.length} bytes`);
});

test('a v3 message holds once what every event of the request shares, and its events are the v1 events whole', () => {
  const events = prepared({ route: 'logs', agent: 'otlp', encoding: 'json', body: groupedBody() });
  const out = encodeBatch('t1', 'logs', 'r', RECEIVED, events.map((e) => ({ ...e, agent: 'otlp' })));
  const parsed = JSON.parse(out.data.toString('utf8')) as IngestBatch;
  assert.equal([parsed.tenant_id, parsed.source, parsed.agent, parsed.receive_time, parsed.event_id_prefix], ['t1', 'logs', 'otlp', RECEIVED, out.msgId.slice(0, 24)]);
  for (const e of parsed.events) for (const k of ['event_id', 'receive_time', 'tenant_id', 'agent', 'source']) assert.not.ok(k in e, `no event repeats ${k}`);
  const v1 = JSON.parse(v1Message(events, out.eventIds)) as IngestBatch;
  const sorted = (e: object) => JSON.stringify(Object.entries(e).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)));
  assert.equal(wholeEvents(parsed).map(sorted), v1.events.map(sorted));
  // about 140 bytes per event fewer than v2: the id, the receive time, the tenant, the agent and the source
  const saved = Buffer.byteLength(v2Message(events, out.eventIds)) - out.data.length;
  assert.ok(saved > events.length * 120, `${saved} bytes for ${events.length} events`);
});

test('an event whose JSON does not begin with the request\'s tenant, agent and source is published whole, its own fields kept', () => {
  const own = [
    { json: '{"tenant_id":"t1","agent":"codex","source":"logs","type":"log","name":"n","event_time":"2026-12-01T00:00:00.000Z"}', agent: 'codex' },
    { json: '{"tenant_id":"t1","agent":"claude-code","source":"logs","type":"log","name":"n","event_time":"2026-12-01T00:00:01.000Z"}', agent: 'claude-code' },
  ];
  const out = encodeBatch('t1', 'logs', 'r', RECEIVED, own);
  const parsed = JSON.parse(out.data.toString('utf8')) as IngestBatch;
  assert.is(parsed.agent, 'codex');
  assert.not.ok('agent' in parsed.events[0]!);
  assert.is(parsed.events[1]!.agent, 'claude-code');
  assert.equal(wholeEvents(parsed).map((e) => [e.event_id, e.agent, e.tenant_id, e.source, e.receive_time]), [
    [out.eventIds[0], 'codex', 't1', 'logs', RECEIVED],
    [out.eventIds[1], 'claude-code', 't1', 'logs', RECEIVED],
  ]);
  // the ids hash each event whole, whatever was left out
  const h = createHash('sha256').update('t1\nlogs\n');
  for (const e of own) h.update(e.json).update('\n');
  assert.is(out.msgId, h.digest('hex'));
});

test('ids are those of the events published whole: the hash reads each event with its resource and scope', () => {
  const events = prepared({ route: 'logs', agent: 'otlp', encoding: 'json', body: groupedBody() });
  const h = createHash('sha256').update('t1\nlogs\n');
  for (const e of events) h.update(eventJson(e)).update('\n');
  assert.is(encodeBatch('t1', 'logs', 'r', RECEIVED, events).msgId, h.digest('hex'));
  // another resource is another message, as before
  const other = events.map((e, i) => (i === 0 ? { ...e, group: { ...e.group!, resource: '{"service.name":"x"}' } } : e));
  assert.is.not(encodeBatch('t1', 'logs', 'r', RECEIVED, other).msgId, encodeBatch('t1', 'logs', 'r', RECEIVED, events).msgId);
});

test('v3 and v2 messages give the rows of the same events as v1: every route of the bench workload', () => {
  const pool = buildPool(3_000);
  let checked = 0;
  for (const req of pool.requests) {
    const route = req.route.includes('/logs') ? 'logs' : req.route.includes('/traces') ? 'traces' : req.route.includes('/hooks') ? 'hooks' : 'ingest';
    const agent = route === 'ingest' ? 'direct' : req.route.includes('agent-b') ? 'codex' : 'claude-code';
    const events = prepared({ route, agent, encoding: req.contentType.includes('protobuf') ? 'protobuf' : 'json', body: req.body } as Omit<PipelineTask, 'receiveTime' | 'tenant'>);
    if (!events.length) continue;
    const v3 = encodeBatch('t1', 'logs', 'r', RECEIVED, events);
    const v1 = tablesOf(decodeMessage(v1Message(events, v3.eventIds)));
    assert.equal(tablesOf(decodeMessage(v3.data)), v1, req.route);
    assert.equal(tablesOf(decodeMessage(v2Message(events, v3.eventIds))), v1, req.route);
    checked += events.length;
  }
  assert.ok(checked > 2_000, `${checked} events`);
});

test('a message cut from a request writes only the groups its events use', () => {
  const events = prepared({ route: 'logs', agent: 'otlp', encoding: 'json', body: groupedBody() });
  const tail = events.slice(9);
  const parsed = JSON.parse(encodeBatch('t1', 'logs', 'r', RECEIVED, tail).data.toString('utf8')) as { groups: Array<{ scope: { name: string } }>; events: Array<{ group: number }> };
  assert.equal(parsed.groups.map((g) => g.scope.name), ['scope-1']);
  assert.equal(parsed.events.map((e) => e.group), [0, 0, 0]);
});

test('an event of a v2 message split out alone (a dead letter) carries its resource and scope', () => {
  const events = prepared({ route: 'logs', agent: 'otlp', encoding: 'json', body: groupedBody() });
  const split = splitMessage(encodeBatch('t1', 'logs', 'r', RECEIVED, events).data);
  if ('kind' in split) throw new Error(split.reason);
  const last = JSON.parse(split.events[11]!.json) as Record<string, unknown>;
  assert.equal([(last.resource as Record<string, string>)['service.name'], (last.scope as { name: string }).name, 'group' in last], ['cron 🙂', 'scope-1', false]);
});

test('a v2 event naming a group the message lacks is a poison message, with the reason', () => {
  const event = { event_id: 'e', tenant_id: 't', type: 'log', event_time: RECEIVED, receive_time: RECEIVED };
  const bad = [
    { v: 2, tenant_id: 't', groups: [], events: [{ ...event, group: 0 }] },
    { v: 2, tenant_id: 't', groups: [{ resource: {}, scope: {} }], events: [{ ...event, group: 1.5 }] },
    { v: 2, tenant_id: 't', groups: [5], events: [{ ...event, group: 0 }] },
  ];
  for (const b of bad) {
    const r = decodeMessage(JSON.stringify(b));
    assert.is(r.kind, 'poison');
    assert.match((r as { reason: string }).reason, /^events\[0\]: event\.group .* names no group of the batch$/);
  }
  assert.is(decodeMessage(JSON.stringify({ v: 2, tenant_id: 't', groups: {}, events: [event] })).kind, 'poison');
  assert.is(decodeMessage(JSON.stringify({ v: 4, tenant_id: 't', events: [event] })).kind, 'poison');
  // without groups a v2 event is a whole event, as in v1
  assert.is(decodeMessage(JSON.stringify({ v: 2, tenant_id: 't', events: [event] })).kind, 'ok');
});

test('a v3 message whose shared fields are not strings is a poison message; an event missing what the message lacks is one too', () => {
  const event = { type: 'log', event_time: RECEIVED };
  for (const [k, v] of [['receive_time', 5], ['event_id_prefix', {}], ['agent', 1]] as const) {
    const r = decodeMessage(JSON.stringify({ v: 3, tenant_id: 't', source: 'logs', receive_time: RECEIVED, event_id_prefix: 'a'.repeat(24), [k]: v, events: [event] }));
    assert.equal(r, { kind: 'poison', reason: `batch.${k} is not a string` });
  }
  const noTime = decodeMessage(JSON.stringify({ v: 3, tenant_id: 't', source: 'logs', event_id_prefix: 'a'.repeat(24), events: [event] }));
  assert.equal(noTime, { kind: 'poison', reason: 'events[0]: event.receive_time is missing or not a string' });
  const noId = decodeMessage(JSON.stringify({ v: 3, tenant_id: 't', source: 'logs', receive_time: RECEIVED, events: [event] }));
  assert.equal(noId, { kind: 'poison', reason: 'events[0]: event.event_id is missing or not a string' });
  const ok = decodeMessage(JSON.stringify({ v: 3, tenant_id: 't', source: 'logs', receive_time: RECEIVED, event_id_prefix: 'a'.repeat(24), events: [event, event] }));
  assert.is(ok.kind, 'ok');
});

test.run();
