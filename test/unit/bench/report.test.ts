import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compareResults, formatTable, fmtNum } from '../../../bench/report/compare.js';
import { buildSummary, checkGoals, SUMMARY_FIELDS, type BenchResult } from '../../../bench/report/summary.js';
import { renderSvg } from '../../../bench/report/svg.js';
import { formatReport } from '../../../bench/report/text.js';
import { parseArgs, UsageError } from '../../../bench/options.js';
import { percentile, summarize, ratio } from '../../../bench/lib/stats.js';
import { patchBody, variantSlots } from '../../../bench/lib/pool.js';

const lat = (p99: number) => ({ count: 10, p50_ms: p99 / 2, p95_ms: p99 * 0.9, p99_ms: p99, max_ms: p99 });
const alone = (events: number) => ({ events_per_s: events, cpu_s_per_million: 1e6 / events, cores: 1, non_2xx: 0 });
const tp = (events: number) => ({ ...lat(10), requests_per_s: events / 50, events_per_s: events, mb_per_s: 1, ok_share: 1, statuses: { 200: 10 } });

function fixture(): BenchResult {
  const partial: Omit<BenchResult, 'summary' | 'goals'> = {
    version: 1, label: 'x', started_at: '2026-01-01T00:00:00.000Z', duration_s: 100, options: {},
    machine: { cpus: 2, model: 'cpu', memory_gb: 24, node: 'v20', commit: 'abc', load_avg_start: [1, 1, 1], load_avg_end: [2, 2, 2] },
    ceilings: { clickhouse_insert: { events: 1000, rows: 3000, seconds: 0.01, events_per_s: 200_000, rows_per_s: 600_000 } },
    edge: [
      { format: 'direct', route: '/v1/ingest', ingest: tp(40_000), ceiling: tp(80_000), ingest_vs_parse_ceiling: 0.5 },
      { format: 'hooks-a', route: '/v1/otel/agent-a/hooks', ingest: tp(20_000) },
      { format: 'otlp-json-b', route: '/v1/otel/agent-b/logs', missing: 'n/a (not implemented: 404)' },
    ],
    edge_alone: [
      { format: 'otlp-proto-a', edge: alone(20_000), parse: alone(40_000), edge_vs_parse: 0.5 },
      { format: 'otlp-json-a', edge: alone(15_000), parse: alone(100_000), edge_vs_parse: 0.15 },
    ],
    e2e: { steps: [], max_sustained_events_per_s: 50_000 },
    freshness: { rate_events_per_s: 25_000, markers: 10, timeouts: 0, latency: lat(900) },
    dataset: { events: 1_000_000, rows: 2_000_000, conversations: 30_000, load_seconds: 10, load_events_per_s: 100_000 },
    query: [
      { name: 'conversations', path: '/conversations', api: lat(40), bare: lat(20), api_vs_bare_p99: 2 },
      { name: 'overview', path: '/overview', api: lat(120) },
      { name: 'problems', path: '/problems', missing: 'n/a (not implemented: 404)' },
    ],
    memory: { all_in_one_mb: 900, ingest_mb: 300, stream_mb: 500, query_mb: 400, bench_process_mb: 1200, notes: [] },
    notes: [],
  };
  const summary = buildSummary(partial);
  return { ...partial, summary, goals: checkGoals(summary) };
}

test('summary has exactly the documented numeric fields', () => {
  const r = fixture();
  assert.equal(Object.keys(r.summary).sort(), [...SUMMARY_FIELDS].sort());
  assert.equal(r.summary, {
    e2e_events_per_s: 50_000, e2e_vs_insert_ceiling: 0.25, freshness_p50_ms: 450, freshness_p99_ms: 900,
    ingest_events_per_s: 30_000, query_p99_ms_max: 120, query_vs_bare_max: 2, rss_all_in_one_mb: 900, dataset_events: 1_000_000,
    // the fixture has no byte-path ceilings, CPU or storage figures: those summary fields are null, not invented
    e2e_vs_best_insert: null, e2e_vs_no_parse: null, cpu_s_per_million_events: null, cpu_s_per_million_until_idle: null, bytes_stored_per_event: null,
    stream_drain_events_per_s: null,
    // the lowest ratio of the OTLP formats: the target holds for every one of them
    edge_alone_vs_parse_min: 0.15,
  });
});

