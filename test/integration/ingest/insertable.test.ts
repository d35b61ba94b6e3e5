/**
 * "Acknowledged means stored" at the edge: what ingest answers 200 for is insertable, through
 * JetStream and the stream role into ClickHouse. Issue items: a lone surrogate no longer loses its
 * request (1), deep nesting is a 400 on every route, not a 500 (2), and the rough edges of
 * /v1/ingest (6): 415, 413, one error shape.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSystem, eventually, type TestSystem } from '../../helpers/system.js';
import { http } from '../../helpers/http.js';
import { listDeadLetters } from '../../../stream/dlq.js';
import { MAX_JSON_DEPTH } from '../../../ingest/limits.js';
import { auth, kv, logsEnvelope } from './lib.js';
import { parseContentBlocks } from '../../../schemas/content-blocks.js';

let ts: TestSystem;
test.before(async () => {
  ts = await startTestSystem({ roles: ['ingest', 'stream'] });
});
test.after(async () => {
  await ts?.stop({ withNats: true });
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  http(`${ts.ingestUrl}${path}`, { method: 'POST', headers: { ...auth(ts.adminKey), ...headers }, body });
const query = <T = Record<string, string>>(sql: string, params: Record<string, unknown> = {}) => ts.system.rt.store.query<T>(sql, params);

/** Waits until every id is a row of `events` (by event id, deduplicated) and returns the count. */
async function stored(ids: string[]): Promise<number> {
  const n = await eventually(async () => {
    const [r] = await query<{ n: string }>('SELECT count() AS n FROM {{db}}.events FINAL WHERE event_id IN {ids:Array(String)}', { ids });
    return Number(r!.n) === ids.length ? ids.length : 0;
  });
  return n;
}

test('item 1: a lone surrogate is repaired before the 200; its neighbour and itself are stored, nothing dead-lettered', async () => {
  // "\ud800" reaches the parser as an escape: the body text itself is valid UTF-8
  const body = '{"events":[{"conversation_id":"sur-1","role":"user","message":"lone \\ud800 high","message_id":"s1"},'
    + '{"conversation_id":"sur-1","role":"assistant","message":"the neighbour","message_id":"s2"},'
    + '{"conversation_id":"sur-1","role":"user","message":"low \\udc00 and a pair \\ud83d\\ude00","message_id":"s3","metadata":{"k\\udbff":"v\\ud800"}}]}';
  const r = await post('/v1/ingest', body, { 'content-type': 'application/json' });
  assert.is(r.status, 200, r.text);
  assert.is(r.body.count, 3);
  assert.is(await stored(r.body.results.map((x: { eventId: string }) => x.eventId)), 3);
  // each table is its own insert: the events rows can be visible a moment before the messages rows
  const sql = "SELECT message_id, content, metadata FROM {{db}}.messages FINAL WHERE conversation_id = 'sur-1' ORDER BY message_id";
  const rows = (await eventually(async () => {
    const got = await query<{ message_id: string; content: string; metadata: string }>(sql);
    return got.length === 3 ? got : undefined;
  })) ?? [];
  assert.equal(rows.map((m) => [m.message_id, m.content]), [
    ['s1', 'lone \uFFFD high'],
    ['s2', 'the neighbour'],
    ['s3', 'low \uFFFD and a pair \u{1F600}'],
  ]);
  assert.equal(JSON.parse(rows[2]!.metadata), { 'k\uFFFD': 'v\uFFFD' });
  assert.equal(await listDeadLetters(ts.system.rt.bus.jsm), []);
});

