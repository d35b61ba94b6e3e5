import { formatTable, fmtNum } from './compare.js';
import type { BenchResult } from './summary.js';
import { formatBacklogs, type IdleWait } from '../lib/idle.js';

/** Whether a phase started on an idle system, after how long, and what was left before it. */
const idleText = (w: IdleWait) =>
  `${w.idle ? 'on an idle system' : 'BEFORE the system was idle'} (waited ${fmtNum(w.waited_ms)} ms; before: ${formatBacklogs(w.before)}${w.jobs ? `; tenant jobs run first: ${fmtNum(w.jobs.ms)} ms, ${w.jobs.cpu_s} CPU-s` : ''})`;

const na = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? 'n/a' : fmtNum(v));

/** The stdout report: ceilings, edge, end to end, freshness, queries, memory, summary and goals. */
export function formatReport(r: BenchResult): string {
  const out: string[] = [];
  const m = r.machine;
  out.push(`Tracehouse bench ${r.label ? `"${r.label}" ` : ''}— ${m.commit} — ${m.cpus} × ${m.model}, ${m.memory_gb} GB, node ${m.node}`);
  out.push(`load average at start ${m.load_avg_start.map((v) => v.toFixed(2)).join(' ')}, at end ${(m.load_avg_end ?? []).map((v) => v.toFixed(2)).join(' ')}; ${r.duration_s} s`);
  if (r.phase_seconds) out.push(`seconds per phase: ${Object.entries(r.phase_seconds).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  out.push('');
  const c = r.ceilings;
  out.push('CEILINGS (same run, same machine)');
  out.push(formatTable(['ceiling', 'events/s', 'detail'], [
    ['ClickHouse bulk insert via the client (generator rows, JSONEachRow)', c.clickhouse_insert?.events_per_s ?? null, c.clickhouse_insert ? `${fmtNum(c.clickhouse_insert.rows_per_s)} rows/s over ${fmtNum(c.clickhouse_insert.rows)} rows` : 'n/a'],
    ['(a) engine best bulk insert (real rows, raw JSONCompactEachRow, 50k-row batches)', c.store?.best_insert_events_per_s ?? null, c.store ? `${fmtNum(c.store.best_insert_rows_per_s)} rows/s over ${fmtNum(c.store.rows)} rows, ${fmtNum(c.store.best_insert_cpu_s_per_million)} CPU-s/M events; ${fmtNum(c.store.json_bytes_per_event)} B JSON and ${fmtNum(c.store.bytes_per_event.total ?? NaN)} B on disk per event` : 'n/a'],
    ['(b) engine without parsing (INSERT … SELECT from Memory)', c.store?.no_parse_events_per_s ?? null, ''],
    ['JetStream publish (same batches)', c.jetstream?.publish_events_per_s ?? null, c.jetstream ? `${fmtNum(c.jetstream.publish_msgs_per_s)} msgs/s` : 'n/a'],
    ['JetStream consume + ack', c.jetstream?.consume_events_per_s ?? null, c.jetstream ? `${fmtNum(c.jetstream.consume_msgs_per_s)} msgs/s` : 'n/a'],
    ['bare node:http parse (mean of formats)', c.http_parse_events_per_s ?? null, ''],
  ]));
  const d = r.drain;
  if (d) out.push(`\nSTREAM ROLE ALONE draining ${fmtNum(d.events)} events (${fmtNum(d.messages)} messages): ${d.missing ?? `${fmtNum(d.events_per_s)} events/s in ${d.seconds} s, ${fmtNum(d.cpu_s_per_million)} CPU-s per million events${d.with_analysis ? ` (${fmtNum(d.with_analysis.cpu_s_per_million)} until the analyses are done, ${d.with_analysis.seconds} s)` : ''}${d.first_rounds ? `; its first ${d.first_rounds.rounds} rounds (${fmtNum(d.first_rounds.events)} events) ${fmtNum(d.first_rounds.events_per_s)} events/s` : ''}${d.peak_rss_mb !== undefined ? `; peak RSS ${fmtNum(d.peak_rss_mb)} MB` : ''}`}`);
  out.push('\nINGEST EDGE (fixed concurrency; own client, then autocannon)');
  out.push(formatTable(['format', 'req/s', 'events/s', 'p50 ms', 'p95 ms', 'p99 ms', 'vs parse', 'autocannon ev/s', 'ac p99'], r.edge.map((e) =>
    e.missing
      ? [e.format, e.missing, null, null, null, null, null, null, null]
      : [e.format, e.ingest!.requests_per_s, e.ingest!.events_per_s, e.ingest!.p50_ms, e.ingest!.p95_ms, e.ingest!.p99_ms, e.ingest_vs_parse_ceiling ?? null, e.autocannon?.events_per_s ?? null, e.autocannon?.p99_ms ?? null],
  )));
  if (r.edge_alone?.length) {
    out.push('\nINGEST EDGE ALONE vs the bare parse server alone (each a process of its own, same load, one after the other)');
    out.push(formatTable(['format', 'edge ev/s', 'edge CPU-s/M', 'parse ev/s', 'parse CPU-s/M', 'edge vs parse'], r.edge_alone.map((e) => [e.format, e.edge.events_per_s, e.edge.cpu_s_per_million, e.parse?.events_per_s ?? null, e.parse?.cpu_s_per_million ?? null, e.edge_vs_parse ?? null])));
  }
  out.push('\nEND TO END (offered rate stepped; sustained = backlog bounded)');
  if (r.e2e?.missing) out.push(`  ${r.e2e.missing}`);
  if (r.e2e?.start_idle) out.push(`  started ${idleText(r.e2e.start_idle)}`);
  if (r.e2e?.steps.length) {
    out.push(formatTable(['offered ev/s', 'accepted ev/s', 'backlog max', 'drain ms', 'non-2xx', 'CPU-s/M ev', 'bus CPU-s/M', 'load gen CPU-s/M', 'sustained'], r.e2e.steps.map((s) => [s.offered_events_per_s, s.accepted_events_per_s, s.backlog_max, s.drain_ms, s.non_2xx_share, s.cpu_s_per_million ?? null, s.bus_cpu_s_per_million ?? null, s.load_cpu_s_per_million ?? null, s.bounded ? 'yes' : 'NO'])));
    for (const s of r.e2e.steps) if (s.idle_before) out.push(`  the ${fmtNum(s.offered_events_per_s)} step started ${idleText(s.idle_before)}`);
  }
  const cost = r.e2e?.cost;
  if (cost) out.push(`  the whole cost of ${fmtNum(cost.offered_events_per_s)} events/s, once more from idle to ${cost.idle ? 'idle' : 'NOT idle'} (${cost.load_seconds} s of load, ${cost.seconds} s in all, its analyses and merges included): ${fmtNum(cost.cpu_s_per_million)} CPU-s per M events (+ bus ${fmtNum(cost.bus_cpu_s_per_million)}), ${fmtNum(cost.accepted_events_per_s)} events/s accepted`);
  const f = r.freshness;
  out.push(`\nFRESHNESS accepted → visible in the data API: ${f?.missing ?? (f?.latency ? `p50 ${na(f.latency.p50_ms)} ms, p99 ${na(f.latency.p99_ms)} ms over ${f.markers} markers (${f.timeouts} timeouts) at ${fmtNum(f.rate_events_per_s)} ev/s` : 'n/a')}`);
  if (f?.start_idle) out.push(`  started ${idleText(f.start_idle)}`);
  if (f?.read_latency) out.push(`  a context read meanwhile (${fmtNum(f.read_latency.count)} polls): p50 ${na(f.read_latency.p50_ms)} ms, p99 ${na(f.read_latency.p99_ms)} ms`);
  if (r.dataset) out.push(`\nQUERY dataset: ${fmtNum(r.dataset.events)} events (${fmtNum(r.dataset.rows)} rows, ${fmtNum(r.dataset.conversations)} conversations) in the tables after ${r.dataset.load_seconds} s of loading: ${fmtNum(r.dataset.ingested_events ?? 0)} ingested by earlier phases, ${fmtNum(r.dataset.generated_events ?? 0)} generated and bulk-inserted in ${r.dataset.generated_seconds ?? 0} s${(r.dataset.copies ?? 1) > 1 ? `, all of it then copied ×${r.dataset.copies} in the engine` : ''}`);
  const qi = r.query_idle;
  if (qi) {
    out.push(`QUERY started ${qi.idle ? 'on an idle system' : 'BEFORE the system was idle'} (waited ${fmtNum(qi.waited_ms)} ms; before: ${formatBacklogs(qi.before)}${qi.end ? `; at the end: ${formatBacklogs(qi.end)}` : ''})`);
  }
  out.push(formatTable(['endpoint', 'p50 ms', 'p95 ms', 'p99 ms', 'bare p50', 'bare p99', 'p99 vs bare'], r.query.map((q) =>
    q.missing ? [q.name, q.missing, null, null, null, null, null] : [q.name, q.api!.p50_ms, q.api!.p95_ms, q.api!.p99_ms, q.bare?.p50_ms ?? null, q.bare?.p99_ms ?? null, q.api_vs_bare_p99 ?? null],
  )));
  const profiled = r.query.filter((q) => q.reads && q.reads.statements > 0);
  if (profiled.length) {
    out.push('\nQUERY reads (the statements of one API request, run again: rows and bytes the engine read, its time)');
    out.push(formatTable(['endpoint', 'statements', 'rows read', 'MB read', 'engine ms'], profiled.map((q) => [
      q.name, q.reads!.statements, q.reads!.rows_read, Math.round(q.reads!.bytes_read / 1e5) / 10, q.reads!.engine_ms,
    ])));
  }
  if (r.memory) {
    const mm = r.memory;
    out.push('\nMEMORY peak RSS (VmHWM), roles run one after another on the dataset');
    out.push(formatTable(['process', 'MB'], [['all-in-one (tracehouse start)', mm.all_in_one_mb], ['ingest alone', mm.ingest_mb], ['stream alone', mm.stream_mb], ['query alone', mm.query_mb], ['bench process (system in-process + clients)', mm.bench_process_mb]]));
    if (mm.ingest_cpu_s_per_million !== undefined) out.push(`  ingest alone under load: ${fmtNum(mm.ingest_events_per_s ?? NaN)} events/s accepted, ${fmtNum(mm.ingest_cpu_s_per_million)} CPU-s per million events (its process)`);
    for (const n of mm.notes) out.push(`  note: ${n}`);
  }
  out.push('\nSUMMARY');
  out.push(formatTable(['figure', 'value'], Object.entries(r.summary).map(([k, v]) => [k, v]) as Array<[string, number | null]>));
  out.push('\nGOALS (score ≥ 1 means met)');
  out.push(formatTable(['goal', 'measured', 'score', 'met'], r.goals.map((g) => [g.goal, g.measured, g.score, g.met === null ? 'n/a' : g.met ? 'yes' : 'NO'])));
  for (const n of r.notes) out.push(`note: ${n}`);
  return out.join('\n');
}