test('the whole cost of the top rate: reported when the system got idle again, else null and said so', () => {
  const r = fixture();
  const idle = { idle: true, waited_ms: 500, polls: 3, before: { ingest: 0, analyze: 0, merges: 0 }, after: { ingest: 0, analyze: 0, merges: 0 } };
  r.e2e = { ...r.e2e!, cost: { offered_events_per_s: 21_223, accepted_events_per_s: 20_950, load_seconds: 12, seconds: 18.2, idle: true, cpu_s_per_million: 118.4, bus_cpu_s_per_million: 9.1, idle_before: idle } };
  assert.is(buildSummary(r).cpu_s_per_million_until_idle, 118.4);
  assert.ok(formatReport(r).includes('the whole cost of 21,223 events/s, once more from idle to idle (12 s of load, 18.2 s in all, its analyses and merges included): 118.4 CPU-s per M events (+ bus 9.1), 20,950 events/s accepted'));
  r.e2e.cost = { ...r.e2e.cost!, idle: false };
  assert.is(buildSummary(r).cpu_s_per_million_until_idle, null, 'a partial figure would understate the cost');
  assert.ok(formatReport(r).includes('once more from idle to NOT idle'));
});

test('missing figures are null, never NaN (JSON keeps them)', () => {
  const r = fixture();
  const s = buildSummary({ ...r, e2e: { missing: 'n/a', steps: [], max_sustained_events_per_s: NaN }, memory: undefined, query: [] });
  assert.is(s.e2e_events_per_s, null);
  assert.is(s.e2e_vs_insert_ceiling, null);
  assert.is(s.rss_all_in_one_mb, null);
  assert.is(s.query_p99_ms_max, null);
  assert.ok(JSON.stringify(s).includes('"e2e_events_per_s":null'));
});

test('goals say what was missed and by how much', () => {
  const g = fixture().goals;
  const e2e = g.find((x) => x.goal.startsWith('end to end ≥ 100'))!;
  assert.is(e2e.met, false);
  assert.is(e2e.score, 0.5);
  const fresh = g.find((x) => x.goal.startsWith('freshness'))!;
  assert.is(fresh.met, true);
  const edge = g.find((x) => x.goal.startsWith('ingest edge alone'))!;
  assert.is(edge.met, false);
  assert.is(edge.score, 0.3);
  const q = g.find((x) => x.goal.includes('p99 ≤ 100 ms'))!;
  assert.is(q.met, false);
  assert.is(q.score, 0.833);
});

test("goals include the write path's: 25,000 events/s, 50 CPU-s per M, a 50,000 events/s drain", () => {
  const s = { ...fixture().summary, e2e_events_per_s: 20_000, cpu_s_per_million_events: 100, cpu_s_per_million_until_idle: 125, stream_drain_events_per_s: 55_000 };
  const g = checkGoals(s);
  const by = (start: string) => g.find((x) => x.goal.startsWith(start))!;
  assert.equal([by('end to end ≥ 25,000').met, by('end to end ≥ 25,000').score], [false, 0.8]);
  // an "at most" goal scores target over measured: 50 / 125, the cost with the analyses and merges
  assert.equal([by('end to end ≤ 50 CPU-s').met, by('end to end ≤ 50 CPU-s').score], [false, 0.4]);
  assert.equal([by('stream role alone').met, by('stream role alone').score], [true, 1.1]);
  // not measured: neither met nor missed
  const none = checkGoals({ ...s, stream_drain_events_per_s: null });
  assert.equal(none.find((x) => x.goal.startsWith('stream role alone'))!.met, null);
});

test('compare: side by side with B/A ratios, per format and per endpoint', () => {
  const a = fixture();
  const b = fixture();
  b.summary = { ...b.summary, e2e_events_per_s: 75_000, rss_all_in_one_mb: null };
  b.edge = [{ ...b.edge[0]!, ingest: tp(20_000) }];
  const rows = compareResults(a, b);
  const by = (n: string) => rows.find((r) => r.name === n)!;
  assert.equal(by('e2e_events_per_s'), { name: 'e2e_events_per_s', a: 50_000, b: 75_000, ratio: 1.5 });
  assert.equal(by('rss_all_in_one_mb'), { name: 'rss_all_in_one_mb', a: 900, b: null, ratio: null });
  assert.is(by('edge direct events/s').ratio, 0.5);
  assert.is(by('edge hooks-a events/s').b, null);
  assert.is(by('query conversations p99 ms').ratio, 1);
  assert.not.ok(rows.some((r) => r.name === 'query problems p99 ms'));
});