test('item 1: invalid UTF-8 bytes (overlong, encoded surrogates, truncated) become U+FFFD on every JSON route and are stored', async () => {
  const bad = Buffer.from([0xc0, 0xaf, 0x20, 0xed, 0xa0, 0x80, 0x20, 0xe2, 0x82]);
  const direct = Buffer.concat([Buffer.from('{"events":[{"conversation_id":"utf-1","role":"user","message_id":"u1","message":"a'), bad, Buffer.from('"}]}')]);
  const d = await post('/v1/ingest', direct, { 'content-type': 'application/json' });
  assert.is(d.status, 200, d.text);
  const hook = Buffer.concat([Buffer.from('{"hook":"UserPromptSubmit","session_id":"utf-2","user_prompt":"p'), bad, Buffer.from('"}')]);
  const h = await post('/v1/otel/agent-a/hooks', hook, { 'content-type': 'application/json' });
  assert.is(h.status, 200, h.text);
  assert.is(h.body.count, 1);
  const one = (sql: string) => eventually(async () => ((await query<{ content: string }>(sql)).length ? query<{ content: string }>(sql) : undefined));
  const [m] = (await one("SELECT content FROM {{db}}.messages FINAL WHERE conversation_id = 'utf-1'"))!;
  assert.ok(m!.content.startsWith('a\uFFFD'), JSON.stringify(m));
  const [p] = (await one("SELECT content FROM {{db}}.messages FINAL WHERE conversation_id = 'utf-2'"))!;
  assert.ok(p!.content.startsWith('p\uFFFD') && !/[\uD800-\uDFFF]/.test(p!.content), JSON.stringify(p));
});

const nested = (depth: number, leaf = '"x"') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);

test(`item 2: nesting deeper than ${MAX_JSON_DEPTH} levels is 400 nesting_too_deep on every JSON route; at the limit it is stored`, async () => {
  const deepMeta = `{"events":[{"conversation_id":"deep-1","role":"user","message":"m","metadata":${nested(6000)}}]}`;
  const deepHook = `{"hook":"PreToolUse","session_id":"deep-2","tool_name":"Bash","tool_input":${nested(5000)}}`;
  const deepArray = `[${'['.repeat(200_000)}${']'.repeat(200_000)}]`;
  const deepOtlp = JSON.stringify(logsEnvelope([{ body: { stringValue: 'x' }, attributes: kv({ a: 'b' }) }])).replace('"x"', nested(300));
  const cases: Array<[string, string]> = [['/v1/ingest', deepMeta], ['/v1/otel/agent-a/hooks', deepHook], ['/v1/otel/agent-b/hooks', deepArray], ['/v1/otel/agent-a/logs', deepOtlp], ['/v1/traces', nested(200)]];
  for (const [path, body] of cases) {
    const r = await post(path, body, { 'content-type': 'application/json' });
    assert.is(r.status, 400, `${path}: ${r.text.slice(0, 200)}`);
    assert.is(r.body.code, 'nesting_too_deep', path);
    assert.match(r.body.error, new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`));
  }
  // the body's top object, events array and event object take 3 levels; metadata may use the rest
  const atLimit = `{"events":[{"conversation_id":"deep-3","role":"user","message":"m","message_id":"d3","metadata":${nested(MAX_JSON_DEPTH - 3)}}]}`;
  const ok = await post('/v1/ingest', atLimit, { 'content-type': 'application/json' });
  assert.is(ok.status, 200, ok.text.slice(0, 300));
  assert.is(await stored([ok.body.results[0].eventId]), 1);
});

/** Protobuf wire bytes of a length-delimited field. */
function field(no: number, bytes: Buffer): Buffer {
  const varint = (n: number) => {
    const out: number[] = [];
    for (; n > 0x7f; n = Math.floor(n / 128)) out.push((n & 0x7f) | 0x80);
    out.push(n);
    return Buffer.from(out);
  };
  return Buffer.concat([varint((no << 3) | 2), varint(bytes.length), bytes]);
}

test('item 2: a protobuf log body nested past the decoder limit is 400 nesting_too_deep, not a generic decode error', async () => {
  let value = field(1, Buffer.from('leaf')); // AnyValue{string_value}
  for (let i = 0; i < 200; i++) value = field(5, field(1, value)); // AnyValue{array_value{values}}
  const request = field(1, field(2, field(2, field(5, value)))); // request{resource_logs{scope_logs{log_records{body}}}}
  const r = await post('/v1/logs', request, { 'content-type': 'application/x-protobuf' });
  assert.is(r.status, 400, r.text);
  assert.is(r.body.code, 'nesting_too_deep');
  assert.match(r.body.error, /deeper than 100 levels of protobuf messages/);
  const garbage = await post('/v1/logs', Buffer.from([0x0a, 0xff, 0xff, 0x01]), { 'content-type': 'application/x-protobuf' });
  assert.is(garbage.status, 400);
  assert.is(garbage.body.code, 'invalid_envelope');
});

test('values the store would refuse: rejected per event (direct) or kept out of the columns (OTLP, hooks); everything acknowledged is stored', async () => {
  const events = [
    { conversation_id: 'odd-1', role: 'user', message: 'negative tokens', input_tokens: -5 },
    { conversation_id: 'odd-1', role: 'user', message: 'fractional tokens', output_tokens: 1.5 },
    { conversation_id: 'odd-1', role: 'user', message: 'huge tokens', input_tokens: 1e300 },
    { conversation_id: 'odd-1', role: 'user', message: 'year 2300', timestamp: '2300-01-01T00:00:00Z' },
    { conversation_id: 'odd-1', role: 'user', message: 'year 1899', timestamp: '1899-12-31T23:59:59Z' },
    { conversation_id: 'odd-1', role: 'user', message: 'fine, with a NUL \u0000 and 2^53-1 tokens', message_id: 'ok-1', input_tokens: 2 ** 53 - 1, timestamp: '1900-01-01T00:00:00Z' },
  ];
  const d = await post('/v1/ingest', { events });
  assert.is(d.status, 200);
  assert.equal(d.body.results.map((x: { accepted: boolean }) => x.accepted), [false, false, false, false, false, true]);
  assert.match(d.body.results[0].reason, /input_tokens must be >= 0/);
  assert.match(d.body.results[1].reason, /output_tokens must be integer/);
  assert.match(d.body.results[3].reason, /between 1900-01-01 and 2299-12-31/);
  const hooks = await post('/v1/otel/agent-b/hooks', [
    { hook: 'PreToolUse', timestamp: '9999-01-01T00:00:00Z', conversation_id: 'odd-2' },
    { hook: 'PreToolUse', timestamp: 1767225600000, conversation_id: 'odd-2', tool_name: 'Bash', tool_use_id: 'odd-call', duration_ms: 1e308 },
  ]);
  assert.equal([hooks.status, hooks.body.count, hooks.body.malformed], [200, 1, 1]);
  const spans = {
    resourceSpans: [{ scopeSpans: [{ spans: [{
      traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: 'odd', kind: 300, status: { code: -7 },
      startTimeUnixNano: '18000000000000000000', endTimeUnixNano: '18446744073709551615',
      attributes: kv({ 'session.id': 'odd-3', 'gen_ai.usage.input_tokens': -3, 'gen_ai.usage.output_tokens': '1e999' }),
    }] }] }],
  };
  const s = await post('/v1/otel/agent-a/traces', spans);
  assert.equal([s.status, s.body], [200, { partialSuccess: {} }]);
  const logs = logsEnvelope([{ timeUnixNano: '18446744073709551615', body: { stringValue: 'claude_code.api_request' }, attributes: kv({ 'session.id': 'odd-4', input_tokens: '-1', output_tokens: 12, cost_usd: '1e300' }) }]);
  const l = await post('/v1/otel/agent-a/logs', logs);
  assert.equal([l.status, l.body], [200, { partialSuccess: {} }]);
  const rows = await eventually(async () => {
    const r = await query<{ conversation_id: string; n: string }>("SELECT conversation_id, count() AS n FROM {{db}}.events FINAL WHERE conversation_id LIKE 'odd-%' GROUP BY conversation_id ORDER BY conversation_id");
    // the sink inserts a batch's tables one after another: wait for the last of them to hold its rows too
    const later = await query<{ n: string }>("SELECT (SELECT count() FROM {{db}}.spans WHERE conversation_id = 'odd-3') + (SELECT count() FROM {{db}}.messages WHERE message_id = 'ok-1') AS n");
    return r.length === 4 && later[0]!.n === '2' ? r : undefined;
  });
  assert.equal(rows!.map((r) => [r.conversation_id, r.n]), [['odd-1', '1'], ['odd-2', '1'], ['odd-3', '1'], ['odd-4', '1']]);
  const [span] = await query<{ kind: number; status_code: number; gen_ai_input_tokens: string }>("SELECT kind, status_code, gen_ai_input_tokens FROM {{db}}.spans FINAL WHERE conversation_id = 'odd-3'");
  assert.equal([span!.kind, span!.status_code, span!.gen_ai_input_tokens], [0, 0, '0']);
  const [api] = await query<{ input_tokens: string; output_tokens: string; y: number }>("SELECT input_tokens, output_tokens, toYear(event_time) AS y FROM {{db}}.events FINAL WHERE conversation_id = 'odd-4'");
  assert.equal([api!.input_tokens, api!.output_tokens], ['0', '12'], 'a negative count is left out of the column');
  assert.ok(api!.y >= 2025, 'a time past 2299 falls back to the receive time');
  const [fine] = await query<{ content: string; input_tokens: string }>("SELECT content, input_tokens FROM {{db}}.messages FINAL WHERE message_id = 'ok-1'");
  assert.equal(fine, { content: 'fine, with a NUL \u0000 and 2^53-1 tokens', input_tokens: String(2 ** 53 - 1) });
  assert.equal(await listDeadLetters(ts.system.rt.bus.jsm), []);
});

test('item 6: /v1/ingest answers 415 to text/plain and form bodies, 413 to an event too large for one message, all in one error shape', async () => {
  const body = JSON.stringify({ events: [{ conversation_id: 'c', role: 'user', message: 'x' }] });
  const shape = (r: { body: Record<string, unknown> }) => Object.keys(r.body).sort();
  const SHAPE = ['code', 'count', 'error', 'message', 'requestId', 'success'];
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'text/plain;charset=UTF-8']) {
    const r = await post('/v1/ingest', body, { 'content-type': type });
    assert.is(r.status, 415, type);
    assert.equal(shape(r), SHAPE);
    assert.equal([r.body.success, r.body.count, r.body.code], [false, 0, 'unsupported_media_type']);
  }
  const none = await fetch(`${ts.ingestUrl}/v1/ingest`, { method: 'POST', headers: auth(ts.adminKey), body: new TextEncoder().encode(body) });
  assert.is(none.status, 200, 'no content type at all is read as JSON');
  const big = await post('/v1/ingest', { events: [{ conversation_id: 'big', role: 'user', message: 'ok' }, { conversation_id: 'big', role: 'user', message: 'y'.repeat(4 * 1024 * 1024) }] });
  assert.is(big.status, 413);
  assert.equal(shape(big), SHAPE);
  assert.is(big.body.code, 'event_too_large');
  assert.match(big.body.error, /event 1 is \d+ bytes once normalized, over the limit of \d+ bytes/);
  const bad = await post('/v1/ingest', '{"events": 5}', { 'content-type': 'application/json' });
  const unauth = await http(`${ts.ingestUrl}/v1/ingest`, { method: 'POST', body });
  const notJson = await post('/v1/ingest', '{', { 'content-type': 'application/json' });
  for (const [r, status, code] of [[bad, 400, 'invalid_ingest_envelope'], [unauth, 401, 'key_required'], [notJson, 400, 'invalid_json']] as const) {
    assert.is(r.status, status);
    assert.equal(shape(r), SHAPE, `${status} ${code}`);
    assert.is(r.body.code, code);
    assert.is(r.body.error, r.body.message);
    assert.is(r.body.requestId, r.headers.get('x-request-id'));
  }
  // the same shape on the other routes
  const hooks = await post('/v1/otel/agent-a/hooks', '{', { 'content-type': 'application/json' });
  const otlp = await post('/v1/otel/agent-a/logs', '{', { 'content-type': 'application/json' });
  assert.equal([shape(hooks), shape(otlp)], [SHAPE, SHAPE]);
  const nowhere = await post('/v1/nowhere', body, { 'content-type': 'application/json' });
  const get = await http(`${ts.ingestUrl}/v1/ingest`, { headers: auth(ts.adminKey) });
  assert.equal([nowhere.status, nowhere.body.code, shape(nowhere)], [404, 'route_not_found', SHAPE]);
  assert.equal([get.status, get.body.code, shape(get)], [405, 'method_not_allowed', SHAPE]);
  assert.match(String(get.headers.get('allow')), /POST/);
});


test('direct ingest: prompt_id/name/version, provider, model and token counts are stored; content_blocks stored and searchable', async () => {
  const blocks = [
    { type: 'thinking', text: 'check the refund policy' },
    { type: 'text', text: 'Refunds take 5 days.' },
    { type: 'tool_use', tool_name: 'lookup_order', tool_use_id: 'tu-opt', input: { order: 'A-17' } },
    { type: 'text', text: 'Use API_TOKEN=abc123def456ghi to check.' },
  ];
  const r = await post('/v1/ingest', {
    events: [
      { conversation_id: 'opt-1', role: 'assistant', message_id: 'opt-a', message: 'Your order ships today.', model: 'gpt-4.1', provider: 'openai',
        input_tokens: 120, output_tokens: 42, reasoning_tokens: 17, prompt_id: 'pr-7', prompt_name: 'support-triage', prompt_version: 3 },
      { conversation_id: 'opt-1', role: 'assistant', message_id: 'opt-b', content: 'short summary', content_blocks: blocks },
      { conversation_id: 'opt-1', role: 'assistant', message_id: 'opt-c', content: [], content_blocks: blocks },
      { conversation_id: 'opt-1', role: 'user', message_id: 'opt-d', content: [{ type: 'text', text: 'Where is my order? key sk-live-abcdef1234567890' }] },
    ],
  });
  assert.equal([r.status, r.body.count, r.body.rejected], [200, 4, 0], r.text);
  assert.is(await stored(r.body.results.map((x: { eventId: string }) => x.eventId)), 4);
  type Row = { message_id: string; content: string; content_blocks: string; tool_calls: string; tool_results: string; model: string; provider: string; input_tokens: string; output_tokens: string; reasoning_tokens: string };
  const sql = "SELECT message_id, content, content_blocks, tool_calls, tool_results, model, provider, input_tokens, output_tokens, reasoning_tokens FROM {{db}}.messages FINAL WHERE conversation_id = 'opt-1' ORDER BY message_id";
  const rows = (await eventually(async () => {
    const got = await query<Row>(sql);
    return got.length === 4 ? got : undefined;
  })) ?? [];
  assert.is(rows.length, 4);
  const [a, b, c, d] = rows;
  assert.equal([a!.content, a!.model, a!.provider, Number(a!.input_tokens), Number(a!.output_tokens), Number(a!.reasoning_tokens)], ['Your order ships today.', 'gpt-4.1', 'openai', 120, 42, 17]);
  const [ev] = await query<{ facets: string; model: string; output_tokens: string }>("SELECT facets, model, output_tokens FROM {{db}}.events FINAL WHERE message_id = 'opt-a'");
  assert.equal(JSON.parse(ev!.facets).message, { prompt_id: 'pr-7', prompt_name: 'support-triage', prompt_version: '3' });
  assert.equal([ev!.model, Number(ev!.output_tokens)], ['gpt-4.1', 42]);
  // content_blocks beside a content string: the string is the text, the blocks are kept
  assert.is(b!.content, 'short summary');
  // content_blocks without content blocks: the text of the text blocks, redacted
  assert.is(c!.content, 'Refunds take 5 days.\nUse API_TOKEN=[REDACTED] to check.');
  for (const row of [b!, c!]) {
    assert.equal(parseContentBlocks(row).map((x: { type: string }) => x.type), ['thinking', 'text', 'tool_use', 'text'], row.message_id);
    assert.not.ok(row.content_blocks.includes('abc123def456ghi'), `${row.message_id}: secret stored`);
    assert.equal(JSON.parse(row.tool_calls).map((x: { id: string; name: string }) => [x.id, x.name]), [['tu-opt', 'lookup_order']]);
  }
  // one text block that is the content itself: the text is stored once, and reads back as that block
  assert.is(d!.content, 'Where is my order? key [REDACTED]');
  assert.is(d!.content_blocks, '');
  assert.equal(parseContentBlocks(d!), [{ type: 'text', text: 'Where is my order? key [REDACTED]' }]);
  // no blocks at all stay an empty list
  assert.is(a!.content_blocks, '[]');
  const found = await query<{ message_id: string }>("SELECT message_id FROM {{db}}.messages FINAL WHERE conversation_id = 'opt-1' AND content ILIKE '%refunds take%'");
  assert.equal(found.map((x) => x.message_id), ['opt-c']);
});

test.run();