test('table formatting: aligned columns, n/a for missing', () => {
  const t = formatTable(['name', 'value'], [['a', 1234567], ['bb', null], ['c', 0.12345]]);
  const lines = t.split('\n');
  assert.is(lines.length, 5);
  assert.ok(lines[2]!.endsWith('1,234,567'));
  assert.ok(lines[3]!.endsWith('n/a'));
  assert.ok(lines[4]!.endsWith('0.123'));
  assert.ok(new Set(lines.map((l) => l.length)).size === 1);
  assert.is(fmtNum(12), '12');
});

test('report and SVG render every section, n/a rows included', () => {
  const r = fixture();
  const text = formatReport(r);
  for (const s of ['CEILINGS', 'INGEST EDGE', 'INGEST EDGE ALONE', 'END TO END', 'FRESHNESS', 'QUERY', 'MEMORY', 'SUMMARY', 'GOALS', 'n/a (not implemented: 404)']) assert.ok(text.includes(s), s);
  // each OTLP format's row of the edge alone: events/s of both processes and their ratio
  assert.ok(/otlp-json-a\s+15,000\s+66\.667\s+100,000\s+10\s+0\.15/.test(text), text);
  const svg = renderSvg(r);
  assert.ok(svg.startsWith('<svg') && svg.trim().endsWith('</svg>'));
  assert.ok(svg.includes('ingest edge direct') && svg.includes('conversations (bare query)'));
  assert.not.ok(svg.includes('NaN'));
});

test('the drain line gives the whole backlog, its first rounds and the role\'s peak RSS', () => {
  const r = fixture();
  r.drain = { events: 243_372, messages: 8_202, seconds: 5.35, events_per_s: 45_529, cpu_s_per_million: 34.1, first_rounds: { rounds: 2, events: 81_124, seconds: 2.65, events_per_s: 30_662 }, peak_rss_mb: 956 };
  const line = formatReport(r).split('\n').find((l) => l.startsWith('STREAM ROLE ALONE'));
  assert.is(line, 'STREAM ROLE ALONE draining 243,372 events (8,202 messages): 45,529 events/s in 5.35 s, 34.1 CPU-s per million events; its first 2 rounds (81,124 events) 30,662 events/s; peak RSS 956 MB');
  delete r.drain.first_rounds;
  delete r.drain.peak_rss_mb;
  assert.ok(formatReport(r).includes('34.1 CPU-s per million events\n'), 'older results: no first rounds, no RSS');
});

test('report says whether the end-to-end, freshness and query phases started on an idle system', () => {
  const r = fixture();
  const idle = { ingest: 0, analyze: 0, merges: 0 };
  r.query_idle = { idle: true, waited_ms: 1200, polls: 5, before: { ingest: 40, analyze: 2, merges: 1 }, after: idle, end: idle };
  assert.ok(formatReport(r).includes('QUERY started on an idle system (waited 1,200 ms; before: INGEST 40, ANALYZE 2, merges 1; at the end: INGEST 0, ANALYZE 0, merges 0)'));
  r.query_idle = { ...r.query_idle, idle: false, after: { ingest: 3, analyze: 0, merges: 0 } };
  assert.ok(formatReport(r).includes('QUERY started BEFORE the system was idle'));
  // the freshness phase says the same of its own start
  r.freshness = { ...r.freshness!, start_idle: { idle: true, waited_ms: 8300, polls: 30, before: { ingest: 0, analyze: 412, merges: 2 }, after: idle } };
  assert.ok(formatReport(r).includes('started on an idle system (waited 8,300 ms; before: INGEST 0, ANALYZE 412, merges 2)'));
  r.freshness.start_idle = { ...r.freshness.start_idle!, idle: false };
  assert.ok(formatReport(r).includes('started BEFORE the system was idle (waited 8,300 ms'));
  // and the end-to-end phase of its first step
  r.e2e = { ...r.e2e!, start_idle: { idle: true, waited_ms: 12_000, polls: 40, before: { ingest: 0, analyze: 1500, merges: 3 }, after: idle } };
  assert.ok(formatReport(r).includes('started on an idle system (waited 12,000 ms; before: INGEST 0, ANALYZE 1500, merges 3)'));
  // with the tenant jobs' due work run before it, and what that cost
  r.e2e.start_idle = { ...r.e2e.start_idle!, jobs: { ms: 15_232, cpu_s: 19.3 } };
  assert.ok(formatReport(r).includes('merges 3; tenant jobs run first: 15,232 ms, 19.3 CPU-s)'));
  // and the step after a miss of its own start: the overload's analyses and merges done first
  const step = { accepted_events_per_s: 0, backlog_max: 0, backlog_end: 0, drain_ms: 0, non_2xx_share: 0, cpu_s_per_million: 100, bus_cpu_s_per_million: 10 };
  r.e2e.steps = [
    { ...step, offered_events_per_s: 26_845, bounded: false },
    { ...step, offered_events_per_s: 21_223, bounded: true, idle_before: { idle: true, waited_ms: 9_400, polls: 30, before: { ingest: 0, analyze: 2100, merges: 4 }, after: idle } },
  ];
  const lines = formatReport(r).split('\n').filter((l) => l.includes('step started'));
  assert.equal(lines, ['  the 21,223 step started on an idle system (waited 9,400 ms; before: INGEST 0, ANALYZE 2100, merges 4)']);
});

test('options: defaults, quick, errors', () => {
  assert.is(parseArgs([]).events, 1_000_000);
  const q = parseArgs(['--quick', '--events', '10_000_000', '--skip', 'memory,autocannon']);
  assert.is(q.quick, true);
  assert.is(q.events, 10_000_000);
  assert.ok(q.skip.has('memory') && q.skip.has('autocannon'));
  assert.equal(parseArgs(['--compare', 'a.json', 'b.json']).compare, ['a.json', 'b.json']);
  assert.is(parseArgs(['--quick']).freshnessRate, undefined, 'default: half the sustained end-to-end rate');
  assert.is(parseArgs(['--freshness-rate', '12_500']).freshnessRate, 12_500);
  assert.is(q.drainRounds, 6, 'a quick drain: six rounds of the real messages');
  assert.is(parseArgs([]).drainRounds, 12);
  assert.is(parseArgs(['--quick', '--drain-rounds', '2']).drainRounds, 2);
  assert.throws(() => parseArgs(['--drain-rounds', 'many']), (e: unknown) => e instanceof UsageError);
  assert.throws(() => parseArgs(['--freshness-rate', 'fast']), (e: unknown) => e instanceof UsageError);
  assert.throws(() => parseArgs(['--frobnicate']), (e: unknown) => e instanceof UsageError);
  assert.throws(() => parseArgs(['--skip', 'nope']), (e: unknown) => e instanceof UsageError);
  assert.throws(() => parseArgs(['--compare', 'a.json']), (e: unknown) => e instanceof UsageError);
});

test('stats: nearest-rank percentiles and ratios', () => {
  const xs = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.is(percentile(xs, 50), 50);
  assert.is(percentile(xs, 99), 99);
  assert.equal(summarize([3, 1, 2]).p50_ms, 2);
  assert.ok(Number.isNaN(ratio(1, 0)));
});

test('pool: replay rounds rewrite the id slot in place, same length', () => {
  const id = 'sess-0123abcd-1111-4222-a333-444455556666';
  const body = Buffer.from(JSON.stringify({ a: id, b: `${id}-m1`, c: 'x' }));
  const slots = variantSlots(body, id);
  assert.is(slots.length, 2);
  const patched = patchBody({ body, slots }, 0x2a);
  assert.is(patched.length, body.length);
  const j = JSON.parse(patched.toString());
  assert.is(j.a, 'sess-0000002a-1111-4222-a333-444455556666');
  assert.is(j.b, 'sess-0000002a-1111-4222-a333-444455556666-m1');
  assert.is(body.toString().includes('0123abcd'), true, 'original untouched');
});

test.run();
